/**
 * The screens and languages issue 29 holds every route to: an on-call phone (390×844), the
 * narrowest supported width (360), a laptop (1280×800); zh-CN and en. `checkScreens` visits a
 * state at each width and language and asserts what an operator would notice: no horizontal
 * scroll of the page, and no axe violation of any impact (WCAG 2.2 AA).
 */
import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

export const PHONE = { width: 390, height: 844 } as const;
export const NARROWEST = { width: 360, height: 780 } as const;
export const LAPTOP = { width: 1280, height: 800 } as const;
export const LANGS = ['zh-CN', 'en'] as const;
export type Lang = (typeof LANGS)[number];

/** The console remembers the operator's language here (apps/web/src/i18n/i18n.tsx). */
const LANG_STORAGE_KEY = 'mgpu.lang';

/**
 * Every axe violation on the page (or only `within` it, a CSS selector), any impact, as id → the
 * elements it names.
 */
export async function axeViolations(page: Page, within?: string) {
  const builder = new AxeBuilder({ page }).withTags([
    'wcag2a',
    'wcag2aa',
    'wcag21a',
    'wcag21aa',
    'wcag22aa',
    'best-practice',
  ]);
  const results = await (within === undefined ? builder : builder.include(within)).analyze();
  return results.violations.map((violation) => ({
    id: violation.id,
    impact: violation.impact,
    nodes: violation.nodes.map((node) => node.target.join(' ')),
  }));
}

/** How far the page scrolls sideways: 0 when nothing sticks out of the viewport. */
export async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
}

/** Opens the page in `lang` (set before any script runs, as a returning operator has it). */
export async function useLanguage(page: Page, lang: Lang): Promise<void> {
  await page.addInitScript(([key, value]) => globalThis.localStorage.setItem(key, value), [
    LANG_STORAGE_KEY,
    lang,
  ] as const);
}

/**
 * At each size: resize, let `ready` confirm the state is shown, then no sideways scroll and no
 * axe violation. `ready` runs after each resize (a layout may swap a table for a list).
 */
export async function checkScreens(
  page: Page,
  ready: () => Promise<void>,
  sizes: readonly { width: number; height: number }[] = [PHONE, LAPTOP],
): Promise<void> {
  for (const size of sizes) {
    await page.setViewportSize(size);
    await ready();
    expect(await horizontalOverflow(page), `sideways scroll at ${size.width} px`).toBe(0);
    expect(await axeViolations(page), `axe at ${size.width} px`).toEqual([]);
  }
}
