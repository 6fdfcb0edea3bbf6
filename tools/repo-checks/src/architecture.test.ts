import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, readRepoFile, repoFiles } from './repo.js';

/**
 * ARCHITECTURE.md is a map (issue 26): at most 200 lines, and everything it names is there. A
 * path is any backticked token or link target with a slash or a file extension, from the root or
 * from the folder of the line's first root path (`packages/x/src/a.ts`, `b.ts` is
 * `packages/x/src/b.ts`); a name is a backticked camelCase, PascalCase or UPPER_SNAKE identifier
 * on a line that cites source files or folders, and one of them (a folder: any source file below
 * it) must export it, itself or by re-export; on a line that cites no path at all (the data
 * flow), some source file must.
 */
const MAP = readRepoFile('ARCHITECTURE.md');
const LINES = MAP.split('\n');
/** A repo path (`apps/bff/src/server.ts`, `charts/`); `@scope/package` names are packages, not paths. */
const PATH_LIKE = /^[\w.-]+(\/[\w.[\]-]*)+\/?$|^[\w.-]+\.(ts|tsx|md|json|yaml|yml|sh|mjs|txt|py)$/;
const SOURCE_FILE = /\.(ts|tsx|mjs)$/;
const IDENTIFIER = /^(?:[A-Z][A-Za-z0-9]+|[a-z]+[A-Z][A-Za-z0-9]*|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)$/;
/** Every source file git has but tests, once: a cited folder stands for those below it. */
const SOURCES = repoFiles().filter((file) => SOURCE_FILE.test(file) && !/\.test\.tsx?$/.test(file));

const backticked = (line: string) =>
  [...line.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');
const linked = (line: string) =>
  [...line.matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z]+:/.test(target));

/**
 * Whether `file` exports `name`: declared, listed (`export { name }`, also `from` another
 * module) or passed on by an `export * from './x.js'` the file has.
 */
function exportsName(file: string, name: string, seen = new Set<string>()): boolean {
  if (seen.has(file)) return false;
  seen.add(file);
  const source = readRepoFile(file);
  const declared = new RegExp(
    `export\\s+(?:declare\\s+)?(?:default\\s+)?(?:async\\s+)?(?:abstract\\s+)?(?:function\\*?|class|const|let|var|type|interface|enum)\\s+${name}\\b`,
  );
  if (declared.test(source) || listedExports(source).has(name)) return true;
  return [...source.matchAll(/export\s+\*\s+from\s+'(\.[^']+)'/g)].some((match) => {
    const target = join(dirname(file), (match[1] ?? '').replace(/\.js$/, ''));
    const module = [`${target}.ts`, `${target}.tsx`, `${target}/index.ts`].find(exists);
    return module !== undefined && exportsName(module, name, seen);
  });
}

/** The names `export { a, b as c, type d }` lists give out (`c`, not `b`). */
function listedExports(source: string): Set<string> {
  const names = new Set<string>();
  for (const match of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const part of (match[1] ?? '').split(',')) {
      const words = part
        .trim()
        .split(/\s+/)
        .filter((word) => word !== 'type');
      const exported = words.at(-1);
      if (exported) names.add(exported);
    }
  }
  return names;
}

const exists = (path: string) => path !== '' && existsSync(`${ROOT}${path.replace(/\/$/, '')}`);

/** The folder a line's relative names are in: that of its first path from the root. */
function baseOf(line: string): string {
  const first = [...backticked(line), ...linked(line)].find(
    (token) => token.includes('/') && PATH_LIKE.test(token) && exists(token),
  );
  if (first === undefined) return '';
  return first.endsWith('/') || !/\.[a-z]+$/.test(first)
    ? first.replace(/\/?$/, '/')
    : first.slice(0, first.lastIndexOf('/') + 1);
}

/** A cited path as the repo has it, or undefined when it is nowhere. */
function resolved(token: string, base: string): string | undefined {
  if (exists(token)) return token.replace(/\/$/, '');
  if (base !== '' && exists(`${base}${token}`)) return `${base}${token}`.replace(/\/$/, '');
  return undefined;
}

/** The source files a line cites: its files, and every source file below its folders. */
function citedSources(line: string): string[] {
  const base = baseOf(line);
  const files = new Set<string>();
  for (const token of [...backticked(line), ...linked(line)]) {
    if (!PATH_LIKE.test(token)) continue;
    const path = resolved(token, base);
    if (path === undefined) continue;
    const below = SOURCES.filter((source) => source.startsWith(`${path}/`));
    for (const file of SOURCE_FILE.test(path) ? [path] : below) files.add(file);
  }
  return [...files];
}

describe('ARCHITECTURE.md', () => {
  it('is a map of at most 200 lines', () => {
    expect(LINES.length).toBeLessThanOrEqual(200);
  });

  it('names only paths that exist', () => {
    let cited = 0;
    const missing: string[] = [];
    for (const line of LINES) {
      const base = baseOf(line);
      for (const token of [...backticked(line), ...linked(line)]) {
        if (!PATH_LIKE.test(token)) continue;
        cited += 1;
        if (resolved(token, base) === undefined) missing.push(token);
      }
    }
    expect(cited).toBeGreaterThan(30);
    expect(missing).toEqual([]);
  });

  it('names only exports that its files have', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const line of LINES) {
      const citesPaths = [...backticked(line), ...linked(line)].some((token) =>
        PATH_LIKE.test(token),
      );
      const files = citesPaths ? citedSources(line) : SOURCES;
      if (files.length === 0) continue;
      for (const name of backticked(line).filter((token) => IDENTIFIER.test(token))) {
        checked += 1;
        if (!files.some((file) => exportsName(file, name))) {
          missing.push(`${name} (${line.slice(0, 60)}…)`);
        }
      }
    }
    // Every name the map gives beside a file is checked, not only those on one-file lines.
    expect(checked).toBeGreaterThan(120);
    expect(missing).toEqual([]);
  });
});
