import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('..', import.meta.url));
/** Each language's own name stays in itself on the switch, whatever the current language. */
const ALLOWED = new Set(['中文']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'i18n' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

describe('UI text', () => {
  it('comes from the catalogs: no Chinese text outside src/i18n', () => {
    const found: string[] = [];
    for (const file of sourceFiles(src)) {
      for (const [line, text] of readFileSync(file, 'utf8').split('\n').entries()) {
        if (/^(\/\/|\/?\*)/.test(text.trim())) continue;
        for (const match of text.matchAll(/[\u3000-\u9fff\uff00-\uffef]+/g))
          if (!ALLOWED.has(match[0])) found.push(`${relative(src, file)}:${line + 1}: ${match[0]}`);
      }
    }
    expect(found).toEqual([]);
  });
});
