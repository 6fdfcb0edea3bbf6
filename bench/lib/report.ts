import { cpus, loadavg } from 'node:os';
import type { Bench } from 'tinybench';

/** Nearest-rank percentile of samples (ms or any unit), for benchmarks that time by hand. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

export function heading(title: string, target: string): void {
  console.log(`\n## ${title}\n   target: ${target}`);
}

/** Prints median, p95/p99 latency (ms) and throughput of every task, with its ratio to the first. */
export function printBench(bench: Bench): void {
  const rows: Record<string, Record<string, string | number>> = {};
  let baselineMedian: number | undefined;
  for (const task of bench.tasks) {
    const result = task.result;
    if (result.state !== 'completed') {
      rows[task.name] = { state: result.state };
      continue;
    }
    const latency = result.latency;
    baselineMedian ??= latency.p50;
    rows[task.name] = {
      'median ms': Number(latency.p50.toFixed(4)),
      'p95 ms': Number(percentile(latency.samples ?? [], 95).toFixed(4)),
      'p99 ms': Number(latency.p99.toFixed(4)),
      'ops/s': Math.round(result.throughput.mean),
      'x baseline (median)': Number((latency.p50 / baselineMedian).toFixed(2)),
      samples: latency.samples?.length ?? 0,
    };
  }
  console.table(rows);
}

/** The machine's load average (1, 5, 15 min) and cores: printed beside every figure, as the cores are shared. */
export function machineLoad(): string {
  return `machine load average: ${loadavg()
    .map((load) => load.toFixed(1))
    .join(' ')} on ${cpus().length} cores`;
}
