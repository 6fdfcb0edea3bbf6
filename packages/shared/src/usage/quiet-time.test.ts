import { describe, expect, it } from 'vitest';
import { quietSecondsOf, underIdleThreshold } from './quiet-time.js';

describe('the idle rule’s comparison', () => {
  it('under the threshold is quiet; at it is not', () => {
    expect(underIdleThreshold(4.9, 5)).toBe(true);
    expect(underIdleThreshold(5, 5)).toBe(false);
  });

  it('quiet time is the longest look-back still under the threshold', () => {
    const lookbacks = [
      { seconds: 600, highestPercent: 2 },
      { seconds: 1800, highestPercent: 40 },
    ];
    // Quiet for idle-after's 10 min, busy before: quiet 10 min, not the whole 30.
    expect(quietSecondsOf(lookbacks, 5)).toBe(600);
    expect(quietSecondsOf(lookbacks, 50)).toBe(1800);
    // Busy within the shortest look-back: not quiet at all.
    expect(quietSecondsOf(lookbacks, 1)).toBe(0);
  });

  it('an unknown highest figure leaves the quiet time unknown, never 0', () => {
    expect(quietSecondsOf([{ seconds: 600, highestPercent: null }], 5)).toBeNull();
    expect(
      quietSecondsOf(
        [
          { seconds: 600, highestPercent: 0 },
          { seconds: 1800, highestPercent: null },
        ],
        5,
      ),
    ).toBeNull();
    // A busy shortest look-back decides without the longer one.
    expect(
      quietSecondsOf(
        [
          { seconds: 600, highestPercent: 80 },
          { seconds: 1800, highestPercent: null },
        ],
        5,
      ),
    ).toBe(0);
  });
});
