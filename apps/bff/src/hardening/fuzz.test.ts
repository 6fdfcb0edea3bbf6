/**
 * Property-based HTTP fuzzing of every procedure's input (issue 14): arbitrary JSON and hostile
 * values — huge numbers, -0, NaN as text, unicode controls, zero-width and bidi characters,
 * newlines, prototype keys, deep nesting, very long strings — sent the way spec §7 says scripts
 * call the BFF: queries over GET `?input=`, mutations over POST from the console's Origin,
 * subscriptions over GET as server-sent events (a short read).
 *
 * Every answer must be a 4xx or a well-formed 2xx: never a 5xx, never a hang (each call is
 * bounded by an AbortSignal), and the server keeps serving — `/healthz` after each batch, its
 * memory bounded at the end, and `Object.prototype` untouched.
 *
 * The cases come from a fixed seed, so a failure repeats run after run; `MGPU_FUZZ_SEED=<n>`
 * draws other cases, and a failure names the seed that found it.
 */
import { AppsV1Api } from '@kubernetes/client-node';
import { MAX_REPLICAS } from '@mgpu/shared';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appRouter } from '../router.js';
import { type BffHarness, seedRequest, startHarness } from '../test-support/bff-harness.js';
import {
  type Answer,
  exchange,
  MiB,
  openStream,
  queryUrl,
  retainedBytes,
  type StreamStart,
} from './hardening-support.js';

/** The seed every property draws its cases from (one per batch, counted from it). */
const DEFAULT_FUZZ_SEED = 1414;
const FUZZ_SEED = fuzzSeed(process.env.MGPU_FUZZ_SEED);

function fuzzSeed(text: string | undefined): number {
  if (text === undefined || text.trim() === '') return DEFAULT_FUZZ_SEED;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed))
    throw new Error(`MGPU_FUZZ_SEED must be an integer, not ${text}`);
  return seed;
}

/** A live workload that fuzzed `workload.scale` and `workload.update` calls aim at. */
const TARGET = 'fuzz-target';
/** The target's resourceVersion as last seen: an update from it reaches the rules. */
let targetVersion = '';

let harness: BffHarness;
let apps: AppsV1Api;
let retainedAtStart = 0;
beforeAll(async () => {
  harness = await startHarness();
  apps = harness.adminKubeConfig.makeApiClient(AppsV1Api);
  const target = await harness.caller.workload.create({
    request: seedRequest(TARGET, { replicas: 0 }),
    lang: 'en',
  });
  targetVersion = String(
    (target.deployment.metadata as { resourceVersion?: string } | undefined)?.resourceVersion,
  );
  retainedAtStart = retainedBytes();
});
afterAll(async () => {
  await harness?.close();
});

type ProcedureType = 'query' | 'mutation' | 'subscription';

/** Every procedure of the router, by its wire name: new procedures are fuzzed without a change here. */
const PROCEDURES = Object.entries(
  appRouter._def.procedures as unknown as Record<string, { _def: { type: ProcedureType } }>,
).map(([path, procedure]) => ({ path, type: procedure._def.type }));
const pathsOf = (type: ProcedureType) =>
  PROCEDURES.filter((p) => p.type === type).map((p) => p.path);

/** The procedure names of spec §7/§8 that outside scripts use; all of them are fuzzed. */
const SPEC_PROCEDURES = [
  'workload.preview',
  'workload.create',
  'workload.delete',
  'workload.get',
  'workload.list',
  'workload.progress',
  'cluster.summary',
  'cluster.nodes',
  'gpu.models',
  'allocations.watch',
];

// ---------------------------------------------------------------------------------------------
// Hostile JSON, generated as text: some of it (1e999, duplicate or prototype keys) has no
// JavaScript value that JSON.stringify would write.

