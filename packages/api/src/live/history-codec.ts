import type { PoolSample } from '@mgpu/shared';
import { z } from 'zod';

/** One sample of the pool history: when, and every pool's figures then. */
export interface HistorySample {
  at: number;
  pools: PoolSample[];
}

/** The leader's ring as every replica reads it (the ConfigMap's content, decoded). */
export interface PublishedHistory {
  /** The replica (its host name, a pod's name) that took the samples. */
  sampledBy?: string;
  /** Since when the history reaches: when sampling began, or the oldest sample kept. */
  startedAt: number;
  intervalMs: number;
  /** Oldest first. */
  samples: HistorySample[];
}

/**
 * A ConfigMap holds at most 1 MiB (etcd's object limit); the rest is left for the metadata and
 * the JSON of the annotation kubectl apply would add.
 */
export const PUBLISHED_HISTORY_MAX_BYTES = 800 * 1024;

/** A pool's figures that every sample has, in their column order. */
const COLUMNS = [
  'computeAllocatedPercent',
  'computeAllocatablePercent',
  'memoryAllocatedMiB',
  'memoryAllocatableMiB',
  'strandedComputePercent',
  'strandedMemoryMiB',
  'largestFitComputePercent',
  'pendingPods',
] as const satisfies readonly (keyof PoolSample)[];

const column = z.array(z.number().nullable());

/**
 * The encoded form: per pool, a column of numbers per figure aligned with `at` (null where the
 * pool had no entry in that sample), so a pool's name and the figures' names are written once,
 * not once per sample — an hour of 10 s samples of a pool is some 20 KiB instead of 120.
 */
const EncodedHistorySchema = z.object({
  v: z.literal(1),
  sampledBy: z.string().optional(),
  startedAt: z.number(),
  intervalMs: z.number(),
  /** Sample times, the first in epoch ms, each next as the step from the one before. */
  at: z.array(z.number()),
  pools: z.array(
    z.object({
      pool: z.string(),
      columns: z.array(column).length(COLUMNS.length),
      /** `computeUsedPercent`, when the samples had it (null: unknown, or no entry). */
      used: column.optional(),
    }),
  ),
});
type EncodedHistory = z.infer<typeof EncodedHistorySchema>;

function encode(history: PublishedHistory): EncodedHistory {
  const { samples } = history;
  const names = [...new Set(samples.flatMap((sample) => sample.pools.map((pool) => pool.pool)))];
  const byPool = samples.map((sample) => new Map(sample.pools.map((pool) => [pool.pool, pool])));
  const pools = names.map((name) => {
    const entries = byPool.map((sample) => sample.get(name));
    const hasUsed = entries.some((entry) => entry !== undefined && 'computeUsedPercent' in entry);
    return {
      pool: name,
      columns: COLUMNS.map((key) => entries.map((entry) => (entry ? entry[key] : null))),
      ...(hasUsed ? { used: entries.map((entry) => entry?.computeUsedPercent ?? null) } : {}),
    };
  });
  return {
    v: 1,
    ...(history.sampledBy !== undefined ? { sampledBy: history.sampledBy } : {}),
    startedAt: history.startedAt,
    intervalMs: history.intervalMs,
    at: samples.map((sample, index) => sample.at - (samples[index - 1]?.at ?? 0)),
    pools,
  };
}

/**
 * The history as the ConfigMap's text, within `maxBytes` (UTF-8): when it does not fit, the
 * oldest samples go first, and `startedAt` becomes the oldest sample kept — the history then
 * reaches back no further than that.
 */
export function encodeHistory(
  history: PublishedHistory,
  maxBytes = PUBLISHED_HISTORY_MAX_BYTES,
): string {
  let kept = history;
  for (;;) {
    const text = JSON.stringify(encode(kept));
    const bytes = Buffer.byteLength(text);
    if (bytes <= maxBytes || kept.samples.length === 0) return text;
    // Samples cost about the same each: drop as many as the excess needs, then measure again.
    const perSample = bytes / kept.samples.length;
    const drop = Math.max(1, Math.ceil((bytes - maxBytes) / perSample));
    const samples = kept.samples.slice(drop);
    kept = { ...kept, samples, startedAt: samples[0]?.at ?? kept.startedAt };
  }
}

/** The ConfigMap's text back into samples; undefined when it is not a history this code wrote. */
export function decodeHistory(text: string): PublishedHistory | undefined {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = EncodedHistorySchema.safeParse(json);
  if (!parsed.success) return undefined;
  const encoded = parsed.data;
  let at = 0;
  const samples = encoded.at.map((step, index): HistorySample => {
    at += step;
    const pools = encoded.pools.flatMap((pool): PoolSample[] => {
      const figures = pool.columns.map((values) => values[index] ?? null);
      // A pool without an entry in this sample (added or removed meanwhile).
      if (figures.some((figure) => figure === null)) return [];
      const sample = Object.fromEntries(
        COLUMNS.map((key, position) => [key, figures[position]]),
      ) as Omit<PoolSample, 'pool' | 'computeUsedPercent'>;
      return [
        {
          pool: pool.pool,
          ...sample,
          ...(pool.used ? { computeUsedPercent: pool.used[index] ?? null } : {}),
        },
      ];
    });
    return { at, pools };
  });
  return {
    ...(encoded.sampledBy !== undefined ? { sampledBy: encoded.sampledBy } : {}),
    startedAt: encoded.startedAt,
    intervalMs: encoded.intervalMs,
    samples,
  };
}
