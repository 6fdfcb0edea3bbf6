import { describe, expect, it } from 'vitest';
import { POOL_LINES, poolLine, valueRange } from './history-scales.js';

describe('the history charts’ value axis', () => {
  it('draws a series of zeros at the bottom of a 0–1 axis, not on uPlot’s 0–100', () => {
    expect(valueRange(0, 0)).toEqual([0, 1.1]);
  });

  it('follows the data: a tenth above the highest figure', () => {
    const [low, high] = valueRange(0, 42);
    expect(low).toBe(0);
    expect(high).toBeCloseTo(46.2);
  });

  it('still draws an axis when every figure is unknown', () => {
    expect(valueRange(Number.NaN, Number.NaN)).toEqual([0, 1.1]);
  });
});

describe('each pool’s line', () => {
  it('differs from the other pools’ in colour and in dash, up to five pools', () => {
    const lines = [0, 1, 2, 3, 4].map(poolLine);
    expect(new Set(lines.map((line) => line.colour)).size).toBe(5);
    expect(new Set(lines.map((line) => line.dash.join(' '))).size).toBe(5);
  });

  it('never draws two neighbouring pools in Okabe–Ito’s two oranges', () => {
    const colours = POOL_LINES.map((line) => line.colour);
    const distance = Math.abs(colours.indexOf('#E69F00') - colours.indexOf('#D55E00'));
    expect(Math.min(distance, colours.length - distance)).toBeGreaterThanOrEqual(3);
  });

  it('cycles when there are more pools than colours', () => {
    expect(poolLine(POOL_LINES.length)).toEqual(poolLine(0));
  });
});
