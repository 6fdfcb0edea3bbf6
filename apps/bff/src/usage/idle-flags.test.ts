import { describe, expect, it } from 'vitest';
import { idleFlagsOf } from './idle-flags.js';

describe('--idle-threshold and --idle-after', () => {
  it('read the flags, else their variables, else leave the defaults to the console', () => {
    expect(idleFlagsOf({ 'idle-threshold': '10', 'idle-after': '2m' }, {})).toEqual({
      idleThresholdPercent: 10,
      idleAfterSeconds: 120,
    });
    expect(idleFlagsOf({}, { MGPU_IDLE_THRESHOLD: '2.5', MGPU_IDLE_AFTER: '30s' })).toEqual({
      idleThresholdPercent: 2.5,
      idleAfterSeconds: 30,
    });
    expect(idleFlagsOf({}, {})).toEqual({});
  });

  it('read --usage-max-age as a duration, 0 meaning every call reads', () => {
    expect(idleFlagsOf({ 'usage-max-age': '1m' }, {})).toEqual({ maxAgeSeconds: 60 });
    expect(idleFlagsOf({}, { MGPU_USAGE_MAX_AGE: '0' })).toEqual({ maxAgeSeconds: 0 });
    for (const maxAge of ['10', '-1s', 'often'])
      expect(() => idleFlagsOf({ 'usage-max-age': maxAge }, {})).toThrow('--usage-max-age');
  });

  it('refuse a value that is not a percent or a duration, naming the flag', () => {
    for (const threshold of ['0', '101', 'five', ' '])
      expect(() => idleFlagsOf({ 'idle-threshold': threshold }, {})).toThrow('--idle-threshold');
    for (const after of ['30', '1d', '0m', 'soon'])
      expect(() => idleFlagsOf({ 'idle-after': after }, {})).toThrow('--idle-after');
  });

  it('refuse an --idle-after over a day, naming the maximum (its samples are kept that long)', () => {
    expect(idleFlagsOf({ 'idle-after': '24h' }, {})).toEqual({ idleAfterSeconds: 86400 });
    expect(idleFlagsOf({ 'idle-after': '1440m' }, {})).toEqual({ idleAfterSeconds: 86400 });
    for (const after of ['25h', '1441m', '86401s'])
      expect(() => idleFlagsOf({ 'idle-after': after }, {})).toThrow(
        /--idle-after must be at most 24h/,
      );
  });
});
