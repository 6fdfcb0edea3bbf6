import { expect, test } from '@playwright/test';
import { axeViolations, LANGS, useLanguage } from '../support/screens.js';

/**
 * Dates in the operator's language (issue 29): the pool history says when it starts and lists
 * its samples as a table (the charts' text alternative) with zh-CN dates in the Chinese UI —
 * `2026/12/5 21:40`, never the US "12/5/26 9:40 PM" — and en dates in the English one.
 */
const WORDS = {
  'zh-CN': {
    history: '资源池历史',
    chart: '算力已分配（占资源池的 %）',
    asTable: '以表格查看这些数字',
    legend: '资源池（线条颜色与线型）',
    since: /^历史从 \d{4}\/\d{1,2}\/\d{1,2} \d{1,2}:\d{2} 开始/,
    sample: /^\d{4}\/\d{1,2}\/\d{1,2} \d{1,2}:\d{2}:\d{2}$/,
  },
  en: {
    history: 'Pool history',
    chart: 'Compute allocated (% of the pool)',
    asTable: 'Figures as a table',
    legend: 'Pools (line colour and dash)',
    since: /^History since \d{1,2}\/\d{1,2}\/\d{4}, \d{1,2}:\d{2}\s[AP]M:/,
    sample: /^\d{1,2}\/\d{1,2}\/\d{4}, \d{1,2}:\d{2}:\d{2}\s[AP]M$/,
  },
} as const;

test('the pool history dates its samples in the UI language, and its table reads', async ({
  page,
}) => {
  for (const lang of LANGS) {
    const words = WORDS[lang];
    await useLanguage(page, lang);
    await page.goto('/allocations');
    const history = page.getByRole('region', { name: words.history });
    // The console samples every 10 s: the first sample may still be on its way.
    await expect(history.getByTestId('history-since')).toHaveText(words.since, {
      timeout: 30_000,
    });
    const chart = history.getByRole('figure', { name: words.chart });
    await chart.getByText(words.asTable).click();
    const table = chart.getByRole('table', { name: words.chart });
    const firstSample = table.getByRole('rowheader').first();
    await expect(firstSample).toHaveText(words.sample);
    // A column per pool of the legend, beside the time.
    await expect(table.getByRole('columnheader')).toHaveCount(
      1 + (await history.getByRole('list', { name: words.legend }).getByRole('listitem').count()),
    );
    expect(await axeViolations(page, '[data-testid="pool-history"]')).toEqual([]);
  }
});
