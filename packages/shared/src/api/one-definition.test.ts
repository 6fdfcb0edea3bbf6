import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const CARD_TYPE_HOME = 'packages/shared/src/ledger/claim.ts';
const PROCEDURES = 'packages/api/src/procedures/';

/** The source files (tests aside) under `dir`, relative to the repository's root. */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const files = [
  'packages/shared/src',
  'packages/api/src',
  'packages/cluster-sim/src',
  'packages/kube-client/src',
  'apps/bff/src',
  'apps/web/src',
].flatMap(sourceFiles);
const textOf = (file: string) => readFileSync(join(root, file), 'utf8');

describe('each schema has one definition', () => {
  it('found the source files it guards', () => {
    expect(files).toContain(CARD_TYPE_HOME);
    expect(files.filter((file) => file.startsWith(PROCEDURES)).length).toBeGreaterThan(10);
  });

  it('defines the card type once: every other schema uses CardTypeSchema, every type CardType', () => {
    const literalEnum = /z\.enum\(\s*\[\s*['"`]mgpu['"`]\s*,\s*['"`]nvidia['"`]\s*,?\s*\]/;
    const cardTypesEnum = /z\.enum\(\s*CARD_TYPES\s*\)/;
    const literalUnion = /['"`](mgpu|nvidia)['"`]\s*\|\s*['"`](mgpu|nvidia)['"`]/;
    const elsewhere = files.filter(
      (file) =>
        literalEnum.test(textOf(file)) ||
        literalUnion.test(textOf(file)) ||
        (file !== CARD_TYPE_HOME && cardTypesEnum.test(textOf(file))),
    );
    expect(elsewhere).toEqual([]);
  });

  it('defines the card policies once: the schema and the flag check take CARD_POLICIES', () => {
    const literal = /['"`](binpack|spread)['"`]\s*[,|]\s*['"`](binpack|spread)['"`]/;
    const elsewhere = files.filter(
      (file) => file !== 'packages/shared/src/placement/types.ts' && literal.test(textOf(file)),
    );
    expect(elsewhere).toEqual([]);
    expect(textOf('packages/shared/src/placement/types.ts')).toMatch(literal);
  });

  it('leaves procedures without schemas of their own: they import them from @mgpu/shared', () => {
    const schemaCall = /\bz\.(object|array|enum|union)\(/;
    const defining = files.filter(
      (file) => file.startsWith(PROCEDURES) && schemaCall.test(textOf(file)),
    );
    expect(defining.map((file) => relative(PROCEDURES, file))).toEqual([]);
  });
});
