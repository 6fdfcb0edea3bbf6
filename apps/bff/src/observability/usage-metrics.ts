import type { WorkloadUsage } from '@mgpu/shared';
import { Gauge, type Registry } from 'prom-client';

const WORKLOAD_LABELS = ['namespace', 'workload', 'kind'] as const;

/**
 * `mgpu_workload_efficiency_ratio` and `mgpu_workload_idle` (issue 28), read at scrape time
 * from the rows `usage.workloads` answers, so an alert and the `/workloads` column agree. A
 * workload whose figure is unknown has no series at all: absence, never a 0 an alert would
 * take for an idle allocation.
 */
export function registerUsageMetrics(
  registry: Registry,
  rows: () => Promise<readonly WorkloadUsage[]>,
): void {
  const registers = [registry];
  // One read serves both gauges of a scrape: prom-client collects them one after the other.
  let pending: Promise<readonly WorkloadUsage[]> | undefined;
  const read = () => {
    pending ??= rows().finally(() => {
      setImmediate(() => {
        pending = undefined;
      });
    });
    return pending;
  };
  const labelsOf = (row: WorkloadUsage) => ({
    namespace: row.namespace,
    workload: row.workload,
    kind: row.kind,
  });
  new Gauge({
    name: 'mgpu_workload_efficiency_ratio',
    help: 'GPU compute a workload uses over what it holds (0–1), mean over the usage window; no series when unknown.',
    labelNames: WORKLOAD_LABELS,
    registers,
    async collect() {
      const known = (await read()).filter((row) => row.efficiency !== null);
      this.reset();
      for (const row of known) this.set(labelsOf(row), row.efficiency ?? 0);
    },
  });
  new Gauge({
    name: 'mgpu_workload_idle',
    help: 'A workload holding GPU cards whose use stayed under --idle-threshold for --idle-after (1) or not (0); no series when unknown.',
    labelNames: WORKLOAD_LABELS,
    registers,
    async collect() {
      const known = (await read()).filter((row) => row.idle !== null);
      this.reset();
      for (const row of known) this.set(labelsOf(row), row.idle ? 1 : 0);
    },
  });
}
