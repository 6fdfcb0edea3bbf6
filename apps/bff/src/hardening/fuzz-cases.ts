/**
 * The hostile inputs and the judging of the HTTP fuzzing (`fuzz.test.ts`, issue 14): JSON text no
 * well-behaved client sends, put into a procedure's own input at any place, and what counts as a
 * well-formed answer to it.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Answer, StreamStart } from './hardening-support.js';

// ---------------------------------------------------------------------------------------------
// Hostile JSON, generated as text: some of it (1e999, duplicate or prototype keys) has no
// JavaScript value that JSON.stringify would write.

export const HOSTILE_NUMBERS = [
  '1e308',
  '-1e308',
  '1e999',
  '-1e999',
  '-0',
  '5e-324',
  '1e-400',
  '9007199254740993',
  '123456789012345678901234567890',
  '1000000000',
  '2147483648',
  '-1',
  '0.1',
  '1.5',
];

export const HOSTILE_STRINGS = [
  'NaN',
  'Infinity',
  '-Infinity',
  '-0',
  '1e308',
  '0x10',
  '__proto__',
  'constructor',
  'prototype',
  '\u0000',
  'a\u0000b',
  '\u0007\u001b[31m',
  '\u200b',
  'nginx\u200b:1.27',
  '\u200d\u2060\ufeff',
  '\u202e\u2066evil\u2069',
  '\r\n',
  'name\nInjected: header',
  '\u2028\u2029',
  '\ud800',
  '\udfff\ud800',
  '💥',
  'é',
  'ｋｕｂｅ',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log-injection probe, sent as typed
  '${jndi:ldap://x}',
  "'; DROP TABLE x; --",
  '%00%0d%0a',
  'kube-system',
  'default',
  '',
  ' ',
];

/** Replica counts as a script might send them: huge, negative, fractional, as text, or no number. */
export const replicasText = fc.oneof(
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom('0', '1', '3', '1.0', '0.5', '2147483647', '4294967296', '-2147483648', '1e9'),
  fc.integer().map(String),
  fc.double().map((value) => (Number.isFinite(value) ? JSON.stringify(value) : 'null')),
  fc.constantFrom(
    '"3"',
    '"1e9"',
    '"-1"',
    '"1.5"',
    '"0x10"',
    '""',
    'null',
    'true',
    '[]',
    '{}',
    '[3]',
  ),
);

export const PROTOTYPE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
];

export const jsonString = (value: string) => JSON.stringify(value);

/** A very long string (1 KB – 300 KB): repeating one character, so generating it is cheap. */
export const longString = fc
  .tuple(
    fc.constantFrom('a', '-', '\u200b', 'é', '\n', '0'),
    fc.integer({ min: 1_000, max: 300_000 }),
  )
  .map(([character, length]) => jsonString(character.repeat(length)));

/** Nesting deep enough to hurt a recursive walker, small enough to stay within the body limit. */
export const deepNesting = fc
  .tuple(fc.integer({ min: 50, max: 5_000 }), fc.constantFrom('array', 'object'))
  .map(([depth, shape]) =>
    shape === 'array'
      ? `${'['.repeat(depth)}${']'.repeat(depth)}`
      : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
  );

/** A hostile string as JSON text: one of the list, arbitrary code points, or very long. */
export const hostileStringText = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS).map(jsonString),
  fc.constantFrom(...HOSTILE_STRINGS).map((value) => jsonString(`demo${value}`)),
  fc.string({ unit: 'binary', maxLength: 40 }).map(jsonString),
  longString,
);

export const leafText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom(...HOSTILE_STRINGS).map(jsonString),
  fc.string({ unit: 'binary', maxLength: 40 }).map(jsonString),
  fc.constantFrom('null', 'true', 'false', '{}', '[]'),
  fc.double().map((value) => (Number.isFinite(value) ? JSON.stringify(value) : 'null')),
  fc.integer().map(String),
);

