/**
 * Bad input over raw HTTP: each request gets the proper Status, the server keeps serving and
 * the stored state is exactly as before.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type RawResponse,
  startTestCluster,
  type TestCluster,
  UNSCHEDULED,
} from './test-cluster.js';

// A real cluster (MGPU_TEST_KUBECONFIG) answers slower than the sim.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let cluster: TestCluster;
let namespace: string;
let podsPath: string;

const validPod = (name: string): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { schedulerName: UNSCHEDULED, containers: [{ name: 'worker', image: 'nginx:1.27' }] },
  });

beforeAll(async () => {
  cluster = await startTestCluster();
  namespace = await cluster.createNamespace('bad-input');
  podsPath = `/api/v1/namespaces/${namespace}/pods`;
  const created = await cluster.request('POST', podsPath, {
    body: validPod('existing'),
    contentType: 'application/json',
  });
  expect(created.status).toBe(201);
});

afterAll(async () => {
  await cluster.close();
});

/** The namespace's pods as stored, to compare before and after a bad request. */
async function podsSnapshot(): Promise<string> {
  const list = (await cluster.request('GET', podsPath)).json() as {
    items: { metadata: { name: string; resourceVersion: string } }[];
  };
  return JSON.stringify(
    list.items.map((item) => [item.metadata.name, item.metadata.resourceVersion]),
  );
}

function expectStatus(response: RawResponse, code: number, reason: string): void {
  expect(response.status).toBe(code);
  expect(response.contentType).toContain('application/json');
  expect(response.json()).toMatchObject({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    reason,
  });
}

/** What a kube-apiserver answers for paths no API group serves: Go's plain-text 404. */
function expectPlainNotFound(response: RawResponse): void {
  expect(response.status).toBe(404);
  expect(response.text).toContain('404 page not found');
}

async function expectUnchanged(bad: () => Promise<void>): Promise<void> {
  const before = await podsSnapshot();
  await bad();
  expect(await podsSnapshot()).toBe(before);
  const health = await cluster.request('GET', '/healthz');
  expect(health.status).toBe(200);
}

