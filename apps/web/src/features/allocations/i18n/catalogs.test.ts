import { describe, expect, it } from 'vitest';
import { allocationsEn } from './en.js';
import { allocationsZhCN } from './zh-cn.js';

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the dashboard catalogs', () => {
  it('have the same keys in zh-CN and en, every one translated with the same placeholders', () => {
    expect(Object.keys(allocationsEn).sort()).toEqual(Object.keys(allocationsZhCN).sort());
    for (const key of Object.keys(allocationsZhCN) as (keyof typeof allocationsZhCN)[]) {
      expect(allocationsZhCN[key].trim(), key).not.toBe('');
      expect(allocationsEn[key].trim(), key).not.toBe('');
      expect(placeholders(allocationsEn[key]), key).toEqual(placeholders(allocationsZhCN[key]));
    }
  });
});
