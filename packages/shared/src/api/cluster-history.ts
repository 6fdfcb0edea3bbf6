import { z } from 'zod';
import { UsageSourceKindSchema } from './usage-workloads.js';

/** One pool's figures at one sample of the history (issue 18): what the dashboard charts. */
export const PoolSampleSchema = z.object({
  pool: z.string(),
  computeAllocatedPercent: z.number(),
  computeAllocatablePercent: z.number(),
  /**
   * Used beside allocated (issue 28): Σ of the pool's cards' own utilisation, 100 a card, from
   * the usage source (Prometheus when configured, else the embedded cluster's exporter); null or
   * absent when unknown (no source, or a card without a reading), never 0 for unknown.
   */
  computeUsedPercent: z.number().nullable().optional(),
  memoryAllocatedMiB: z.number(),
  memoryAllocatableMiB: z.number(),
  strandedComputePercent: z.number(),
  strandedMemoryMiB: z.number(),
  largestFitComputePercent: z.number(),
  pendingPods: z.number(),
});

/**
 * `cluster.history` (no input, `NoInputSchema`): per-pool figures sampled every `intervalMs`,
 * the newest last, kept for `retentionMs`. `startedAt` is since when the history reaches: when
 * sampling began, or the oldest sample kept when the published copy had to drop older ones.
 */
export const ClusterHistorySchema = z.object({
  startedAt: z.string(),
  intervalMs: z.number(),
  retentionMs: z.number(),
  samples: z.array(z.object({ at: z.string(), pools: z.array(PoolSampleSchema) })),
  /**
   * The replica (its pod) that sampled, when the history is kept in the cluster (issue 30): the
   * leader publishes it to a ConfigMap, so a restart or a rolling upgrade keeps it. Absent: the
   * history is this BFF's memory only, and a restart empties it.
   */
  sampledBy: z.string().optional(),
  /**
   * Used compute from before `startedAt` (issue 28), read from Prometheus's range query when it
   * is the usage source, oldest first, within the retention; absent from a source without
   * history. Each pool's figure as `computeUsedPercent` (null: unknown, never 0), beside what
   * the pool has now (`computeAllocatablePercent`); allocation before the start is unknown.
   */
  usedBefore: z
    .array(
      z.object({
        at: z.string(),
        pools: z.array(
          PoolSampleSchema.pick({ pool: true, computeAllocatablePercent: true }).extend({
            computeUsedPercent: z.number().nullable(),
          }),
        ),
      }),
    )
    .optional(),
  /**
   * Where the used compute comes from (issue 28): the usage source's kind, and whether its
   * figures are simulated (the embedded cluster's model, read in-process or through a Prometheus
   * whose series say so), so the chart is labelled as the usage pages are; `unavailable`: no
   * used compute at all.
   */
  usage: z.object({ source: UsageSourceKindSchema, simulated: z.boolean() }),
  /**
   * Where the samples come from (issue 30): `prometheus` — the console's own `/metrics` series
   * as Prometheus kept them (`--prometheus-url`, scraping `--metrics-port`), `startedAt` then its
   * first point and `intervalMs` the points' step; `console` — the console's own history, kept
   * in memory since `startedAt`. Absent from a console before issue 30: `console`.
   */
  source: z.enum(['prometheus', 'console']).optional(),
});

export type PoolSample = z.infer<typeof PoolSampleSchema>;
export type ClusterHistory = z.infer<typeof ClusterHistorySchema>;
export type PoolUsedBefore = NonNullable<ClusterHistory['usedBefore']>[number];