describe('bad input', () => {
  it('answers malformed JSON with 400 BadRequest', async () => {
    await expectUnchanged(async () => {
      for (const body of [
        '{"metadata": {',
        'not json at all',
        '[1,2,3]',
        '42',
        '"string"',
        '\u0000\u00ff\u00fe',
      ]) {
        const response = await cluster.request('POST', podsPath, {
          body,
          contentType: 'application/json',
        });
        expectStatus(response, 400, 'BadRequest');
      }
      const empty = await cluster.request('POST', podsPath, {
        body: '',
        contentType: 'application/json',
      });
      expect(empty.status).toBe(400);
    });
  });

  it('answers a body of the wrong kind or apiVersion with 400 BadRequest', async () => {
    await expectUnchanged(async () => {
      const deployment = JSON.stringify({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'wrong' },
      });
      expectStatus(
        await cluster.request('POST', podsPath, {
          body: deployment,
          contentType: 'application/json',
        }),
        400,
        'BadRequest',
      );
      const wrongKind = JSON.stringify({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'wrong' },
      });
      expectStatus(
        await cluster.request('POST', podsPath, {
          body: wrongKind,
          contentType: 'application/json',
        }),
        400,
        'BadRequest',
      );
      const otherNamespace = JSON.stringify({
        ...JSON.parse(validPod('elsewhere')),
        metadata: { name: 'elsewhere', namespace: 'default' },
      });
      expectStatus(
        await cluster.request('POST', podsPath, {
          body: otherNamespace,
          contentType: 'application/json',
        }),
        400,
        'BadRequest',
      );
      const renamed = await cluster.request('PUT', `${podsPath}/existing`, {
        body: validPod('other-name'),
        contentType: 'application/json',
      });
      expectStatus(renamed, 400, 'BadRequest');
    });
  });

  it('answers unknown resources with a 404 NotFound Status and unknown paths with 404', async () => {
    await expectUnchanged(async () => {
      expectStatus(await cluster.request('GET', '/api/v1/frobnicators'), 404, 'NotFound');
      expectPlainNotFound(await cluster.request('GET', '/apis/nope.example.com/v1/things'));
      expectStatus(await cluster.request('GET', '/apis/apps/v9/deployments'), 404, 'NotFound');
      expectStatus(
        await cluster.request('GET', `${podsPath}/existing/exec-nothing`),
        404,
        'NotFound',
      );
      expect((await cluster.request('GET', '/no/such/path')).status).toBe(404);
      expectStatus(
        await cluster.request('POST', '/api/v1/frobnicators', {
          body: '{}',
          contentType: 'application/json',
        }),
        404,
        'NotFound',
      );
      const missing = await cluster.request('GET', `${podsPath}/not-there`);
      expectStatus(missing, 404, 'NotFound');
      expect(missing.json()).toMatchObject({ details: { name: 'not-there', kind: 'pods' } });
    });
  });

  it('answers an oversized body with 413 RequestEntityTooLarge', async () => {
    await expectUnchanged(async () => {
      // Just over both servers' 3 MiB limit. kube-apiserver stops reading at the limit and, with
      // more than 256 KiB left unread, closes the connection under a client still writing: a
      // reset instead of its 413 (seen in CI with 4 MiB). Less than that left, Go's server
      // reads the rest and the 413 arrives.
      const huge = JSON.stringify({
        ...JSON.parse(validPod('huge')),
        metadata: { name: 'huge', annotations: { blob: 'x'.repeat(3 * 1024 * 1024 + 64 * 1024) } },
      });
      const response = await cluster.request('POST', podsPath, {
        body: huge,
        contentType: 'application/json',
      });
      expectStatus(response, 413, 'RequestEntityTooLarge');
    });
  });

  it('answers unsupported media types with 415 and wrong methods with 405', async () => {
    await expectUnchanged(async () => {
      const patch = await cluster.request('PATCH', `${podsPath}/existing`, {
        body: '{}',
        contentType: 'text/plain',
      });
      expectStatus(patch, 415, 'UnsupportedMediaType');
      const xml = await cluster.request('POST', podsPath, {
        body: '<pod/>',
        contentType: 'application/xml',
      });
      expectStatus(xml, 415, 'UnsupportedMediaType');
      const putCollection = await cluster.request('PUT', podsPath, {
        body: validPod('x'),
        contentType: 'application/json',
      });
      expectStatus(putCollection, 405, 'MethodNotAllowed');
    });
  });

  it('answers bad selectors and continue tokens with 400 and bad options with 422', async () => {
    await expectUnchanged(async () => {
      for (const query of [
        'labelSelector=app%20in%20(',
        'labelSelector=%3D%3Dx',
        'labelSelector=bad%20key%3Dv',
        'fieldSelector=spec.foo%3Dbar',
        'fieldSelector=nonsense',
        'continue=not-a-token',
        'watch=true&labelSelector=app%20notin',
      ]) {
        expectStatus(await cluster.request('GET', `${podsPath}?${query}`), 400, 'BadRequest');
      }
      const dryRun = await cluster.request('POST', `${podsPath}?dryRun=Sometimes`, {
        body: validPod('dry'),
        contentType: 'application/json',
      });
      // Bad options are invalid CreateOptions: 422, not 400.
      expectStatus(dryRun, 422, 'Invalid');
      expect(dryRun.json()).toMatchObject({
        details: { kind: 'CreateOptions', causes: [{ field: 'dryRun' }] },
      });
    });
  });

  it('refuses unknown fields under fieldValidation=Strict and drops them with a warning otherwise', async () => {
    const typo = JSON.stringify({
      ...JSON.parse(validPod('typo')),
      spec: {
        schedulerName: UNSCHEDULED,
        containers: [{ name: 'worker', image: 'nginx:1.27', imagePullPolicyy: 'Always' }],
      },
    });
    await expectUnchanged(async () => {
      const strict = await cluster.request('POST', `${podsPath}?fieldValidation=Strict`, {
        body: typo,
        contentType: 'application/json',
      });
      expectStatus(strict, 400, 'BadRequest');
      expect((strict.json() as { message: string }).message).toContain(
        'strict decoding error: unknown field "spec.containers[0].imagePullPolicyy"',
      );
      expectStatus(
        await cluster.request('POST', `${podsPath}?fieldValidation=Sometimes`, {
          body: typo,
          contentType: 'application/json',
        }),
        422,
        'Invalid',
      );
    });
    const warned = await cluster.request('POST', `${podsPath}?fieldValidation=Warn`, {
      body: typo,
      contentType: 'application/json',
    });
    expect(warned.status).toBe(201);
    expect(String(warned.headers.warning)).toContain(
      'unknown field \\"spec.containers[0].imagePullPolicyy\\"',
    );
    const stored = warned.json() as { spec: { containers: Record<string, unknown>[] } };
    expect(stored.spec.containers[0]).not.toHaveProperty('imagePullPolicyy');
    await cluster.request('DELETE', `${podsPath}/typo`);
  });

  it('answers broken patches without changing the object', async () => {
    await expectUnchanged(async () => {
      const path = `${podsPath}/existing`;
      const jsonPatch = 'application/json-patch+json';
      expectStatus(
        await cluster.request('PATCH', path, { body: '{"op":"add"}', contentType: jsonPatch }),
        400,
        'BadRequest',
      );
      expectStatus(
        await cluster.request('PATCH', path, {
          body: '[{"op":"jump","path":"/x"}]',
          contentType: jsonPatch,
        }),
        422,
        'Invalid',
      );
      const missing = await cluster.request('PATCH', path, {
        body: '[{"op":"replace","path":"/spec/nothing/here","value":1}]',
        contentType: jsonPatch,
      });
      expect(missing.status).toBe(422);
      // The first operation succeeds, the second fails: nothing of it may stick.
      const half = await cluster.request('PATCH', path, {
        body: '[{"op":"add","path":"/metadata/labels","value":{"half":"done"}},{"op":"test","path":"/kind","value":"Node"}]',
        contentType: jsonPatch,
      });
      expect(half.status).toBe(422);
      const invalid = await cluster.request('PATCH', path, {
        body: '{"spec":{"containers":[{"name":"worker","image":""}]}}',
        contentType: 'application/strategic-merge-patch+json',
      });
      expectStatus(invalid, 422, 'Invalid');
      const malformed = await cluster.request('PATCH', path, {
        body: '{"spec":',
        contentType: 'application/merge-patch+json',
      });
      expectStatus(malformed, 400, 'BadRequest');
    });
  });

  it('lets exactly one of several conflicting updates win', async () => {
    const current = (await cluster.request('GET', `${podsPath}/existing`)).json() as {
      metadata: { labels?: Record<string, string> };
    };
    const attempts = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        cluster.request('PUT', `${podsPath}/existing`, {
          body: JSON.stringify({
            ...current,
            metadata: { ...current.metadata, labels: { writer: String(i) } },
          }),
          contentType: 'application/json',
        }),
      ),
    );
    const codes = attempts.map((attempt) => attempt.status).sort();
    expect(codes.filter((code) => code === 200)).toHaveLength(1);
    expect(codes.filter((code) => code === 409)).toHaveLength(7);
    for (const attempt of attempts.filter((response) => response.status === 409)) {
      expect(attempt.json()).toMatchObject({ kind: 'Status', reason: 'Conflict', code: 409 });
    }
  });

  it('survives deeply nested and odd-typed bodies', async () => {
    await expectUnchanged(async () => {
      const deep = `${'{"a":'.repeat(20000)}1${'}'.repeat(20000)}`;
      const nested = await cluster.request('POST', podsPath, {
        body: `{"metadata":{"name":"deep"},"spec":${deep}}`,
        contentType: 'application/json',
      });
      expectStatus(nested, 400, 'BadRequest');
      const typed = await cluster.request('POST', podsPath, {
        body: JSON.stringify({ metadata: { name: 5, labels: 'x' }, spec: { containers: 'no' } }),
        contentType: 'application/json',
      });
      expect(typed.status).toBeGreaterThanOrEqual(400);
      expect(typed.status).toBeLessThan(500);
    });
  });
});
