/**
 * Issue 20's scale figures in one step: the console on 10,000 nodes × 8 cards with 30,000 mGPU
 * pods and 100 changes a second, through the same benchmark files as at 1,000 nodes, each in its
 * own process with the machine's load printed before and after:
 * - bff/metrics.ts: the BFF's RSS and heap per node and per pod, its informers' list time, and
 *   `/metrics` scrape time quiet and under the churn;
 * - web/dashboard.ts (after `pnpm build`): the time a new dashboard waits for its snapshot,
 *   frame p95 and change-to-DOM p95 alone, with a Prometheus-like scraper and with 1,000
 *   `allocations.watch` subscribers, and `/workloads` and `/allocations` first paint.
 * Flags given to `pnpm bench` come after these defaults, so they win (`--nodes 2000` for a smoke
 * run). Hours on the shared 2-core machine: the cluster alone takes minutes to fill.
 *
 * `pnpm bench scale [--minutes 1]`
 */
import { fileURLToPath } from 'node:url';
import { runBenchFile } from '../lib/run-file.js';

const SIZE = ['--nodes', '10000', '--prefill', '30000'];
const steps: [file: string, defaults: string[]][] = [
  ['../bff/metrics.ts', [...SIZE, '--scrapes', '10']],
  // No usage phase: a second BFF and Prometheus at 10,000 nodes would change what this measures.
  ['../web/dashboard.ts', [...SIZE, '--subscribers', '1000', '--scraper', '15', '--usage', 'off']],
];
const given = process.argv.slice(2);
let failed = 0;
for (const [file, defaults] of steps)
  if (runBenchFile(fileURLToPath(new URL(file, import.meta.url)), [...defaults, ...given]) !== 0)
    failed++;
process.exit(failed > 0 ? 1 : 0);
