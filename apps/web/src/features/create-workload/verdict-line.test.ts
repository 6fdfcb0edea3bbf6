import { describe, expect, it } from 'vitest';
import { uiTranslator } from '../../i18n/i18n.js';
import { verdictSentence } from './verdict-line.js';

const t = uiTranslator('en');
const READY = 'Ready to create';

describe('verdictSentence', () => {
  it('says the check is under way only while it may still answer', () => {
    expect(verdictSentence(t, undefined, READY)).toBe(t('verdict.checking'));
  });

  it('says the check failed instead of checking forever when the preview errs', () => {
    const words = verdictSentence(t, undefined, READY, true);
    expect(words).toBe(t('verdict.unchecked'));
    expect(words).toContain('Could not check');
    expect(uiTranslator('zh-CN')('verdict.unchecked')).toContain('无法确认');
  });

  it('never calls an invalid request ready', () => {
    const words = verdictSentence(t, { verdict: 'invalid', rules: ['quota-exceeded'] }, READY);
    expect(words).not.toBe(READY);
    expect(words).toBe(t('verdict.invalid'));
  });

  it('names the waiting replicas, and is ready only when every replica is placed', () => {
    expect(verdictSentence(t, { verdict: 'placeable', replicas: 2 }, READY)).toBe(READY);
    const waiting = verdictSentence(
      t,
      { verdict: 'waiting', replicas: 3, firstWaiting: 2, waitingCount: 2, rejections: [] },
      READY,
    );
    expect(waiting).toContain('replicas 2–3');
  });
});
