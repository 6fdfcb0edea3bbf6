import { spawnSync } from 'node:child_process';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLoad } from './report.js';

/** The bench/ directory: files are named relative to it, and run from it. */
export const BENCH_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs one benchmark file in its own process (so memory figures don't mix), under the flags
 * every bench runs with, and prints the machine's load before and after it: on shared cores
 * a figure means little without the load it was taken at. Returns the exit status.
 */
export function runBenchFile(file: string, flags: readonly string[]): number | null {
  const name = relative(BENCH_ROOT, file);
  console.log(`\n# ${[name, ...flags].join(' ')}\n   before: ${machineLoad()}`);
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=source', '--expose-gc', file, ...flags],
    { stdio: 'inherit', cwd: BENCH_ROOT },
  );
  console.log(`   after ${name}: ${machineLoad()}`);
  return run.status;
}
