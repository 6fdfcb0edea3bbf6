/**
 * The BFF over plain HTTP (spec §7): queries and mutations as scripts send them, the web app,
 * input errors and large previews.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { type ErrorBody, plainCalls, rawGet } from './http-support.js';
import { seedRequest, startBffTest, startHarness, uniqueName } from './test-support/bff-harness.js';

const harness = startBffTest();
const { query, mutate } = plainCalls(harness);
let origin: string;
beforeAll(() => {
  origin = harness.url;
});

describe('plain JSON over HTTP (spec §7)', () => {
  it('answers a query with GET and ?input=, with security headers and a request id', async () => {
    const response = await query('workload.preview', {
      request: seedRequest(uniqueName('http')),
      lang: 'en',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const body = (await response.json()) as {
      result: { data: { valid: boolean; containers: { perCard: unknown }[] } };
    };
    expect(body.result.data.valid).toBe(true);
    expect(body.result.data.containers[0]?.perCard).toEqual({
      computePercent: 60,
      memoryMiB: 4096,
    });
  });

  it('creates with a POST, refuses a duplicate with the rule id and path, deletes', async () => {
    const name = uniqueName('http');
    const input = (clientRequestId: string) =>
      JSON.stringify({ request: seedRequest(name), clientRequestId, lang: 'en' });
    const created = await mutate('workload.create', input('first'));
    expect(created.status).toBe(200);
    const duplicate = await mutate('workload.create', input('second'));
    expect(duplicate.status).toBe(409);
    const body = (await duplicate.json()) as ErrorBody;
    expect(body.error.data?.ruleErrors).toMatchObject([{ path: 'name', rule: 'name-taken' }]);
    const deleted = await mutate('workload.delete', JSON.stringify({ namespace: 'default', name }));
    expect(deleted.status).toBe(200);
  });

  it('refuses an invalid request with every failing rule, and creates nothing', async () => {
    const name = uniqueName('http');
    const request = seedRequest(
      name,
      {},
      { type: 'mgpu', multiCard: true, compute: '1', memoryGiB: '12', cards: 3 },
    );
    const response = await mutate(
      'workload.create',
      JSON.stringify({ request, clientRequestId: 'x', lang: 'zh-CN' }),
    );
    expect(response.status).toBe(400);
    const body = (await response.json()) as ErrorBody;
    expect(body.error.data?.ruleErrors).toMatchObject([
      { path: 'containers.0.gpu.compute', rule: 'per-card-compute-precision' },
    ]);
    const list = (await (await query('workload.list', {})).json()) as {
      result: { data: { name: string }[] };
    };
    expect(list.result.data.some((workload) => workload.name === name)).toBe(false);
  });

  // `origin` is only known once the server listens, so the table names it.
  it.each([
    ['malformed JSON', '{"request": ', 'same', 400],
    [
      'wrong types',
      JSON.stringify({ request: { name: 5, containers: 'none' }, clientRequestId: 'x' }),
      'same',
      400,
    ],
    ['a missing Origin', JSON.stringify({ namespace: 'default', name: 'x' }), 'none', 403],
    [
      'a foreign Origin',
      JSON.stringify({ namespace: 'default', name: 'x' }),
      'http://evil.example',
      403,
    ],
    ['an oversized body', JSON.stringify({ pad: 'x'.repeat(2 * 1024 * 1024) }), 'same', 413],
  ])('answers %s with a 4xx and keeps serving', async (_label, body, sentOrigin, status) => {
    const procedure = status === 403 ? 'workload.delete' : 'workload.create';
    const headers: Record<string, string> =
      sentOrigin === 'none' ? {} : { origin: sentOrigin === 'same' ? origin : sentOrigin };
    const response = await mutate(procedure, body, headers);
    expect(response.status).toBe(status);
    expect((await fetch(`${harness.url}/healthz`)).status).toBe(200);
    expect((await query('gpu.models', {})).status).toBe(200);
  });

  it('guards tRPC however the path is spelt, and refuses other Host names (DNS rebinding)', async () => {
    const encoded = await fetch(`${harness.url}/%74rpc/workload.delete`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ namespace: 'default', name: 'x' }),
    });
    expect(encoded.status).toBe(403);
    const rebound = await rawGet(`${harness.url}/trpc/gpu.models`, { host: 'evil.example' });
    expect(rebound.status).toBe(421);
    expect(
      (await rawGet(`${harness.url}/trpc/gpu.models`, { host: new URL(harness.url).host })).status,
    ).toBe(200);
  });

  it.each([
    ['allocations.watch', '{"namespace":5}'],
    ['allocations.watch', 'not json'],
    ['workload.progress', '{}'],
  ])(
    'answers a subscription (%s) with bad input %s with 400 before any stream',
    async (procedure, input) => {
      const response = await fetch(
        `${harness.url}/trpc/${procedure}?input=${encodeURIComponent(input)}`,
      );
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toContain('application/json');
    },
  );

  it('is ready when the cluster answers', async () => {
    const ready = (await (await fetch(`${harness.url}/readyz`)).json()) as {
      ready: boolean;
      version: string;
    };
    expect(ready).toMatchObject({ ready: true });
  });
});

describe('the bare request of spec §7 as the input', () => {
  it('previews, creates, refuses the duplicate and deletes with the request itself as input', async () => {
    const name = uniqueName('bare');
    const request = seedRequest(name);
    const preview = await query('workload.preview', request);
    expect(preview.status).toBe(200);
    const previewBody = (await preview.json()) as {
      result: { data: { valid: boolean; placement: { replicas: { ok: boolean }[] } } };
    };
    expect(previewBody.result.data.valid).toBe(true);
    expect(previewBody.result.data.placement.replicas[0]?.ok).toBe(true);

    const created = await mutate('workload.create', JSON.stringify(request));
    expect(created.status).toBe(200);
    const createdBody = (await created.json()) as {
      result: {
        data: { created: boolean; deployment: { kind: string; metadata: { name: string } } };
      };
    };
    expect(createdBody.result.data.created).toBe(true);
    expect(createdBody.result.data.deployment).toMatchObject({
      kind: 'Deployment',
      metadata: { name },
    });

    const duplicate = await mutate('workload.create', JSON.stringify(request));
    expect(duplicate.status).toBe(409);
    expect(((await duplicate.json()) as ErrorBody).error.data?.ruleErrors).toMatchObject([
      { path: 'name', rule: 'name-taken' },
    ]);
    const invalid = await mutate(
      'workload.create',
      JSON.stringify({ ...request, name: 'Not_Valid' }),
    );
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as ErrorBody).error.data?.ruleErrors).toMatchObject([
      { path: 'name', rule: 'name-format' },
    ]);
    expect(
      (await mutate('workload.delete', JSON.stringify({ namespace: 'default', name }))).status,
    ).toBe(200);
  });
});

describe('the web app', () => {
  it('serves hashed assets precompressed and cached for good, pages fresh, and a rebuild without a restart', async () => {
    const webRoot = await mkdtemp(join(tmpdir(), 'mgpu-web-'));
    await mkdir(join(webRoot, 'assets'));
    await writeFile(join(webRoot, 'index.html'), '<!doctype html><title>console</title>');
    const script = 'console.log(1);'.repeat(2000);
    await writeFile(join(webRoot, 'assets', 'app-Ab12.js'), script);
    // What the build writes beside each asset; the console sends it as it is.
    await writeFile(join(webRoot, 'assets', 'app-Ab12.js.gz'), gzipSync(script));
    const served = await startHarness({ webRoot });
    try {
      const page = await fetch(`${served.url}/workloads/new`, { headers: { accept: 'text/html' } });
      expect(await page.text()).toContain('<title>console</title>');
      expect(page.headers.get('cache-control')).toBe('no-cache');

      const asset = await fetch(`${served.url}/assets/app-Ab12.js`, {
        headers: { 'accept-encoding': 'gzip' },
      });
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(asset.headers.get('content-encoding')).toBe('gzip');
      expect(await asset.text()).toBe(script);

      // A rebuild writes new hashed names while the console runs.
      await writeFile(join(webRoot, 'assets', 'app-Cd34.js'), 'console.log(2);');
      expect((await fetch(`${served.url}/assets/app-Cd34.js`)).status).toBe(200);
      expect((await fetch(`${served.url}/assets/gone-Zz99.js`)).status).toBe(404);
    } finally {
      await served.close();
      await rm(webRoot, { recursive: true, force: true });
    }
  });
});

describe('input errors', () => {
  it('answers a mistyped input with one sentence and rule errors per field, not a zod dump', async () => {
    const response = await query('workload.get', { namespace: 7, name: 'Not_A_Name' });
    expect(response.status).toBe(400);
    const body = (await response.json()) as ErrorBody & {
      error: { data?: { ruleErrors?: { path: string; message: string; fix?: string }[] } };
    };
    expect(body.error.message).toMatch(/^The input of workload\.get is not valid: namespace: /);
    expect(body.error.message).not.toContain('[');
    expect(body.error.data?.ruleErrors).toMatchObject([
      { path: 'namespace', rule: 'invalid-input' },
      { path: 'name', rule: 'invalid-input' },
    ]);
    for (const error of body.error.data?.ruleErrors ?? []) expect(error.fix).toBeTruthy();
  });
});

describe('subscription inputs', () => {
  it('checks the input of a batched subscription as strictly as an unbatched one', async () => {
    const get = (procedure: string, input: unknown, batch = true) =>
      fetch(
        `${harness.url}/trpc/${procedure}?${batch ? 'batch=1&' : ''}input=${encodeURIComponent(JSON.stringify(input))}`,
      );
    const badBatched = await get('allocations.watch', { 0: { namespace: 5 } });
    expect(badBatched.status).toBe(400);
    expect(((await badBatched.json()) as ErrorBody).error.message).toMatch(/namespace/);
    expect((await get('workload.progress', { 0: { namespace: 5 } })).status).toBe(400);
    expect((await get('allocations.watch', { 1: {} })).status).toBe(400);
    expect((await get('allocations.watch', { namespace: 5 }, false)).status).toBe(400);
    const good = await get('allocations.watch', { 0: { workload: 'x' } });
    expect(good.status).toBe(200);
    await good.body?.cancel();
  });
});

describe('large previews', () => {
  it('answers a preview of 80 containers as POST, batched or not, and small ones still by GET', async () => {
    const containers = Array.from({ length: 80 }, (_, index) => ({
      name: `worker-${index}`,
      image: 'registry.example.com/team/inference-server:2024-06-01',
      gpu: { type: 'none' as const, multiCard: false },
    }));
    const input = { request: seedRequest(uniqueName('wide'), { containers }), lang: 'en' };
    const plain = await mutate('workload.preview', JSON.stringify(input));
    expect(plain.status).toBe(200);
    const batched = await fetch(`${harness.url}/trpc/workload.preview?batch=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin },
      body: JSON.stringify({ 0: input }),
    });
    expect(batched.status).toBe(200);
    const [first] = (await batched.json()) as { result: { data: { errors: unknown[] } } }[];
    expect(Array.isArray(first?.result.data.errors)).toBe(true);
    const small = await query('workload.preview', {
      request: seedRequest(uniqueName('small')),
      lang: 'en',
    });
    expect(small.status).toBe(200);
  });
});
