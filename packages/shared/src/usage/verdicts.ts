/**
 * The usage verdicts (issue 28), computed once for the BFF, the metrics and the tests:
 * efficiency = used ÷ allocated compute; idle = utilisation stayed under `--idle-threshold` for
 * `--idle-after` while holding cards; GPU-hours held idle. An unknown figure is null with a
 * reason, never 0.
 */
import {
  type HeldInstance,
  type InstanceUsed,
  instancesPerCard,
  instanceUsed,
  type UsageReadings,
} from './readings.js';
import type { UsageSourceKind, UsageUnknownReason } from './terms.js';

export interface IdleSettings {
  /** Percent of its own allocation under which an instance is quiet. */
  idleThresholdPercent: number;
  /** Quiet this long (seconds) while holding cards: idle. */
  idleAfterSeconds: number;
}

/** The figures a workload's or a namespace's row carries (schema `UsageVerdictFields`). */
export interface UsageVerdict {
  source: UsageSourceKind;
  simulated: boolean;
  allocated: { computePercent: number; memoryMiB: number | null };
  used: { computePercent: number | null; memoryMiB: number | null };
  efficiency: number | null;
  efficiencyUnknownReason: UsageUnknownReason | null;
  idleGpuHours: number | null;
  perCardOnly: boolean;
}

export interface WorkloadVerdict extends UsageVerdict {
  idle: boolean | null;
  instances: number;
}

/** When instances disagree on why, the reason the operator can act on first. */
const REASON_ORDER: readonly UsageUnknownReason[] = [
  'no-source',
  'source-failed',
  'card-series-only',
  'no-samples',
  'no-cards',
];
const firstReason = (reasons: Iterable<UsageUnknownReason>): UsageUnknownReason | null =>
  REASON_ORDER.find((reason) => [...reasons].includes(reason)) ?? null;

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);
/** Σ when every value is known, else null: a partial sum would read as a smaller figure. */
const sumKnown = (values: readonly (number | null)[]): number | null =>
  values.every((value) => value !== null) ? sum(values as number[]) : null;
const ratio = (used: number, allocated: number) => Math.min(1, Math.max(0, used / allocated));

/**
 * One workload's verdict from the instances it holds now (its allocation records) and what the
 * source read. Efficiency is known only when every instance's use is: a workload partly read
 * would look less efficient than it is.
 */
export function workloadVerdict(
  held: readonly HeldInstance[],
  readings: UsageReadings,
  settings: IdleSettings,
  onCard: ReadonlyMap<string, number> = instancesPerCard(held),
): WorkloadVerdict {
  const figures: InstanceUsed[] = held.map((instance) => instanceUsed(instance, readings, onCard));
  const allocatedCompute = sum(held.map((instance) => instance.requested.computePercent));
  const base = {
    source: readings.source,
    simulated: readings.simulated,
    allocated: {
      computePercent: allocatedCompute,
      memoryMiB: sumKnown(held.map((instance) => instance.requested.memoryMiB)),
    },
    perCardOnly: figures.some((figure) => !figure.known && figure.perCardOnly),
    instances: held.length,
  };
  const memoryMiB = held.length > 0 ? sumKnown(figures.map((figure) => figure.memoryMiB)) : null;
  const unknownReason = firstReason(
    figures.flatMap((figure) => (figure.known ? [] : [figure.reason])),
  );
  if (unknownReason !== null || held.length === 0) {
    const reason = unknownReason ?? (readings.source === 'unavailable' ? 'no-source' : 'no-cards');
    // Holding no cards it is not an idle allocation, when a source could have told.
    const holdsNothing = reason === 'no-cards';
    return {
      ...base,
      used: { computePercent: null, memoryMiB },
      efficiency: null,
      efficiencyUnknownReason: reason,
      idle: holdsNothing ? false : null,
      idleGpuHours: holdsNothing ? 0 : null,
    };
  }
  const known = figures.filter((figure) => figure.known);
  const usedCompute = sum(known.map((figure) => figure.computePercent));
  const quiet = known.map((figure) => figure.quietSeconds);
  // Idle when every instance stayed quiet long enough: one busy replica keeps the workload busy.
  const idle = quiet.every((seconds) => seconds !== null)
    ? (quiet as number[]).every((seconds) => seconds >= settings.idleAfterSeconds)
    : null;
  return {
    ...base,
    used: { computePercent: usedCompute, memoryMiB },
    efficiency: allocatedCompute > 0 ? ratio(usedCompute, allocatedCompute) : null,
    efficiencyUnknownReason: allocatedCompute > 0 ? null : 'no-cards',
    idle,
    idleGpuHours: idle === null ? null : idle ? idleGpuHoursOf(held, quiet as number[]) : 0,
  };
}

