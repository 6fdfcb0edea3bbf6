import type { Lang } from '@mgpu/shared';

/**
 * Dates, times and plain numbers in the UI language, through `Intl`: zh-CN reads
 * "2026/12/5 21:40", en "12/5/2026, 9:40 PM". Every page that prints a moment or a chart figure
 * goes through here, so no page falls back to the browser's own locale. Shares and sizes with
 * their units stay in `features/allocations/format.ts`.
 */

/** A moment as the API sends it (ISO text), as `Date.parse` gives it (ms), or a `Date`. */
type Moment = string | number | Date;

/** Four-digit years and numeric months read alike in both languages, never "12/5/26". */
const DATE = { year: 'numeric', month: 'numeric', day: 'numeric' } as const;
const TIME = { hour: 'numeric', minute: '2-digit' } as const;
/** The shapes a moment is printed in; `withSeconds` adds seconds where samples are closer. */
const SHAPES = {
  dateTime: { ...DATE, ...TIME },
  date: DATE,
  time: TIME,
} satisfies Record<string, Intl.DateTimeFormatOptions>;
type Shape = keyof typeof SHAPES;

/** One formatter per language and shape: building an `Intl` formatter is the costly part. */
const dateTimeFormats = new Map<string, Intl.DateTimeFormat>();
function dateTimeFormat(lang: Lang, shape: Shape, withSeconds = false): Intl.DateTimeFormat {
  const key = `${lang} ${shape} ${withSeconds}`;
  let format = dateTimeFormats.get(key);
  if (format === undefined) {
    format = new Intl.DateTimeFormat(lang, {
      ...SHAPES[shape],
      ...(withSeconds ? { second: '2-digit' } : {}),
    });
    dateTimeFormats.set(key, format);
  }
  return format;
}
const numberFormats = new Map<Lang, Intl.NumberFormat>();
function numberFormat(lang: Lang): Intl.NumberFormat {
  let format = numberFormats.get(lang);
  if (format === undefined) {
    format = new Intl.NumberFormat(lang, { maximumFractionDigits: 2 });
    numberFormats.set(lang, format);
  }
  return format;
}

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
  formatted(moment, (date) => dateTimeFormat(lang, 'dateTime', withSeconds).format(date));

/** "2026/12/5" (zh-CN), "12/5/2026" (en). */
export const formatDate = (lang: Lang, moment: Moment): string =>
  formatted(moment, (date) => dateTimeFormat(lang, 'date').format(date));

/** "21:40" (zh-CN), "9:40 PM" (en); with seconds "21:40:05" where a minute is too coarse. */
export const formatTime = (lang: Lang, moment: Moment, withSeconds = false): string =>
  formatted(moment, (date) => dateTimeFormat(lang, 'time', withSeconds).format(date));

/** "1,234.5": a chart's figure, at most two decimals, grouped as the language groups them. */
export const formatNumber = (lang: Lang, value: number): string => numberFormat(lang).format(value);
