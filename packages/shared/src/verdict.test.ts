import { describe, expect, it } from 'vitest';
import { requestVerdict } from './verdict.js';

const valid = { valid: true, errors: [] };
const refusal = {
  group: 'A100 · native-burst-share',
  reason: 'Insufficient',
  code: 'fragmented' as const,
  params: {},
  message: 'no combination of cards has room',
};
const fits = (replica: number) => ({ replica, ok: true, rejections: [] });
const refused = (replica: number) => ({ replica, ok: false, rejections: [refusal] });

describe('requestVerdict: one verdict from the rules and the placement', () => {
  it('is invalid when a rule fails, naming each failing rule once, whatever the placement', () => {
    const verdict = requestVerdict({
      check: {
        valid: false,
        errors: [{ rule: 'per-card-compute-precision' }, { rule: 'per-card-compute-precision' }],
      },
      wanted: 2,
      placement: [fits(0), fits(1)],
    });
    expect(verdict).toEqual({ verdict: 'invalid', rules: ['per-card-compute-precision'] });
  });

  it('is placeable when every replica fits a node now', () => {
    expect(requestVerdict({ check: valid, wanted: 2, placement: [fits(0), fits(1)] })).toEqual({
      verdict: 'placeable',
      replicas: 2,
    });
  });

  it('is waiting from the first replica no node takes, with every later one and its reasons', () => {
    const verdict = requestVerdict({ check: valid, wanted: 4, placement: [fits(0), refused(1)] });
    expect(verdict).toEqual({
      verdict: 'waiting',
      replicas: 4,
      firstWaiting: 2,
      waitingCount: 3,
      rejections: [refusal],
    });
  });

  it('counts a scale’s added replicas on from the running ones', () => {
    // Two running; scaling to 5 adds replicas 3, 4 and 5, of which the fourth finds no node.
    const verdict = requestVerdict({
      check: valid,
      wanted: 3,
      firstReplica: 2,
      placement: [fits(2), refused(3)],
    });
    expect(verdict).toMatchObject({ verdict: 'waiting', firstWaiting: 4, waitingCount: 2 });
  });

  it('is placeable when a scale adds nothing (down, or to the same count)', () => {
    expect(requestVerdict({ check: valid, wanted: 0, firstReplica: 3, placement: [] })).toEqual({
      verdict: 'placeable',
      replicas: 0,
    });
  });
});
