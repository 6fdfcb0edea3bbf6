/**
 * The console's colours, once, for antd's theme (`console-antd-config.tsx`) and for the antd-free
 * pages, whose `styles/shell.css` carries the same values as `--mgpu-*` variables (a test holds the two
 * equal). Each text colour stands at least 4.5:1 against white and against its own light
 * background (WCAG 2.2 AA 1.4.3); antd's defaults do not (#1677ff 4.1:1, its green tags 3.37:1,
 * its red 3.27:1).
 */
export const PALETTE = {
  /** Links, primary buttons, the active tab: antd's blue-7, 6.2:1 on white. */
  primary: '#0958d9',
  /** Hovered or pressed: darker, never lighter, so the text stays readable (blue-8). */
  primaryHover: '#003eb3',
  /** Done, verified, running (green-8): 5.4:1 on its light green. */
  success: '#237804',
  /** Waiting, stalled (orange-8): 5.1:1 on its light orange. */
  warning: '#ad4e00',
  /** Refused, failed, delete (red-7): 5.6:1 on white, 5.1:1 on its light red. */
  error: '#cf1322',
  /** A hovered or pressed delete button (red-8). */
  errorHover: '#a8071a',
  /** Secondary words: 7:1 on white (antd's own description grey is 3.4:1). */
  textMuted: '#595959',
} as const;

export type PaletteColour = keyof typeof PALETTE;

/** The CSS variable of a palette colour: `primaryHover` → `--mgpu-primary-hover`. */
export const cssVariableOf = (colour: PaletteColour): string =>
  `--mgpu-${colour.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;

/**
 * The preset tag colours the pages use (green, orange, gold, cyan, volcano), antd's shade 7 as
 * their text on shade 1 is below 4.5:1 (green 3.37:1, gold 2.76:1): a darker shade of the same hue.
 */
export const TAG_TEXT = {
  green7: '#237804',
  orange7: '#ad4e00',
  gold7: '#874d00',
  cyan7: '#006d75',
  volcano7: '#ad2102',
} as const;