/** Card-equivalents held × the time each stayed quiet, in hours. */
function idleGpuHoursOf(held: readonly HeldInstance[], quietSeconds: readonly number[]): number {
  return sum(
    held.map(
      (instance, index) =>
        ((instance.requested.computePercent / 100) * (quietSeconds[index] ?? 0)) / 3600,
    ),
  );
}

/**
 * A team's memory as far as it is known: the sums `allocated.memoryMiB` and `used.memoryMiB` are
 * null as soon as one workload's figure is (a whole card of unknown memory, an unread instance),
 * and this says how much the others hold and use, and how many are left out.
 */
export interface KnownMemory {
  /** MiB allocated to the workloads whose allocation is sized. */
  allocatedMiB: number;
  /** Workloads holding whole cards of unknown memory, left out of `allocatedMiB`. */
  wholeCardWorkloads: number;
  /** MiB used by the workloads whose use is read. */
  usedMiB: number;
  /** Workloads whose used memory is unknown, left out of `usedMiB`. */
  usedUnknown: number;
}

/** A namespace's (team's) row: what its workloads that hold cards hold, use and left idle. */
export interface NamespaceVerdict extends UsageVerdict {
  /** The allocation of the workloads whose use is known: what `used` is compared with. */
  knownAllocated: { computePercent: number };
  /** The team's memory as far as it is known, when one workload's figure would hide the sum. */
  knownMemory: KnownMemory;
  workloads: number;
  idleWorkloads: number;
  unknownWorkloads: number;
}

/**
 * Per namespace the sums of its workloads' verdicts (those holding cards). Used, efficiency and
 * the GPU-hours held idle are over the workloads whose figure is known (`knownAllocated` is
 * what that used is compared with, `unknownWorkloads` how many are left out); with none known
 * they are null with the reason the workloads give.
 */
export function namespaceVerdict(
  rows: readonly WorkloadVerdict[],
  readings: Pick<UsageReadings, 'source' | 'simulated'>,
): NamespaceVerdict {
  const holding = rows.filter((row) => row.instances > 0);
  const known = holding.filter((row) => row.efficiency !== null);
  const knownAllocated = sum(known.map((row) => row.allocated.computePercent));
  const knownUsed = sum(known.map((row) => row.used.computePercent ?? 0));
  const idleHours = holding.map((row) => row.idleGpuHours).filter((hours) => hours !== null);
  return {
    source: readings.source,
    simulated: readings.simulated,
    allocated: {
      computePercent: sum(holding.map((row) => row.allocated.computePercent)),
      memoryMiB: sumKnown(holding.map((row) => row.allocated.memoryMiB)),
    },
    used: {
      computePercent: known.length > 0 ? knownUsed : null,
      memoryMiB: holding.length > 0 ? sumKnown(holding.map((row) => row.used.memoryMiB)) : null,
    },
    efficiency: known.length > 0 && knownAllocated > 0 ? ratio(knownUsed, knownAllocated) : null,
    efficiencyUnknownReason:
      known.length > 0
        ? null
        : (firstReason(holding.flatMap((row) => row.efficiencyUnknownReason ?? [])) ??
          (readings.source === 'unavailable' ? 'no-source' : 'no-cards')),
    idleGpuHours: idleHours.length > 0 ? sum(idleHours) : null,
    perCardOnly: holding.some((row) => row.perCardOnly),
    knownAllocated: { computePercent: knownAllocated },
    knownMemory: {
      allocatedMiB: sum(holding.flatMap((row) => row.allocated.memoryMiB ?? [])),
      wholeCardWorkloads: holding.filter((row) => row.allocated.memoryMiB === null).length,
      usedMiB: sum(holding.flatMap((row) => row.used.memoryMiB ?? [])),
      usedUnknown: holding.filter((row) => row.used.memoryMiB === null).length,
    },
    workloads: holding.length,
    idleWorkloads: holding.filter((row) => row.idle === true).length,
    unknownWorkloads: holding.length - known.length,
  };
}
