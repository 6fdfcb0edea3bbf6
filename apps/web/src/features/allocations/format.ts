/** How the dashboard writes shares and sizes: percent of one card, MiB as nodes report them. */

/** "60%", "33.5%": compute in percent of one card (spec §2: 100 per card). */
export const formatPercent = (percent: number): string =>
  `${Number.isInteger(percent) ? percent : Number(percent.toFixed(2))}%`;

/** Cards of compute: 120 % → "1.2". */
export const formatCards = (percent: number): string => String(Number((percent / 100).toFixed(2)));

/** "4 GiB" for whole GiB, "44.99 GiB" otherwise. */
export const formatGiB = (mib: number): string => `${Number((mib / 1024).toFixed(2))} GiB`;

/**
 * "812 MiB": memory in whole MiB, the unit nodes report; a used figure is a mean over samples, so
 * it is rounded (a limit is whole already). Used and allocated memory are both written this way.
 */
export const formatMiBFigure = (mib: number): string => `${Math.round(mib)} MiB`;

/** "4096 MiB (4 GiB)": the per-card figure nodes report, with the GiB people type in the form. */
export const formatMiB = (mib: number | null, whole: string): string =>
  mib === null ? whole : `${formatMiBFigure(mib)} (${formatGiB(mib)})`;

/** "3 s", "2 min": how long ago, for the freshness indicator. */
export function secondsAgo(then: number | null, now: number): number | null {
  return then === null ? null : Math.max(0, Math.floor((now - then) / 1000));
}
