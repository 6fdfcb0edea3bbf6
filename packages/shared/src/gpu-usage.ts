/**
 * GPU usage as an exporter reports it (spec §9 "Usage"): the series names the embedded cluster's
 * GPU exporter serves and the console's Prometheus queries default to, the one annotation that
 * sets a container's simulated use, and the in-process snapshot the console reads on its
 * embedded cluster. Names and labels are NVIDIA dcgm-exporter's where it has them.
 */

/**
 * Pod annotation: the percent (0–100) of its own allocation each GPU container of the pod uses
 * in the embedded cluster's model. Absent or not a number in 0–100: the workload's profile.
 */
export const SIMULATED_UTILIZATION_ANNOTATION = 'mgpu.console.io/simulated-utilization';

/** The annotation's percent, or undefined when absent or not a number within 0–100. */
export function simulatedUtilizationOf(
  annotations: Record<string, string> | undefined,
): number | undefined {
  const text = annotations?.[SIMULATED_UTILIZATION_ANNOTATION]?.trim();
  if (text === undefined || !/^\d+(\.\d+)?$/.test(text)) return undefined;
  const percent = Number(text);
  return percent >= 0 && percent <= 100 ? percent : undefined;
}

/**
 * What every `# HELP` line of the embedded exporter says: a console reading it through
 * Prometheus finds it in the metric's metadata and labels the figures simulated too.
 */
export const SIMULATED_SERIES_HELP = 'simulated by the mGPU embedded cluster, not measured';

/** Series names: dcgm-exporter's per card, ours per mGPU instance. */
export const GPU_METRICS = {
  /** Card utilisation, 0–100. */
  cardUtilization: 'DCGM_FI_DEV_GPU_UTIL',
  /** Card graphics engine activity, 0–1 (dcgm's profiling field; preferred where present). */
  cardEngineActive: 'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
  /** Card frame buffer used and free, MiB. */
  cardMemoryUsed: 'DCGM_FI_DEV_FB_USED',
  cardMemoryFree: 'DCGM_FI_DEV_FB_FREE',
  /** Percent (0–100) of the instance's own allocated compute it uses. */
  instanceUtilization: 'mgpu_instance_utilization_percent',
  /** MiB the instance uses, within its memory limit. */
  instanceMemoryUsed: 'mgpu_instance_memory_used_mib',
} as const;

/** Labels: `Hostname`, `gpu`, `UUID`, `modelName` per card (dcgm's), plus the pod's per instance. */
export const GPU_METRIC_LABELS = {
  node: 'Hostname',
  card: 'gpu',
  uuid: 'UUID',
  model: 'modelName',
  namespace: 'namespace',
  pod: 'pod',
  container: 'container',
} as const;

/** One card at one moment. */
export interface CardUsageSample {
  node: string;
  /** The card's index on its node. */
  card: number;
  uuid: string;
  model: string;
  /** The card's memory, MiB; null (and so used and free) where the node does not report it. */
  memoryMiB: number | null;
  /** 0–100: Σ over its instances of their use × their compute share of the card, at most 100. */
  utilizationPercent: number;
  memoryUsedMiB: number | null;
  memoryFreeMiB: number | null;
}

/** One container on one card (an mGPU instance, or a whole `nvidia.com/gpu` card) at one moment. */
export interface InstanceUsageSample {
  node: string;
  card: number;
  namespace: string;
  pod: string;
  container: string;
  /** The share of the card's compute allocated to it, percent (100 for a whole card). */
  allocatedComputePercent: number;
  /** Its memory limit on this card, MiB; null for a whole card of unreported size. */
  memoryLimitMiB: number | null;
  /** 0–100: percent of its own allocated compute that it uses. */
  utilizationPercent: number;
  /** MiB used, at most `memoryLimitMiB`; null when that is. */
  memoryUsedMiB: number | null;
}

/** Every card of every GPU node and every instance on them, at `at` (ms since the epoch). */
export interface GpuUsageSnapshot {
  at: number;
  /** True when the figures come from the embedded cluster's model, not from hardware. */
  simulated: boolean;
  cards: CardUsageSample[];
  instances: InstanceUsageSample[];
}
