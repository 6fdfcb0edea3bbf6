import { describe, expect, it } from 'vitest';
import { en } from './en.js';
import { zhCN } from './zh-cn.js';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('UI catalogs', () => {
  it('have the same keys in zh-CN and en', () => {
    expect(Object.keys(en).sort()).toEqual(Object.keys(zhCN).sort());
  });

  it('translate every key (no empty strings) with the same placeholders', () => {
    for (const key of Object.keys(zhCN) as (keyof typeof zhCN)[]) {
      expect(zhCN[key].trim(), key).not.toBe('');
      expect(en[key].trim(), key).not.toBe('');
      expect(placeholders(en[key]), key).toEqual(placeholders(zhCN[key]));
    }
  });
});
