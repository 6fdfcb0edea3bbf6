/**
 * Where the console reads GPU usage (issue 28, design §2): one interface, three kinds —
 * Prometheus's HTTP API (`prometheus-source.ts`), the embedded cluster's exporter read in-process
 * (`exporter-source.ts`), or none (`unavailableUsageSource`). The procedures join what a source
 * returns with the allocation records; the verdicts (efficiency, idle) are computed once in
 * `@mgpu/shared` (`packages/shared/src/usage/`), never by a source.
 */
import { allocationRecordId, type UsageSourceKind } from '@mgpu/shared';

/** What the procedures ask a source for: one call per figure for the whole cluster. */
export interface UsageQuery {
  /** The mean is taken over the last this many seconds (`windowMinutes` × 60). */
  windowSeconds: number;
  /** `--idle-threshold`, percent: quiet means under it. */
  idleThresholdPercent: number;
  /** `--idle-after`, seconds: the source looks back at least this far for `quietSeconds`. */
  idleAfterSeconds: number;
}

/** A utilisation series over the query's window; every figure null when there is no sample. */
export interface UtilizationFigures {
  /** Mean utilisation over the window, percent (0–100), or null with no sample in it. */
  meanPercent: number | null;
  /** Time between the oldest and newest samples the mean was taken from (0 with one or none). */
  sampledSeconds: number;
  /**
   * How long, up to its newest sample, the series stayed under the idle threshold (the one
   * comparison, `quietSecondsOf` in `@mgpu/shared`), looking back
   * at most max(window, idle-after) (and only as far as the source holds samples); 0 when the
   * newest sample is at or over it; null with no sample. A source may give a lower bound at a
   * coarser granularity (Prometheus: idle-after, the window and the look back), never more than
   * it saw: `quietSeconds >= idle-after` stays exact, the GPU-hours held idle may read low.
   */
  quietSeconds: number | null;
}

/** Where a card sits: node name (the exporter's `Hostname`) and card index (`gpu`). */
export interface CardKey {
  node: string;
  card: number;
}

/**
 * One instance (a container's share of one card): its allocation record's id is
 * `<namespace>/<pod>/<container>/<card>`, and `node` tells the card apart across nodes.
 */
export interface InstanceUsage extends CardKey {
  namespace: string;
  pod: string;
  container: string;
  /** Percent of the instance's OWN allocated compute it uses (an annotation of 80 → ~80). */
  utilization: UtilizationFigures;
  /** MiB used, mean over the window (≤ its memory limit); null when the source has none. */
  memoryUsedMiB: number | null;
}

/** One card's own series (dcgm-exporter): the whole card's figures, whoever shares it. */
export interface CardUsage extends CardKey {
  uuid: string | null;
  model: string | null;
  /** Percent of the whole card (DCGM_FI_PROF_GR_ENGINE_ACTIVE × 100, else DCGM_FI_DEV_GPU_UTIL). */
  utilization: UtilizationFigures;
  memoryUsedMiB: number | null;
  memoryFreeMiB: number | null;
}

/** Where a range read starts and ends and how far apart its points are (ms since the epoch). */
export interface UsageRange {
  startMs: number;
  endMs: number;
  stepMs: number;
}

/** One point of a range read: every card's own utilisation (percent) then, by `cardKey`. */
export interface CardUtilizationAt {
  at: number;
  percentByCard: ReadonlyMap<string, number>;
}

export interface UsageSource {
  readonly kind: UsageSourceKind;
  /** True when the figures are the embedded cluster's model (labelled as such in the UI). */
  readonly simulated: boolean;
  /** Every instance's figures in the cluster, in one batched read (never one per card). */
  instanceUsage(query: UsageQuery): Promise<InstanceUsage[]>;
  /** Every card's figures in the cluster, in one batched read. */
  cardUsage(query: UsageQuery): Promise<CardUsage[]>;
  /**
   * Every card's own mean utilisation (percent) over the last `windowSeconds`, by `cardKey`, and
   * nothing else (no idle look back, no memory): the pool history's read, every 10 s, costs one
   * query, not the whole `cardUsage`.
   */
  cardMeanUtilization(windowSeconds: number): Promise<ReadonlyMap<string, number>>;
  /**
   * Every card's own utilisation at each step of a past range, in one batched read, oldest
   * first; only a source that keeps history has it (Prometheus), so the pool history's used
   * compute reaches back before the console started.
   */
  cardUtilizationRange?(range: UsageRange): Promise<CardUtilizationAt[]>;
  /**
   * Changes exactly when the source's figures do (the embedded exporter's newest sample), so a
   * read can be shared until then; a source without it (Prometheus) is read again by age.
   */
  version?(): unknown;
  /** Stops any timer or connection the source keeps. */
  close(): void;
}

/** No usage source: every figure the procedures report is null with `source: "unavailable"`. */
export const unavailableUsageSource: UsageSource = {
  kind: 'unavailable',
  simulated: false,
  instanceUsage: async () => [],
  cardUsage: async () => [],
  cardMeanUtilization: async () => new Map(),
  close: () => {},
};

/** The allocation record id an instance's figures belong to. */
export const instanceRecordId = (usage: InstanceUsage): string =>
  allocationRecordId(usage.namespace, usage.pod, usage.container, usage.card);
