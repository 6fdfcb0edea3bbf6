/**
 * One whole-cluster usage read shared by every caller (`--usage-max-age`): operators polling the
 * same page at once cost the source one read, a read answers until it is older than the max age
 * (then while the next one runs, up to `STALE_FACTOR` times that), and a source that says when its
 * figures change is read again exactly then. The source here is a counted read of fixed
 * readings and the clock a number the test moves: what is shared is the point, not the figures.
 */
import { SharedUsageReads, STALE_FACTOR } from '@mgpu/api';
import type { UsageReadings } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';

const MAX_AGE_MS = 10_000;

function readingsNumbered(read: number): UsageReadings {
  return {
    source: 'prometheus',
    simulated: false,
    failed: read % 2 === 0,
    instances: new Map([
      [`default/pod/worker/${read}`, { meanPercent: read, quietSeconds: 0, memoryUsedMiB: null }],
    ]),
    cards: new Map(),
  };
}

/** A source whose reads the test counts and finishes; readings say which read they came from. */
function countedReads(options: { maxAgeMs?: number; version?: () => unknown } = {}) {
  let clock = 0;
  const pending: (() => void)[] = [];
  const state = {
    reads: 0,
    clock: (ms: number) => {
      clock = ms;
    },
    finish: () => {},
  };
  const shared = new SharedUsageReads({
    source: options.version ? { version: options.version } : {},
    maxAgeMs: options.maxAgeMs ?? MAX_AGE_MS,
    now: () => clock,
    read: () => {
      const read = ++state.reads;
      return new Promise((resolve) => pending.push(() => resolve(readingsNumbered(read))));
    },
  });
  state.finish = () => {
    for (const done of pending.splice(0)) done();
  };
  return { shared, state };
}

const readNumber = (readings: UsageReadings) =>
  readings.instances.values().next().value?.meanPercent;

describe('usage reads shared by every caller', () => {
  it('ten callers at once cost the source one read, and all get its figures', async () => {
    const { shared, state } = countedReads();
    const answers = Array.from({ length: 10 }, () => shared.read(600));
    state.finish();
    const readings = await Promise.all(answers);
    expect(state.reads).toBe(1);
    expect(new Set(readings.map(readNumber))).toEqual(new Set([1]));
    // Another window is another read: its figures are another mean.
    const other = shared.read(3600);
    state.finish();
    expect(readNumber(await other)).toBe(2);
    expect(state.reads).toBe(2);
  });

  it('a read answers until the max age, then while the next runs, then callers wait', async () => {
    const { shared, state } = countedReads();
    const first = shared.read(600);
    state.finish();
    await first;
    state.clock(MAX_AGE_MS - 1);
    expect(readNumber(await shared.read(600))).toBe(1);
    expect(state.reads).toBe(1);
    // Past the max age: the last figures at once, and one new read for everybody after.
    state.clock(MAX_AGE_MS + 1);
    expect(readNumber(await shared.read(600))).toBe(1);
    expect(readNumber(await shared.read(600))).toBe(1);
    expect(state.reads).toBe(2);
    state.finish();
    await Promise.resolve();
    expect(readNumber(await shared.read(600))).toBe(2);
    // Long unread: nobody gets figures that old; the caller waits for a new read.
    state.clock(MAX_AGE_MS + 1 + MAX_AGE_MS * STALE_FACTOR);
    const waited = shared.read(600);
    state.finish();
    expect(readNumber(await waited)).toBe(3);
  });

  it('a failed read is shared too: a Prometheus that is down is not asked by every caller', async () => {
    const { shared, state } = countedReads();
    const reads = [shared.read(600), shared.read(600)];
    state.finish();
    await Promise.all(reads);
    const again = shared.read(600);
    state.finish();
    expect((await again).failed).toBe(false);
    expect(state.reads).toBe(1);
    state.clock(MAX_AGE_MS * (STALE_FACTOR + 1));
    const later = shared.read(600);
    state.finish();
    // The second read of this source fails: the caller gets the failure, the figures unknown.
    expect((await later).failed).toBe(true);
  });

  it('with max age 0 each call that finds no read running reads', async () => {
    const { shared, state } = countedReads({ maxAgeMs: 0 });
    for (const expected of [1, 2, 3]) {
      const read = shared.read(600);
      state.finish();
      expect(readNumber(await read)).toBe(expected);
    }
  });

  it('a source with versions is read again exactly when its version changes, whatever the age', async () => {
    let version = 1;
    const { shared, state } = countedReads({ version: () => version });
    const first = shared.read(600);
    state.finish();
    await first;
    state.clock(MAX_AGE_MS * STALE_FACTOR * 10);
    expect(readNumber(await shared.read(600))).toBe(1);
    version = 2;
    const fresh = shared.read(600);
    state.finish();
    // A new sample: the caller waits for figures that include it, never the older ones.
    expect(readNumber(await fresh)).toBe(2);
    expect(state.reads).toBe(2);
  });
});
