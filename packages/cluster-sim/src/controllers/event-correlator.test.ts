/**
 * The correlator decides which Event object an occurrence lands on and with which count. The
 * clock is injected only to step over the similar-events window; no time is asserted.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { isDns1123Subdomain } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import { combinedMessage, EventCorrelator, LruCache } from './event-correlator.js';

const podEvent = (pod: string, reason: string, message: string): CoreV1Event => ({
  metadata: { namespace: 'team-a' },
  involvedObject: {
    apiVersion: 'v1',
    kind: 'Pod',
    name: pod,
    namespace: 'team-a',
    uid: `${pod}-uid`,
  },
  type: reason === 'Scheduled' ? 'Normal' : 'Warning',
  reason,
  message,
  source: { component: 'mgpu-scheduler' },
  reportingComponent: 'mgpu-scheduler',
});

describe('EventCorrelator', () => {
  it('makes identical events one Event whose count grows', () => {
    const correlator = new EventCorrelator();
    const results = [1, 2, 3].map(() =>
      correlator.correlate(podEvent('train-0', 'FailedScheduling', '0/8 nodes: no free card')),
    );
    expect(results.map((result) => result.first)).toEqual([true, false, false]);
    expect(results.map((result) => result.event.count)).toEqual([1, 2, 3]);
    expect(new Set(results.map((result) => result.key)).size).toBe(1);
    expect(new Set(results.map((result) => result.event.metadata.name)).size).toBe(1);
    expect(results[0]?.event.metadata.name).toMatch(/^train-0\.[0-9a-f]+$/);
    // Every later occurrence keeps the first one's firstTimestamp, so `kubectl describe` says "x3 over …".
    expect(results[2]?.event.firstTimestamp).toEqual(results[0]?.event.firstTimestamp);
  });

  it('keeps every pod its own Event: outcomes of different pods never combine', () => {
    const correlator = new EventCorrelator({ cacheSize: 100 });
    const results = Array.from({ length: 500 }, (_, index) =>
      correlator.correlate(podEvent(`load-${index}`, 'Scheduled', `assigned to node-${index % 7}`)),
    );
    expect(results.every((result) => result.first && !result.skip)).toBe(true);
    expect(new Set(results.map((result) => result.event.metadata.name)).size).toBe(500);
    expect(results.every((result) => result.event.message?.startsWith('assigned'))).toBe(true);
  });

  it('combines similar events of one pod and reason past the tenth distinct message', () => {
    const correlator = new EventCorrelator();
    const results = Array.from({ length: 14 }, (_, index) =>
      correlator.correlate(podEvent('train-0', 'FailedScheduling', `0/${index} nodes fit`)),
    );
    const separate = results.slice(0, 9);
    const combined = results.slice(9);
    expect(new Set(separate.map((result) => result.key)).size).toBe(9);
    expect(combined.map((result) => result.event.message)).toEqual(
      [9, 10, 11, 12, 13].map((index) => combinedMessage(`0/${index} nodes fit`)),
    );
    expect(new Set(combined.map((result) => result.key)).size).toBe(1);
    expect(combined.map((result) => result.event.count)).toEqual([1, 2, 3, 4, 5]);
    expect(combined.map((result) => result.first)).toEqual([true, false, false, false, false]);
    // Another reason of the same pod is not part of that group.
    const scheduled = correlator.correlate(podEvent('train-0', 'Scheduled', 'assigned to node-1'));
    expect(scheduled.event.message).toBe('assigned to node-1');
    expect(scheduled.first).toBe(true);
  });

  it('starts a fresh group of similar events after the window', () => {
    let now = 0;
    const correlator = new EventCorrelator({ similarIntervalMs: 1000, now: () => now });
    for (let index = 0; index < 9; index++)
      correlator.correlate(podEvent('train-0', 'FailedScheduling', `try ${index}`));
    now += 5000;
    const afterWindow = correlator.correlate(podEvent('train-0', 'FailedScheduling', 'try 9'));
    expect(afterWindow.event.message).toBe('try 9');
  });

  it("holds back an object's repeats past its burst, counted, and never a first event", () => {
    const correlator = new EventCorrelator({ spamBurst: 3 });
    const repeats = Array.from({ length: 6 }, () =>
      correlator.correlate(podEvent('train-0', 'FailedScheduling', 'no free card')),
    );
    expect(repeats.map((result) => result.skip)).toEqual([false, false, false, true, true, true]);
    // The bucket of train-0 is empty, yet its outcome is a new Event and passes.
    const outcome = correlator.correlate(podEvent('train-0', 'Scheduled', 'assigned to node-1'));
    expect(outcome.skip).toBe(false);
    // Held-back repeats were counted: the next write of that Event carries all of them.
    const next = correlator.correlate(podEvent('train-0', 'FailedScheduling', 'no free card'));
    expect(next.event.count).toBe(7);
  });

  it('names the Event of a pod with a 253-character name within the name limit', () => {
    const name = `${'a'.repeat(200)}-${'b'.repeat(51)}1`;
    const { event } = new EventCorrelator().correlate(podEvent(name, 'Scheduled', 'assigned'));
    expect(isDns1123Subdomain(event.metadata.name ?? '')).toBe(true);
  });
});

describe('LruCache', () => {
  it('keeps the most recently used entries within its bound', () => {
    const cache = new LruCache<number>(3);
    for (const [index, key] of ['a', 'b', 'c'].entries()) cache.set(key, index);
    expect(cache.get('a')).toBe(0);
    cache.set('d', 3);
    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect([cache.get('a'), cache.get('c'), cache.get('d')]).toEqual([0, 2, 3]);
  });
});
