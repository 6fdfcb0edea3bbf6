/**
 * Runs every benchmark under bench/<area>/ in its own process (so memory figures don't mix),
 * or only those whose path contains one of the arguments: `pnpm bench check watch`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('.', import.meta.url));
const filters = process.argv.slice(2);
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
    ['--import', 'tsx', '--conditions=source', '--expose-gc', file],
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
