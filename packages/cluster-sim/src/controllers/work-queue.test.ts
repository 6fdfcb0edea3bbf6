import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.js';

describe('WorkQueue', () => {
  it('runs a key once however often it is added while waiting', async () => {
    const runs: string[] = [];
    const queue = new WorkQueue(
      async (key) => {
        runs.push(key);
      },
      { workers: 1 },
    );
    queue.add('busy');
    // The only worker is busy: these wait, and a waiting key is queued once.
    queue.add('a');
    queue.add('a');
    queue.add('b');
    queue.add('a');
    await queue.idle();
    expect(runs).toEqual(['busy', 'a', 'b']);
  });

  it('never runs one key twice at once, and runs it again when added meanwhile', async () => {
    let active = 0;
    let most = 0;
    let runs = 0;
    const queue = new WorkQueue(
      async () => {
        active += 1;
        most = Math.max(most, active);
        runs += 1;
        if (runs === 1) queue.add('a');
        await new Promise((resolve) => setTimeout(resolve, 5));
        active -= 1;
      },
      { workers: 4 },
    );
    queue.add('a');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await queue.idle();
    expect(most).toBe(1);
    expect(runs).toBe(2);
  });

  it('retries a failing key with backoff until it succeeds', async () => {
    let attempts = 0;
    const errors: string[] = [];
    const queue = new WorkQueue(
      async () => {
        attempts += 1;
        if (attempts < 3) throw new Error(`attempt ${attempts}`);
      },
      { baseDelayMs: 1, onError: (_key, error) => errors.push(String(error)) },
    );
    queue.add('a');
    for (let i = 0; i < 100 && attempts < 3; i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(attempts).toBe(3);
    expect(errors).toHaveLength(2);
    queue.stop();
  });
});
