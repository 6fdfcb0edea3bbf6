import { translator } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import { CATALOGS } from '../../i18n/i18n.js';
import { DASHBOARD_CATALOGS, type DashboardCatalog } from './i18n/dashboard-i18n.js';
import { fitOnCardsText } from './pending-pods.js';

const t = (lang: 'en' | 'zh-CN') =>
  translator<DashboardCatalog>({ ...CATALOGS[lang], ...DASHBOARD_CATALOGS[lang] });

describe('what still fits a pending pod, per card on its own card count', () => {
  it('reads in the singular for one card and in the plural for more, in both languages', () => {
    const free = { computePercent: 60, memoryMiB: 8192 };
    const one = fitOnCardsText(t('en'), 'A100', { cards: 1, ...free });
    expect(one).toContain('on one card');
    expect(one).not.toMatch(/\b1 cards\b|per card/);
    expect(fitOnCardsText(t('en'), 'A100', { cards: 2, ...free })).toContain(
      '60% compute and 8 GiB of memory per card on 2 cards',
    );
    expect(fitOnCardsText(t('zh-CN'), 'A100', { cards: 1, ...free })).toContain(
      '在一张卡上最多还能放下：算力 60%',
    );
    expect(fitOnCardsText(t('zh-CN'), 'A100', { cards: 2, ...free })).toContain(
      '在 2 张卡上最多还能放下：每卡算力 60%',
    );
  });
});