export const { hostile } = fc.letrec<{ hostile: string; object: string; array: string }>((tie) => ({
  hostile: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leafText,
    tie('object'),
    tie('array'),
    longString,
    deepNesting,
    fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  ),
  object: fc
    .array(
      fc.tuple(
        fc.oneof(fc.constantFrom(...PROTOTYPE_KEYS), fc.string({ maxLength: 12 })),
        tie('hostile'),
      ),
      { maxLength: 4 },
    )
    .map(
      (entries) => `{${entries.map(([key, value]) => `${jsonString(key)}:${value}`).join(',')}}`,
    ),
  array: fc.array(tie('hostile'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
}));

/** Every place in a JSON value where a hostile part can go: the root, each key, each item. */
export function holesOf(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const holes = [at];
  // Arrays too: their entries are keyed '0', '1', … which index them as well.
  if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) holes.push(...holesOf(item, [...at, key]));
  return holes;
}

export const valueAt = (value: unknown, hole: (string | number)[]): unknown =>
  hole.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)?.[key], value);

export const HOLE = '@@hostile-part@@';

/** The template as JSON text with the part at `hole` replaced by `part` (JSON text itself). */
export function withHostilePart(
  template: unknown,
  hole: (string | number)[],
  part: string,
): string {
  if (hole.length === 0) return part;
  const copy = structuredClone(template) as Record<string | number, unknown>;
  let node = copy;
  for (const key of hole.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[hole[hole.length - 1] as string | number] = HOLE;
  return JSON.stringify(copy).replace(jsonString(HOLE), () => part);
}

/** Prototype keys at the top of an object input, beside its real fields. */
export const withPrototypeKeys = (text: string) =>
  text.startsWith('{') && text !== '{}'
    ? `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},${text.slice(1)}`
    : text;

export interface FuzzCase {
  path: string;
  inputText: string | undefined;
  /** Sent as a batch of one (`?batch=1`), as tRPC's `httpBatchLink` does. */
  batch: boolean;
}

export const describeCase = (fuzz: FuzzCase, status: number, text: string) =>
  `${fuzz.path}${fuzz.batch ? ' (batch)' : ''} with ${JSON.stringify(fuzz.inputText?.slice(0, 300))} → ${status} ${text.slice(0, 500)}`;

/** A 4xx, or a 2xx that is a tRPC result (a batch answers with an array of them). */
export function expectWellFormed(fuzz: FuzzCase, answer: Answer): void {
  const what = describeCase(fuzz, answer.status, answer.text);
  expect(answer.status, what).toBeGreaterThanOrEqual(200);
  expect(answer.status, what).toBeLessThan(500);
  expect(answer.status >= 300 && answer.status < 400, what).toBe(false);
  if (answer.status >= 400) return;
  expect(answer.contentType, what).toContain('application/json');
  const body = JSON.parse(answer.text) as unknown;
  const first = fuzz.batch ? (body as unknown[])[0] : body;
  expect(first, what).toHaveProperty('result');
}

/** A 4xx before the stream, or a stream that opens with `connected` and sends no server error. */
export function expectWellFormedStream(fuzz: FuzzCase, answer: StreamStart): void {
  const what = describeCase(fuzz, answer.status, answer.text);
  expect(answer.status, what).toBeGreaterThanOrEqual(200);
  expect(answer.status, what).toBeLessThan(500);
  if (answer.status >= 400) return;
  expect(answer.status, what).toBe(200);
  expect(answer.contentType, what).toContain('text/event-stream');
  expect(answer.events[0], what).toBe('connected');
  answer.events.forEach((event, index) => {
    if (event !== 'serialized-error') return;
    // An error after the stream opened is fine when it is the input's fault, not the server's.
    const shape = JSON.parse(answer.data[index] ?? '{}') as { data?: { httpStatus?: number } };
    expect(shape.data?.httpStatus ?? 500, what).toBeLessThan(500);
  });
}
