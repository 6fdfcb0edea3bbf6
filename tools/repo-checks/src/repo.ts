import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository's root: these checks read the tree as git has it. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Every file git tracks or would add (untracked, not ignored), relative to the root. */
export function repoFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return listed.split('\n').filter(Boolean);
}

export const readRepoFile = (path: string) => readFileSync(`${ROOT}${path}`, 'utf8');
