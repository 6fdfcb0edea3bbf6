/**
 * kube-controller-manager's slow start, shared by every embedded controller that creates pods
 * (the ReplicaSet and Job controllers): a broken template fails one small batch, not all, and
 * a huge count (replicas: 1e9) is created a burst per sync, so the API server it runs beside
 * keeps answering.
 */

/** kube-controller-manager's `BurstReplicas`: at most this many creates or deletes per sync. */
export const BURST_REPLICAS = 500;
/** kube-controller-manager's `SlowStartInitialBatchSize`. */
export const SLOW_START_INITIAL_BATCH_SIZE = 1;

/** The batch sizes slow start tries for `count` calls: 1, 2, 4, … with the last one cut short. */
export function slowStartBatchSizes(count: number, initialBatchSize = 1): number[] {
  const sizes: number[] = [];
  let remaining = count;
  for (let size = Math.min(remaining, initialBatchSize); size > 0; ) {
    sizes.push(size);
    remaining -= size;
    size = Math.min(2 * size, remaining);
  }
  return sizes;
}

/**
 * `slowStartBatch` from the ReplicaSet controller: calls `fn` `count` times in batches of
 * 1, 2, 4, …, stops after the first batch with a failure, and returns how many calls succeeded
 * (and the first error). Between batches it yields to the event loop so the API server it runs
 * next to keeps answering; `stopped` ends it early once the controller stops.
 */
export async function slowStartBatch(
  count: number,
  initialBatchSize: number,
  fn: () => Promise<void>,
  stopped: () => boolean = () => false,
): Promise<{ successes: number; error?: unknown }> {
  let successes = 0;
  for (const size of slowStartBatchSizes(count, initialBatchSize)) {
    if (stopped()) break;
    const results = await Promise.allSettled(Array.from({ length: size }, fn));
    successes += results.filter((result) => result.status === 'fulfilled').length;
    const failed = results.find((result) => result.status === 'rejected');
    if (failed) return { successes, error: failed.reason };
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return { successes };
}

/**
 * One sync's share of `missing` pod creates: at most BURST_REPLICAS of them in slow-start
 * batches. Throws the first failure; resolves true when creates remain for another sync (the
 * caller requeues its key, so other keys get a turn in between).
 */
export async function createBurst(
  missing: number,
  createOne: () => Promise<void>,
  stopped: () => boolean,
): Promise<boolean> {
  const { error } = await slowStartBatch(
    Math.min(missing, BURST_REPLICAS),
    SLOW_START_INITIAL_BATCH_SIZE,
    createOne,
    stopped,
  );
  if (error !== undefined) throw error;
  return missing > BURST_REPLICAS && !stopped();
}
