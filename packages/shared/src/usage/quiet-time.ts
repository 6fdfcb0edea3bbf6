/**
 * The idle rule's comparison, once (issue 28): a usage source reports how long each series
 * stayed quiet from what it holds (the exporter's samples, Prometheus's highest figure over a
 * few look-backs), and both decide "quiet" here, so the threshold means the same whichever
 * source answers. The verdict built on the quiet time is `verdicts.ts`'s.
 */

/** Under `--idle-threshold` (percent): quiet. At the threshold is not quiet. */
export function underIdleThreshold(percent: number, thresholdPercent: number): boolean {
  return percent < thresholdPercent;
}

/** The highest figure of a series over the last `seconds` up to its newest sample. */
export interface QuietLookback {
  seconds: number;
  /** Null when the source has no figure for this look-back. */
  highestPercent: number | null;
}

/**
 * How long a series stayed quiet, from its highest figure over look-backs ending at its newest
 * sample, shortest first (each at least as long as the one before): the longest look-back whose
 * highest figure is under the threshold; 0 when even the shortest reached it; null when a
 * look-back it needed has no figure (unknown, never 0). Taken lazily, so a source may give one
 * look-back per sample and the reading stops at the first that is not quiet.
 */
export function quietSecondsOf(
  lookbacks: Iterable<QuietLookback>,
  thresholdPercent: number,
): number | null {
  let quiet = 0;
  for (const { seconds, highestPercent } of lookbacks) {
    if (highestPercent === null) return null;
    if (!underIdleThreshold(highestPercent, thresholdPercent)) return quiet;
    quiet = Math.max(quiet, seconds);
  }
  return quiet;
}
