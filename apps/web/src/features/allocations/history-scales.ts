/**
 * How the pool history draws (history-charts.tsx): each pool's line and the value axis. Apart
 * from uPlot, so what an operator would notice is tested without a canvas.
 */

/**
 * A pool's line: a colour from Okabe and Ito's palette, built to stay apart for colour-blind
 * readers (its two oranges are never neighbours here, and its pale yellow and sky blue, too
 * faint on white, come last), and a dash of its own, so two pools differ in shape as well.
 */
export const POOL_LINES = [
  { colour: '#0072B2', dash: [] },
  { colour: '#D55E00', dash: [8, 4] },
  { colour: '#009E73', dash: [2, 3] },
  { colour: '#CC79A7', dash: [10, 3, 2, 3] },
  { colour: '#000000', dash: [4, 4] },
  { colour: '#E69F00', dash: [] },
  { colour: '#56B4E9', dash: [8, 4] },
  { colour: '#F0E442', dash: [2, 3] },
] as const;

export const poolLine = (index: number) => POOL_LINES[index % POOL_LINES.length] ?? POOL_LINES[0];

/** uPlot hands a range null bounds when every figure is unknown. */
const finiteOrZero = (value: number): number => (Number.isFinite(value) ? value : 0);

/**
 * The value axis from the data: up to a tenth above the highest figure, at least 1, so a series
 * of zeros sits at the bottom of a 0–1 axis instead of uPlot's 0–100.
 */
export const valueRange = (min: number, max: number): [number, number] => [
  Math.min(0, finiteOrZero(min)),
  Math.max(1, finiteOrZero(max)) * 1.1,
];
