/**
 * Runs every benchmark under bench/<area>/ in its own process (so memory figures don't mix),
 * or only those whose path contains one of the arguments: `pnpm bench check watch`. Flags go to
 * each of them: `pnpm bench dashboard --minutes 10`. `pnpm bench --list` (or `--help`) names
 * the files a run would take, and runs none. Each run prints the machine's load before and after.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BENCH_ROOT, runBenchFile } from './lib/run-file.js';

// `--name value` and `--name=value` go to every benchmark run; other arguments pick files.
const filters: string[] = [];
const flags: string[] = [];
let listOnly = false;
const args = process.argv.slice(2);
for (let index = 0; index < args.length; index++) {
  const arg = args[index] ?? '';
  if (arg === '--list' || arg === '--help') listOnly = true;
  else if (!arg.startsWith('--')) filters.push(arg);
  else {
    flags.push(arg);
    const value = args[index + 1];
    if (!arg.includes('=') && value !== undefined && !value.startsWith('--')) {
      flags.push(value);
      index++;
    }
  }
}
const files = readdirSync(BENCH_ROOT)
  .filter(
    (area) =>
      area !== 'lib' && area !== 'node_modules' && statSync(join(BENCH_ROOT, area)).isDirectory(),
  )
  .flatMap((area) =>
    readdirSync(join(BENCH_ROOT, area))
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.startsWith('_'))
      .map((file) => join(BENCH_ROOT, area, file)),
  )
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

if (listOnly) {
  console.log(
    'pnpm bench [names…] [--flag value…]: runs each file below in its own process (flags go to every one)\n',
  );
  for (const file of files) {
    // The file's usage line from its header comment, or the comment's first line.
    const source = readFileSync(file, 'utf8');
    const usage =
      /`((?:[A-Z_]+=\S+ )*pnpm bench [^`]*)`/.exec(source)?.[1] ??
      /^ \* (.+)$/m.exec(source)?.[1] ??
      '';
    console.log(`  ${relative(BENCH_ROOT, file).padEnd(38)} ${usage}`);
  }
} else {
  let failed = 0;
  for (const file of files) if (runBenchFile(file, flags) !== 0) failed++;
  if (failed > 0) {
    console.error(`${failed} benchmark(s) failed`);
    process.exitCode = 1;
  }
}
