import type { Lang } from '@mgpu/shared';

/**
 * Dates, times and plain numbers in the UI language, through `Intl`: zh-CN reads
 * "2026/12/5 21:40", en "12/5/2026, 9:40 PM". Every page that prints a moment or a chart figure
 * goes through here, so no page falls back to the browser's own locale. Shares and sizes with
 * their units stay in `features/allocations/format.ts`.
 */

/** A moment as the API sends it (ISO text), as `Date.parse` gives it (ms), or a `Date`. */
type Moment = string | number | Date;

/** One formatter per language and shape: building an `Intl` formatter is the costly part. */
function memoByLang<Formatter>(make: (lang: Lang) => Formatter): (lang: Lang) => Formatter {
  const made = new Map<Lang, Formatter>();
  return (lang) => {
    let formatter = made.get(lang);
    if (formatter === undefined) {
      formatter = make(lang);
      made.set(lang, formatter);
    }
    return formatter;
  };
}

/** Four-digit years and numeric months read alike in both languages, never "12/5/26". */
const dateTimeFormat = memoByLang(
  (lang) =>
    new Intl.DateTimeFormat(lang, {
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
    }),
);
const dateTimeWithSecondsFormat = memoByLang(
  (lang) =>
    new Intl.DateTimeFormat(lang, {
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      second: '2-digit',
    }),
);
const dateFormat = memoByLang(
  (lang) => new Intl.DateTimeFormat(lang, { year: 'numeric', month: 'numeric', day: 'numeric' }),
);
const timeFormat = memoByLang(
  (lang) => new Intl.DateTimeFormat(lang, { hour: 'numeric', minute: '2-digit' }),
);
const timeWithSecondsFormat = memoByLang(
  (lang) =>
    new Intl.DateTimeFormat(lang, { hour: 'numeric', minute: '2-digit', second: '2-digit' }),
);
const numberFormat = memoByLang(
  (lang) => new Intl.NumberFormat(lang, { maximumFractionDigits: 2 }),
);

function dateOf(moment: Moment): Date | undefined {
  const date = moment instanceof Date ? moment : new Date(moment);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/** A moment the server did not write as a date is shown as it came, not as "Invalid Date". */
const formatted = (moment: Moment, format: (date: Date) => string): string => {
  const date = dateOf(moment);
  return date === undefined ? String(moment) : format(date);
};

/** "2026/12/5 21:40" (zh-CN), "12/5/2026, 9:40 PM" (en); with seconds where samples are closer. */
export const formatDateTime = (lang: Lang, moment: Moment, withSeconds = false): string =>
  formatted(moment, (date) =>
    (withSeconds ? dateTimeWithSecondsFormat(lang) : dateTimeFormat(lang)).format(date),
  );

/** "2026/12/5" (zh-CN), "12/5/2026" (en). */
export const formatDate = (lang: Lang, moment: Moment): string =>
  formatted(moment, (date) => dateFormat(lang).format(date));

/** "21:40" (zh-CN), "9:40 PM" (en); with seconds "21:40:05" where a minute is too coarse. */
export const formatTime = (lang: Lang, moment: Moment, withSeconds = false): string =>
  formatted(moment, (date) =>
    (withSeconds ? timeWithSecondsFormat(lang) : timeFormat(lang)).format(date),
  );

/** "1,234.5": a chart's figure, at most two decimals, grouped as the language groups them. */
export const formatNumber = (lang: Lang, value: number): string => numberFormat(lang).format(value);
