import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatNumber, formatTime } from './format.js';

/** 5 December 2026, 21:40:05 on the reader's own clock, as the console shows it. */
const EVENING = new Date(2026, 11, 5, 21, 40, 5);

describe('dates and times in the UI language', () => {
  it('reads as zh-CN in the Chinese UI: year first, a 24-hour clock', () => {
    expect(formatDateTime('zh-CN', EVENING)).toBe('2026/12/5 21:40');
    expect(formatDateTime('zh-CN', EVENING, true)).toBe('2026/12/5 21:40:05');
    expect(formatDate('zh-CN', EVENING)).toBe('2026/12/5');
    expect(formatTime('zh-CN', EVENING)).toBe('21:40');
  });

  it('reads as en in the English UI, never with a two-digit year', () => {
    expect(formatDateTime('en', EVENING)).toMatch(/^12\/5\/2026, 9:40\sPM$/);
    expect(formatTime('en', EVENING, true)).toMatch(/^9:40:05\sPM$/);
  });

  it('takes the API’s ISO text and milliseconds alike', () => {
    expect(formatDateTime('zh-CN', EVENING.toISOString())).toBe('2026/12/5 21:40');
    expect(formatDateTime('zh-CN', EVENING.getTime())).toBe('2026/12/5 21:40');
  });

  it('shows a moment that is not a date as it came, not as "Invalid Date"', () => {
    expect(formatDateTime('en', 'not-a-date')).toBe('not-a-date');
  });
});

describe('chart figures in the UI language', () => {
  it('groups thousands and keeps at most two decimals', () => {
    expect(formatNumber('en', 1234.567)).toBe('1,234.57');
    expect(formatNumber('zh-CN', 0.5)).toBe('0.5');
  });
});
