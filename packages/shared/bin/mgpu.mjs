#!/usr/bin/env node
/**
 * `pnpm --silent mgpu …` (spec §7): the CLI run from its TypeScript source, so it needs no build.
 * It is the root's dependency's bin, not a root script: pnpm follows a script that exits 1 or 2
 * with a line of its own on stderr ("[ELIFECYCLE] Command failed with exit code 2."), whatever
 * its flags, and the CLI promises one line there. A name that is no script runs as this bin,
 * through the same `pnpm --silent mgpu`, with nothing added.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url));
const run = spawnSync(
  process.execPath,
  ['--conditions=source', '--import', import.meta.resolve('tsx'), main, ...process.argv.slice(2)],
  { stdio: 'inherit' },
);
if (run.error) throw run.error;
process.exit(run.status ?? 1);
