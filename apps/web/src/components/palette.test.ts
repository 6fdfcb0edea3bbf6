import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cssVariableOf, PALETTE, type PaletteColour, TAG_TEXT } from './palette.js';

/** WCAG 2.2's relative luminance of "#rrggbb". */
function luminance(hex: string): number {
  const channels = [1, 3, 5].map((at) => Number.parseInt(hex.slice(at, at + 2), 16) / 255);
  const [red = 0, green = 0, blue = 0] = channels.map((value) =>
    value <= 0.039_28 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4,
  );
  return 0.2126 * red + 0.7152 * green + 0.0722 * blue;
}

const contrast = (one: string, other: string): number => {
  const [light, dark] = [luminance(one), luminance(other)].sort((a, b) => b - a);
  return ((light ?? 0) + 0.05) / ((dark ?? 0) + 0.05);
};

/** The page's background (styles/shell.css `body`) and a card's. */
const BACKGROUNDS = ['#ffffff', '#f5f6f8'];

describe('the console palette', () => {
  it('is what the antd-free pages use: styles/shell.css declares every colour with the same value', () => {
    const css = readFileSync(new URL('../styles/shell.css', import.meta.url), 'utf8');
    for (const colour of Object.keys(PALETTE) as PaletteColour[]) {
      expect(css, cssVariableOf(colour)).toContain(`${cssVariableOf(colour)}: ${PALETTE[colour]};`);
    }
  });

  it('reads at WCAG AA: every text colour 4.5:1 at least on the page and on a card', () => {
    for (const [name, colour] of Object.entries({ ...PALETTE, ...TAG_TEXT })) {
      for (const background of BACKGROUNDS) {
        expect(contrast(colour, background), `${name} on ${background}`).toBeGreaterThanOrEqual(
          4.5,
        );
      }
    }
  });

  it('keeps a primary button’s white words readable, also hovered', () => {
    for (const colour of [PALETTE.primary, PALETTE.primaryHover, PALETTE.error, PALETTE.errorHover])
      expect(contrast('#ffffff', colour)).toBeGreaterThanOrEqual(4.5);
  });
});
