import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT, readRepoFile, repoFiles } from './repo.js';

/** The house limit: a file over it mixes seams and is split along them (issue 26). */
const MAX_LINES = 500;
const SOURCE = /\.(ts|tsx|mts|mjs|js|sh|go|py|css)$/;
/** Written by a generator from a schema, never by hand (its generator is the source). */
const GENERATED = /\.generated\.ts$/;

describe('the repository’s source files', () => {
  it(`are at most ${MAX_LINES} lines each, generated files aside`, () => {
    const sources = repoFiles().filter(
      (path) => SOURCE.test(path) && !GENERATED.test(path) && existsSync(`${ROOT}${path}`),
    );
    expect(sources.length).toBeGreaterThan(100);
    const long = sources
      .map((path) => ({ path, lines: readRepoFile(path).split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES)
      .map(({ path, lines }) => `${path}: ${lines} lines`);
    expect(long).toEqual([]);
  });
});
