import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT, readRepoFile } from './repo.js';

/**
 * ARCHITECTURE.md is a map (issue 26): at most 200 lines, and everything it names is there. A
 * path is any backticked token or link target with a slash or a file extension, from the root or
 * from the folder of the line's first root path (`packages/x/src/a.ts`, `b.ts` is
 * `packages/x/src/b.ts`); a name is a backticked camelCase or PascalCase identifier on a line
 * that names one source file, and must be exported by it.
 */
const MAP = readRepoFile('ARCHITECTURE.md');
const LINES = MAP.split('\n');
/** A repo path (`apps/bff/src/server.ts`, `charts/`); `@scope/package` names are packages, not paths. */
const PATH_LIKE = /^[\w.-]+(\/[\w.[\]-]*)+\/?$|^[\w.-]+\.(ts|tsx|md|json|yaml|yml|sh|mjs|txt|py)$/;
const SOURCE_FILE = /\.(ts|tsx|mjs)$/;
const IDENTIFIER = /^(?:[A-Z][A-Za-z0-9]+|[a-z]+[A-Z][A-Za-z0-9]*)$/;

const backticked = (line: string) =>
  [...line.matchAll(/`([^`]+)`/g)].map((match) => match[1] ?? '');
const linked = (line: string) =>
  [...line.matchAll(/\]\(([^)#]+)(?:#[^)]*)?\)/g)]
    .map((match) => match[1] ?? '')
    .filter((target) => !/^[a-z]+:/.test(target));

function exportsName(source: string, name: string): boolean {
  const declared = new RegExp(
    `export\\s+(?:declare\\s+)?(?:default\\s+)?(?:async\\s+)?(?:abstract\\s+)?(?:function\\*?|class|const|let|var|type|interface|enum)\\s+${name}\\b`,
  );
  const listed = new RegExp(`export\\s+(?:type\\s+)?\\{[^}]*\\b${name}\\b[^}]*\\}`);
  return declared.test(source) || listed.test(source);
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
      const tokens = backticked(line);
      const base = baseOf(line);
      const files = tokens
        .filter((token) => PATH_LIKE.test(token) && SOURCE_FILE.test(token))
        .map((token) => resolved(token, base));
      if (files.length !== 1 || files[0] === undefined) continue;
      const file = files[0];
      const source = readRepoFile(file);
      for (const name of tokens.filter((token) => IDENTIFIER.test(token))) {
        checked += 1;
        if (!exportsName(source, name)) missing.push(`${file}: ${name}`);
      }
    }
    expect(checked).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });
});
