/**
 * The embedded cluster's model of GPU use: how much of its own allocation each container uses
 * on each of its cards. Pure and deterministic: the same container at the same moment always
 * gets the same figures, so the exporter, the node agents' `vmem_info` and the console reading
 * either agree. This is the simulator's model, not a measurement.
 */
/** Figures change once per bucket: mild, stepwise variation, identical within a bucket. */
export const USAGE_BUCKET_MS = 30_000;

/** What a profile makes of a workload nobody annotated. */
export type UsageProfileKind = 'idle' | 'light' | 'busy';

export interface UsageProfile {
  kind: UsageProfileKind;
  /** The workload's level, percent of its allocation, before the variation over time. */
  basePercent: number;
  /** At most this many points either side of the level. */
  swingPercent: number;
}

/** One container on one card, as the model needs it. */
export interface ModelledInstance {
  namespace: string;
  /** The workload the pod belongs to (its replicas share a profile), else the pod's name. */
  workload: string;
  pod: string;
  container: string;
  card: number;
  memoryLimitMiB: number;
  /** The pod's `mgpu.console.io/simulated-utilization`, when it has a valid one. */
  annotatedPercent?: number;
}

/**
 * A number in [0, 1) from a text: the same text, the same number. FNV-1a with murmur3's final
 * mix, not a cryptographic hash: a 1,000-node cluster's exporter hashes thousands of keys per
 * scrape, in the console's own process on its embedded cluster.
 */
function unitHash(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return (hash >>> 0) / 2 ** 32;
}

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, value));
const round1 = (value: number) => Math.round(value * 10) / 10;

/**
 * The profile of an unannotated workload, from a hash of `namespace/workload`: about a third
 * idle (0–3 %), a third light (15–40 %), a third busy (55–95 %), never outside 0–100.
 */
export function workloadProfile(namespace: string, workload: string): UsageProfile {
  const pick = unitHash(`profile/${namespace}/${workload}`);
  const level = unitHash(`level/${namespace}/${workload}`);
  if (pick < 1 / 3) return { kind: 'idle', basePercent: round1(level * 2), swingPercent: 1 };
  if (pick < 2 / 3) return { kind: 'light', basePercent: round1(18 + level * 19), swingPercent: 3 };
  return { kind: 'busy', basePercent: round1(60 + level * 30), swingPercent: 5 };
}

/** The level the container is modelled around: its annotation, else its workload's profile. */
export function profileOf(instance: ModelledInstance): UsageProfile {
  if (instance.annotatedPercent !== undefined) {
    const base = instance.annotatedPercent;
    // What was asked is what is shown, within 2 points; 0 stays 0 and 100 stays 100.
    return {
      kind: base < 5 ? 'idle' : base < 50 ? 'light' : 'busy',
      basePercent: base,
      swingPercent: Math.min(2, base, 100 - base),
    };
  }
  return workloadProfile(instance.namespace, instance.workload);
}

/**
 * Percent (0–100) of its own allocated compute the container uses on this card at `nowMs`:
 * its level, moved by a deterministic amount per time bucket, per container and card.
 */
export function instanceUtilizationPercent(instance: ModelledInstance, nowMs: number): number {
  const profile = profileOf(instance);
  const bucket = Math.floor(nowMs / USAGE_BUCKET_MS);
  const key = `${instance.namespace}/${instance.pod}/${instance.container}/${instance.card}`;
  const offset = (unitHash(`swing/${key}/${bucket}`) * 2 - 1) * profile.swingPercent;
  return round1(clamp(profile.basePercent + offset, 0, 100));
}

/**
 * MiB the container holds on this card: a fraction of its limit that follows its level (10 %
 * when idle up to 90 % when flat out). Steady over time, as loaded weights and caches are, so
 * the node's `vmem_info` does not churn; never above the limit.
 */
export function instanceMemoryUsedMiB(instance: ModelledInstance): number {
  const { basePercent } = profileOf(instance);
  const fraction = 0.1 + 0.8 * (basePercent / 100);
  return clamp(Math.round(instance.memoryLimitMiB * fraction), 0, instance.memoryLimitMiB);
}

/** A stable PID for the container's process on its card (what `tasks` and `vmem_info` list). */
export function processIdOf(containerId: string): number {
  return 1000 + Math.floor(unitHash(`pid/${containerId}`) * 4_000_000);
}

/**
 * A card's utilisation (0–100): Σ over its instances of their use × their compute share of the
 * card (percent), at most 100.
 */
export function cardUtilizationPercent(
  instances: readonly { utilizationPercent: number; allocatedComputePercent: number }[],
): number {
  const sum = instances.reduce(
    (total, instance) =>
      total + (instance.utilizationPercent * instance.allocatedComputePercent) / 100,
    0,
  );
  return round1(clamp(sum, 0, 100));
}
