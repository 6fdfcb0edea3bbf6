import { describe, expect, it } from 'vitest';
import { Controller } from './controller.js';
import { ItemExponentialBackoff, MaxOfRateLimiters, OverallRateLimit } from './work-queue.js';

/** A cache whose first list completes when the test says so. */
function listingCache() {
  let finish: () => void = () => undefined;
  let stops = 0;
  const cache = {
    stop: async () => {
      stops += 1;
    },
    stops: () => stops,
  };
  const listed = new Promise<typeof cache>((resolve) => {
    finish = () => resolve(cache);
  });
  return { listed, finish: () => finish(), cache };
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('Controller', () => {
  it('reconciles nothing until every informer has listed, then each queued key once', async () => {
    const controller = new Controller('test', { workers: 2 });
    const pods = listingCache();
    const nodes = listingCache();
    const reconciled: string[] = [];
    const podsSynced = controller.informer(pods.listed);
    const nodesSynced = controller.informer(nodes.listed);
    // The informers' handlers queue keys while they list.
    controller.add('default/a');
    controller.add('default/b');
    controller.add('default/a');
    const running = controller.run(async (key) => void reconciled.push(key));
    pods.finish();
    await podsSynced;
    await turn();
    expect(reconciled).toEqual([]);
    nodes.finish();
    await nodesSynced;
    await running;
    await controller.idle();
    expect(reconciled).toEqual(['default/a', 'default/b']);
    await controller.stop();
    expect(pods.cache.stops()).toBe(1);
    expect(nodes.cache.stops()).toBe(1);
  });

  it('retries a failing key with backoff and forgets it once it succeeds', async () => {
    const errors: string[] = [];
    const backoff = new ItemExponentialBackoff(1, 1000);
    const controller = new Controller('test', {
      workers: 1,
      rateLimiter: backoff,
      log: (message) => errors.push(message),
    });
    let attempts = 0;
    await controller.run(async () => {
      attempts += 1;
      if (attempts < 3) throw new Error(`attempt ${attempts}`);
    });
    controller.add('default/a');
    for (let i = 0; i < 100 && attempts < 3; i++) await turn();
    await controller.idle();
    expect(attempts).toBe(3);
    expect(errors).toEqual([
      'test: default/a: Error: attempt 1',
      'test: default/a: Error: attempt 2',
    ]);
    // Forgotten on success: the next failure starts the backoff afresh.
    expect(backoff.retries('default/a')).toBe(0);
    await controller.stop();
  });

  it('stops its workers and informers; keys queued afterwards are dropped', async () => {
    const controller = new Controller('test', { workers: 1 });
    const pods = listingCache();
    pods.finish();
    await controller.informer(pods.listed);
    const reconciled: string[] = [];
    await controller.run(async (key) => void reconciled.push(key));
    await controller.stop();
    controller.add('default/late');
    await turn();
    expect(reconciled).toEqual([]);
    expect(pods.cache.stops()).toBe(1);
  });
});

describe('rate limiters', () => {
  it('doubles a key’s delay per failure up to the cap, per key', () => {
    const backoff = new ItemExponentialBackoff(5, 30);
    expect([1, 2, 3, 4, 5].map(() => backoff.when('a'))).toEqual([5, 10, 20, 30, 30]);
    expect(backoff.when('b')).toBe(5);
    expect(backoff.retries('a')).toBe(5);
    backoff.forget('a');
    expect(backoff.when('a')).toBe(5);
  });

  it('lets a burst through at once, then spaces retries at the overall rate', () => {
    let now = 0;
    const bucket = new OverallRateLimit(10, 3, () => now);
    expect([1, 2, 3].map(() => bucket.when())).toEqual([0, 0, 0]);
    expect(bucket.when()).toBe(100);
    expect(bucket.when()).toBe(200);
    now = 1000;
    // A second refills 10 tokens, of which the two reserved ahead are owed: the bucket is full.
    expect(bucket.when()).toBe(0);
  });

  it('waits as long as the strictest limiter says', () => {
    const now = 0;
    const limiter = new MaxOfRateLimiters(
      new ItemExponentialBackoff(5, 1000),
      new OverallRateLimit(10, 1, () => now),
    );
    expect(limiter.when('a')).toBe(5);
    expect(limiter.when('b')).toBe(100);
    expect(limiter.retries('a')).toBe(1);
  });
});
