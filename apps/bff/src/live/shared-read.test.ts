/**
 * `SharedRead`, the one value many callers read (usage, the Prometheus pool history, a follower's
 * published history): callers during a read share it, a failed read keeps the last value and
 * never ends the process, and a value aged from the end of a slow read answers after it. The
 * clock is a number the test moves and the reads are finished by hand: what is shared is the point.
 */
import { SharedRead } from '@mgpu/api';
import { describe, expect, it } from 'vitest';

/** Reads the test finishes (`resolve`/`reject`), counted, each named by its number. */
function handReads() {
  const reads: { resolve: (value: string) => void; reject: (error: Error) => void }[] = [];
  let clock = 0;
  return {
    reads,
    now: () => clock,
    at: (ms: number) => {
      clock = ms;
    },
    read: () =>
      new Promise<string>((resolve, reject) => {
        reads.push({ resolve, reject });
      }),
  };
}

describe('SharedRead', () => {
  it('gives callers during a read that one read, and the value until it is older than the max age', async () => {
    const hand = handReads();
    const shared = new SharedRead<string>({
      read: hand.read,
      maxAgeMs: 100,
      staleFactor: 1,
      now: hand.now,
    });
    const first = shared.get();
    const second = shared.get();
    expect(hand.reads).toHaveLength(1);
    hand.reads[0]?.resolve('one');
    expect(await Promise.all([first, second])).toEqual(['one', 'one']);
    hand.at(99);
    expect(await shared.get()).toBe('one');
    expect(hand.reads).toHaveLength(1);
    hand.at(100);
    const third = shared.get();
    expect(hand.reads).toHaveLength(2);
    hand.reads[1]?.resolve('two');
    expect(await third).toBe('two');
  });

  it('serves the last value while the next read runs, up to staleFactor times the max age', async () => {
    const hand = handReads();
    const shared = new SharedRead<string>({
      read: hand.read,
      maxAgeMs: 100,
      staleFactor: 3,
      now: hand.now,
    });
    const first = shared.get();
    hand.reads[0]?.resolve('one');
    await first;
    hand.at(250);
    expect(await shared.get()).toBe('one');
    expect(hand.reads).toHaveLength(2);
    hand.at(300);
    // Too old now: this caller waits for the read under way.
    const waiting = shared.get();
    expect(hand.reads).toHaveLength(2);
    hand.reads[1]?.resolve('two');
    expect(await waiting).toBe('two');
  });

  it('passes a failed read to the callers waiting for it, and lets the next call read again', async () => {
    const hand = handReads();
    const shared = new SharedRead<string>({
      read: hand.read,
      maxAgeMs: 100,
      staleFactor: 1,
      now: hand.now,
    });
    const first = shared.get();
    hand.reads[0]?.reject(new Error('refused'));
    await expect(first).rejects.toThrow('refused');
    const second = shared.get();
    expect(hand.reads).toHaveLength(2);
    hand.reads[1]?.resolve('two');
    expect(await second).toBe('two');
  });

  it('drops a failed read nobody waits for, keeping the last value (no unhandled rejection)', async () => {
    const hand = handReads();
    const shared = new SharedRead<string>({
      read: hand.read,
      maxAgeMs: 100,
      staleFactor: 3,
      now: hand.now,
    });
    const first = shared.get();
    hand.reads[0]?.resolve('one');
    await first;
    hand.at(150);
    expect(await shared.get()).toBe('one');
    hand.reads[1]?.reject(new Error('timed out'));
    // Vitest fails the run on an unhandled rejection; give it the turns to surface one.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(shared.last()).toBe('one');
    hand.at(160);
    expect(await shared.get()).toBe('one');
    expect(hand.reads).toHaveLength(3);
  });

  it('ages a value from the end of its read when asked: a slow read still answers after it', async () => {
    const hand = handReads();
    const shared = new SharedRead<string>({
      read: hand.read,
      maxAgeMs: 100,
      staleFactor: 1,
      agedFromEnd: true,
      now: hand.now,
    });
    const first = shared.get();
    // The read takes longer than the max age (a timeout).
    hand.at(250);
    hand.reads[0]?.resolve('slow');
    expect(await first).toBe('slow');
    hand.at(340);
    expect(await shared.get()).toBe('slow');
    expect(hand.reads).toHaveLength(1);
  });

  it('is fresh exactly while the source version holds, however old', async () => {
    const hand = handReads();
    let version = 1;
    const shared = new SharedRead<string>({
      read: hand.read,
      maxAgeMs: 100,
      staleFactor: 6,
      version: () => version,
      now: hand.now,
    });
    const first = shared.get();
    hand.reads[0]?.resolve('v1');
    await first;
    hand.at(10_000);
    expect(await shared.get()).toBe('v1');
    version = 2;
    // A new version: never the old value, even within staleFactor.
    const next = shared.get();
    hand.reads[1]?.resolve('v2');
    expect(await next).toBe('v2');
  });
});