const HOSTILE_NUMBERS = [
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

const HOSTILE_STRINGS = [
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
const replicasText = fc.oneof(
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

const PROTOTYPE_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'];

const jsonString = (value: string) => JSON.stringify(value);

/** A very long string (1 KB – 300 KB): repeating one character, so generating it is cheap. */
const longString = fc
  .tuple(
    fc.constantFrom('a', '-', '\u200b', 'é', '\n', '0'),
    fc.integer({ min: 1_000, max: 300_000 }),
  )
  .map(([character, length]) => jsonString(character.repeat(length)));

/** Nesting deep enough to hurt a recursive walker, small enough to stay within the body limit. */
const deepNesting = fc
  .tuple(fc.integer({ min: 50, max: 5_000 }), fc.constantFrom('array', 'object'))
  .map(([depth, shape]) =>
    shape === 'array'
      ? `${'['.repeat(depth)}${']'.repeat(depth)}`
      : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
  );

/** A hostile string as JSON text: one of the list, arbitrary code points, or very long. */
const hostileStringText = fc.oneof(
  fc.constantFrom(...HOSTILE_STRINGS).map(jsonString),
  fc.constantFrom(...HOSTILE_STRINGS).map((value) => jsonString(`demo${value}`)),
  fc.string({ unit: 'binary', maxLength: 40 }).map(jsonString),
  longString,
);

const leafText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...HOSTILE_NUMBERS),
  fc.constantFrom(...HOSTILE_STRINGS).map(jsonString),
  fc.string({ unit: 'binary', maxLength: 40 }).map(jsonString),
  fc.constantFrom('null', 'true', 'false', '{}', '[]'),
  fc.double().map((value) => (Number.isFinite(value) ? JSON.stringify(value) : 'null')),
  fc.integer().map(String),
);

const { hostile } = fc.letrec<{ hostile: string; object: string; array: string }>((tie) => ({
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

// ---------------------------------------------------------------------------------------------
// Inputs shaped like each procedure's own, with one part replaced by something hostile: they get
// past the first type check and reach the rules, the cluster reads and the manifest builder.

let fuzzNames = 0;

/** A plausible input of the procedure (what a script would send). */
function templateOf(path: string): unknown {
  const name = `fuzz-${++fuzzNames}`;
  switch (path) {
    case 'workload.preview':
    case 'workload.create':
      return fuzzNames % 2 === 0
        ? { request: seedRequest(name), lang: 'en', clientRequestId: name }
        : seedRequest(name);
    case 'workload.scale':
      return { namespace: 'default', name: TARGET, replicas: 1, kind: 'Deployment', lang: 'en' };
    case 'workload.update':
      return {
        namespace: 'default',
        name: TARGET,
        resourceVersion: targetVersion,
        request: seedRequest(TARGET, { replicas: 1 }),
        lang: 'en',
      };
    case 'allocations.watch':
      return { namespace: 'default', workload: name, node: 'node-0', pod: `${name}-0` };
    case 'cluster.nodes':
      return { pool: 'NVIDIA-L20/native-burst-share', node: 'node-0' };
    case 'cluster.summary':
    case 'cluster.layout':
    case 'gpu.models':
    case 'workload.list':
      return {};
    default:
      // workload.get, .delete, .progress and whatever refers to one workload.
      return { namespace: 'default', name, force: false };
  }
}

/** Every place in a JSON value where a hostile part can go: the root, each key, each item. */
function holesOf(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  const holes = [at];
  // Arrays too: their entries are keyed '0', '1', … which index them as well.
  if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) holes.push(...holesOf(item, [...at, key]));
  return holes;
}

const valueAt = (value: unknown, hole: (string | number)[]): unknown =>
  hole.reduce<unknown>((node, key) => (node as Record<string | number, unknown>)?.[key], value);

const HOLE = '@@hostile-part@@';

/** The template as JSON text with the part at `hole` replaced by `part` (JSON text itself). */
function withHostilePart(template: unknown, hole: (string | number)[], part: string): string {
  if (hole.length === 0) return part;
  const copy = structuredClone(template) as Record<string | number, unknown>;
  let node = copy;
  for (const key of hole.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[hole[hole.length - 1] as string | number] = HOLE;
  return JSON.stringify(copy).replace(jsonString(HOLE), () => part);
}

/** Prototype keys at the top of an object input, beside its real fields. */
const withPrototypeKeys = (text: string) =>
  text.startsWith('{') && text !== '{}'
    ? `{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},${text.slice(1)}`
    : text;

interface FuzzCase {
  path: string;
  inputText: string | undefined;
  /** Sent as a batch of one (`?batch=1`), as tRPC's `httpBatchLink` does. */
  batch: boolean;
}

function casesFor(paths: string[]): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      path: fc.constantFrom(...paths),
      how: fc.constantFrom(
        'typed',
        'typed',
        'shaped',
        'shaped',
        'prototype-keys',
        'whole',
        'absent',
      ),
      holeChoice: fc.nat(),
      part: hostile,
      typed: fc.record({ string: hostileStringText, number: fc.constantFrom(...HOSTILE_NUMBERS) }),
      batch: fc.boolean(),
    })
    .map(({ path, how, holeChoice, part: anyPart, typed, batch }) => {
      const template = templateOf(path);
      const holes = holesOf(template);
      const hole = holes[holeChoice % holes.length] ?? [];
      // `typed`: a hostile value of the type the field has, so it passes the schema and meets the rules.
      const leaf = valueAt(template, hole);
      const part =
        how !== 'typed'
          ? anyPart
          : typeof leaf === 'string'
            ? typed.string
            : typeof leaf === 'number'
              ? typed.number
              : anyPart;
      const inputText =
        how === 'absent'
          ? undefined
          : how === 'whole'
            ? part
            : how === 'prototype-keys'
              ? withPrototypeKeys(withHostilePart(template, hole, part))
              : withHostilePart(template, hole, part);
      return { path, inputText, batch };
    });
}

// ---------------------------------------------------------------------------------------------
// Sending and judging.

const batchUrl = (base: string, path: string, inputText: string | undefined) =>
  `${base}/trpc/${path}?batch=1${inputText === undefined ? '' : `&input=${encodeURIComponent(`{"0":${inputText}}`)}`}`;

function send(type: 'query' | 'mutation', fuzz: FuzzCase): Promise<Answer> {
  const { path, inputText, batch } = fuzz;
  if (type === 'query')
    return exchange(
      batch ? batchUrl(harness.url, path, inputText) : queryUrl(harness.url, path, inputText),
    );
  const body = inputText === undefined ? '' : batch ? `{"0":${inputText}}` : inputText;
  return exchange(`${harness.url}/trpc/${path}${batch ? '?batch=1' : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: harness.url },
    body,
  });
}

const describeCase = (fuzz: FuzzCase, status: number, text: string) =>
  `${fuzz.path}${fuzz.batch ? ' (batch)' : ''} with ${JSON.stringify(fuzz.inputText?.slice(0, 300))} → ${status} ${text.slice(0, 500)}`;

/** A 4xx, or a 2xx that is a tRPC result (a batch answers with an array of them). */
function expectWellFormed(fuzz: FuzzCase, answer: Answer): void {
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
function expectWellFormedStream(fuzz: FuzzCase, answer: StreamStart): void {
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

/** Removes what a fuzzed create made (a valid request can slip through): it must not pile up. */
async function removeCreated(fuzz: FuzzCase, answer: Answer): Promise<void> {
  if (fuzz.path !== 'workload.create' || answer.status >= 300) return;
  const body = JSON.parse(answer.text) as unknown;
  const result = (fuzz.batch ? (body as unknown[])[0] : body) as {
    result?: { data?: { namespace?: string; name?: string } };
  };
  const { namespace, name } = result.result?.data ?? {};
  if (namespace && name)
    await apps
      .deleteNamespacedDeployment({ namespace, name, propagationPolicy: 'Background' })
      .catch(() => undefined);
}

/**
 * After a fuzzed scale or update the target got through, its replicas go back to none (a valid
 * count can be large: its pods must not pile up) and its new version is the next template's.
 */
async function restoreTarget(fuzz: FuzzCase, answer: Answer): Promise<void> {
  if ((fuzz.path !== 'workload.scale' && fuzz.path !== 'workload.update') || answer.status >= 300)
    return;
  const restored = await apps
    .patchNamespacedDeployment({
      namespace: 'default',
      name: TARGET,
      body: [{ op: 'replace', path: '/spec/replicas', value: 0 }],
    })
    .catch(() => undefined);
  targetVersion = restored?.metadata?.resourceVersion ?? targetVersion;
}

async function expectHealthy(): Promise<void> {
  const health = await exchange(`${harness.url}/healthz`);
  expect(health.status).toBe(200);
}

/** Runs in batches of this many cases, with `/healthz` asked between batches. */
const BATCH = 20;

async function fuzzInBatches<T extends [unknown]>(
  runs: number,
  property: () => fc.IAsyncPropertyWithHooks<T>,
): Promise<void> {
  for (let done = 0; done < runs; done += BATCH) {
    // endOnFailure: the first counterexample is reported as it is; shrinking one over HTTP
    // could take longer than the rest of the suite.
    const seed = FUZZ_SEED + done / BATCH;
    try {
      await fc.assert(property(), {
        numRuns: Math.min(BATCH, runs - done),
        endOnFailure: true,
        seed,
      });
    } catch (error) {
      throw new Error(
        `${error instanceof Error ? error.message : String(error)}\n` +
          `Fuzz seed ${FUZZ_SEED} (this batch: ${seed}); repeat with MGPU_FUZZ_SEED=${FUZZ_SEED}.`,
        { cause: error },
      );
    }
    await expectHealthy();
  }
}

describe('fuzzing every procedure over HTTP (issue 14)', () => {
  it('covers every procedure name of spec §7 and §8 that the router has', () => {
    const names = PROCEDURES.map((procedure) => procedure.path);
    for (const name of SPEC_PROCEDURES) expect(names).toContain(name);
  });

  it('answers fuzzed queries (GET ?input=) with a 4xx or a result', async () => {
    await fuzzInBatches(80, () =>
      fc.asyncProperty(casesFor(pathsOf('query')), async (fuzz) => {
        expectWellFormed(fuzz, await send('query', fuzz));
      }),
    );
  });

  it('answers fuzzed mutations (POST from the console Origin) with a 4xx or a result', async () => {
    await fuzzInBatches(60, () =>
      fc.asyncProperty(casesFor(pathsOf('mutation')), async (fuzz) => {
        const answer = await send('mutation', fuzz);
        await removeCreated(fuzz, answer);
        await restoreTarget(fuzz, answer);
        expectWellFormed(fuzz, answer);
      }),
    );
  });

  it('answers workload.scale and workload.update of a live workload, whatever its replicas, with a 4xx or a whole count', async () => {
    await fuzzInBatches(40, () =>
      fc.asyncProperty(
        fc.record({
          path: fc.constantFrom('workload.scale', 'workload.update'),
          replicas: replicasText,
          batch: fc.boolean(),
        }),
        async ({ path, replicas, batch }) => {
          const hole = path === 'workload.scale' ? ['replicas'] : ['request', 'replicas'];
          const fuzz = {
            path,
            inputText: withHostilePart(templateOf(path), hole, replicas),
            batch,
          };
          const answer = await send('mutation', fuzz);
          await restoreTarget(fuzz, answer);
          expectWellFormed(fuzz, answer);
          if (answer.status >= 300) return;
          // Taken: then it was a whole count Kubernetes can hold (int32), never text or a fraction.
          const sent = JSON.parse(replicas) as unknown;
          expect(
            typeof sent === 'number' && Number.isInteger(sent) && sent >= 0 && sent <= MAX_REPLICAS,
            describeCase(fuzz, answer.status, answer.text),
          ).toBe(true);
        },
      ),
    );
  });

  it('answers fuzzed subscriptions (GET, server-sent events) with a 4xx or a stream that opens', async () => {
    await fuzzInBatches(40, () =>
      fc.asyncProperty(casesFor(pathsOf('subscription')), async (fuzz) => {
        const url = queryUrl(harness.url, fuzz.path, fuzz.inputText);
        expectWellFormedStream({ ...fuzz, batch: false }, await openStream(url, 300));
      }),
    );
  });

  it('answers any procedure called the wrong way (method, content type, raw bytes) with a 4xx', async () => {
    const wrongWay = fc.record({
      // Not `%2e%2e`: the WHATWG URL parser reads it as `..` and sends `/`, the app's own page.
      path: fc.constantFrom(...PROCEDURES.map((procedure) => procedure.path), 'no.such'),
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE'),
      contentType: fc.constantFrom(
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        '',
      ),
      body: fc.oneof(hostile, fc.string({ unit: 'binary', maxLength: 200 })),
    });
    await fuzzInBatches(20, () =>
      fc.asyncProperty(wrongWay, async ({ path, method, contentType, body }) => {
        const procedure = PROCEDURES.find((p) => p.path === path);
        // Skip the right way: that is what the properties above send.
        fc.pre(
          !(
            procedure?.type === 'mutation' &&
            method === 'POST' &&
            contentType === 'application/json'
          ),
        );
        fc.pre(!(procedure !== undefined && procedure.type !== 'mutation' && method === 'GET'));
        // Queries may come as POST too (the web app's large previews: tRPC's method override).
        fc.pre(
          !(
            procedure?.type === 'query' &&
            method === 'POST' &&
            (contentType === 'application/json' || contentType === '')
          ),
        );
        const answer = await exchange(`${harness.url}/trpc/${path}`, {
          method,
          headers: { origin: harness.url, ...(contentType ? { 'content-type': contentType } : {}) },
          ...(method === 'GET' ? {} : { body }),
        });
        const what = `${method} ${path} (${contentType}) ${JSON.stringify(body.slice(0, 200))} → ${answer.status} ${answer.text.slice(0, 300)}`;
        expect(answer.status, what).toBeGreaterThanOrEqual(400);
        expect(answer.status, what).toBeLessThan(500);
      }),
    );
  });

  // Counterexamples the properties above found, pinned so they are checked on every run.
  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])(
    'refuses a subscription called with %s instead of streaming it (found by fuzzing)',
    async (method) => {
      const answer = await exchange(`${harness.url}/trpc/allocations.watch`, {
        method,
        headers: { origin: harness.url, 'content-type': 'application/json' },
        body: '[]',
      });
      expect(answer.contentType).not.toContain('text/event-stream');
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
    },
  );

  it.each([
    ['workload.delete', '{"namespace":"demo\\udfff\\ud800","name":"fuzz-x"}'],
    ['workload.get', '{"namespace":"default","name":"demo\\ud800"}'],
    ['workload.delete', '{"namespace":"default","name":"a/../../b"}'],
  ])(
    'answers %s of a name no URL can carry (%s) with a 4xx (found by fuzzing)',
    async (path, input) => {
      const answer =
        path === 'workload.get'
          ? await exchange(queryUrl(harness.url, path, input))
          : await send('mutation', { path, inputText: input, batch: false });
      expect(answer.status, answer.text.slice(0, 300)).toBeGreaterThanOrEqual(400);
      expect(answer.status, answer.text.slice(0, 300)).toBeLessThan(500);
    },
  );

  it('keeps serving with its memory bounded and Object.prototype untouched', async () => {
    await expectHealthy();
    const models = await exchange(queryUrl(harness.url, 'gpu.models', '{}'));
    expect(models.status).toBe(200);
    expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // Generous: a bound against a leak or a runaway buffer, not a measurement.
    expect(retainedBytes() - retainedAtStart).toBeLessThan(300 * MiB);
  });
});
