import { useEffect } from 'react';
import { FIELD_ID_PREFIX } from './draft.js';

/**
 * What the operator typed into the prerendered form before its script ran. The BFF sends
 * /workloads/new already rendered, so its fields take typing at once. Hydration keeps those
 * values on screen, but the form's state never heard of them: the request, the per-card panel and
 * the submit button would not match the screen, and the next render of a field would put its old
 * value back. So `main.tsx` notes them just before it hydrates (a field whose value differs from
 * the one it was rendered with was typed into), and the form replays each through that field's
 * own change handler once it is live.
 */
interface EarlyValue {
  id: string;
  rendered: string;
  typed: string;
}

let early: EarlyValue[] = [];

/** Call right before `hydrateRoot`: afterwards the fields' rendered values are overwritten. */
export function captureEarlyInput(root: HTMLElement): void {
  early = [];
  for (const element of root.querySelectorAll<HTMLInputElement | HTMLSelectElement>(
    `input[id^="${FIELD_ID_PREFIX}"], select[id^="${FIELD_ID_PREFIX}"]`,
  )) {
    const rendered =
      element instanceof HTMLSelectElement
        ? ([...element.options].find((option) => option.defaultSelected) ?? element.options[0])
            ?.value
        : element.defaultValue;
    if (rendered !== undefined && element.value !== rendered)
      early.push({ id: element.id, rendered, typed: element.value });
  }
}

const nativeValueSetter = (element: HTMLInputElement | HTMLSelectElement) =>
  Object.getOwnPropertyDescriptor(Object.getPrototypeOf(element), 'value')?.set;

/**
 * Delivers a value as the browser delivers typing: React compares the value it last saw with the
 * field's, so the field is first set to its rendered value through React's view of it, then to
 * the typed value behind React's back, then told that it changed.
 */
function replay({ id, rendered, typed }: EarlyValue): void {
  const element = document.getElementById(id);
  if (!(element instanceof HTMLInputElement || element instanceof HTMLSelectElement)) return;
  element.value = rendered;
  nativeValueSetter(element)?.call(element, typed);
  element.dispatchEvent(
    new Event(element instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }),
  );
}

/**
 * Replays the early typing into the live form, once, after its first commit. A passive effect:
 * React 19.3 did not deliver these events from a layout effect of the hydrating commit, and it
 * runs passive effects before any later render could put a field's old value back.
 */
export function useReplayEarlyInput(): void {
  useEffect(() => {
    const values = early;
    early = [];
    for (const value of values) replay(value);
  }, []);
}
