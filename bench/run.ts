/**
 * Runs every benchmark under bench/<area>/ in its own process (so memory figures don't mix),
 * or only those whose path contains one of the arguments: `pnpm bench check watch`. Flags go to
 * each of them: `pnpm bench dashboard --minutes 10`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
// `--name value` and `--name=value` go to every benchmark run; other arguments pick files.
const filters: string[] = [];
const flags: string[] = [];
const args = process.argv.slice(2);
for (let index = 0; index < args.length; index++) {
  const arg = args[index] ?? '';
  if (!arg.startsWith('--')) filters.push(arg);
  else {
    flags.push(arg);
    const value = args[index + 1];
    if (!arg.includes('=') && value !== undefined && !value.startsWith('--')) {
      flags.push(value);
      index++;
    }
  }
}
const files = readdirSync(root)
  .filter(
    (area) => area !== 'lib' && area !== 'node_modules' && statSync(join(root, area)).isDirectory(),
  )
  .flatMap((area) =>
    readdirSync(join(root, area))
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts') && !file.startsWith('_'))
      .map((file) => join(root, area, file)),
  )
  .filter((file) => filters.length === 0 || filters.some((filter) => file.includes(filter)))
  .sort();

let failed = 0;
for (const file of files) {
  console.log(`\n# ${relative(root, file)}`);
  const run = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=source', '--expose-gc', file, ...flags],
    {
      stdio: 'inherit',
      cwd: root,
    },
  );
  if (run.status !== 0) failed++;
}
if (failed > 0) {
  console.error(`${failed} benchmark(s) failed`);
  process.exitCode = 1;
}
