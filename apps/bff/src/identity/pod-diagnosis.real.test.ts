/**
 * `pod.events` and `pod.logs` under `--auth kubernetes` on upstream kube-apiserver: read with
 * the operator's own identity, so one who may not read a pod gets neither its Events nor its
 * log, while the same operator reads their own namespace's pods. A service account bound to
 * `view` in its own namespace only, its token from the TokenRequest API.
 */
import http from 'node:http';
import { CoreV1Api } from '@kubernetes/client-node';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BffHarness, startHarness, uniqueName } from '../test-support/bff-harness.js';
import { createNamespaces, serviceAccountOperator } from '../test-support/operators.js';

if (!onRealTier())
  throw new Error(
    'pod-diagnosis.real.test.ts runs on the real tier: tools/kube/with-real-cluster.sh',
  );

const ownNamespace = uniqueName('diag-a');
const otherNamespace = uniqueName('diag-b');
const account = 'reader';
const pod = 'diagnosed';
let harness: BffHarness;
let token: string;
let deleteNamespaces: (() => Promise<void>) | undefined;

beforeAll(async () => {
  harness = await startHarness({ auth: 'kubernetes' });
  const admin = harness.adminKubeConfig;
  const core = admin.makeApiClient(CoreV1Api);
  deleteNamespaces = await createNamespaces(admin, [ownNamespace, otherNamespace]);
  // A pod no scheduler takes: it only has to exist to be read, or refused.
  for (const namespace of [ownNamespace, otherNamespace])
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: pod },
        spec: { schedulerName: 'nobody', containers: [{ name: 'main', image: 'busybox' }] },
      },
    });
  const reader = await serviceAccountOperator(admin, ownNamespace, account);
  await reader.bind('view', ownNamespace);
  token = reader.token;
});
afterAll(async () => {
  await deleteNamespaces?.();
  await harness?.close();
});

const query = (input: object) =>
  `input=${encodeURIComponent(JSON.stringify({ pod, lang: 'en', ...input }))}`;

const events = (namespace: string) =>
  fetch(`${harness.url}/trpc/pod.events?${query({ namespace })}`, {
    headers: { authorization: `Bearer ${token}` },
  });

/**
 * The `pod.logs` stream's text, read until the server ends it or `enough` is in it (a pod not
 * started is asked again and again: its stream stays open, as the browser's does).
 */
const logStream = (namespace: string, enough: RegExp) =>
  new Promise<string>((resolve, reject) => {
    http
      .get(
        `${harness.url}/trpc/pod.logs?${query({ namespace, container: 'main' })}`,
        { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' } },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            text += chunk;
            if (enough.test(text)) {
              resolve(text);
              response.destroy();
            }
          });
          response.on('end', () => resolve(text));
        },
      )
      .on('error', reject);
  });

describe('pod diagnosis as the operator', () => {
  it("reads the Events of a pod in the operator's own namespace", async () => {
    const answer = await events(ownNamespace);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { result: { data: { pod: string; events: unknown[] } } };
    expect(body.result.data).toMatchObject({ pod, events: expect.any(Array) });
  });

  it('refuses the Events of a pod the operator may not read, naming verb and resource', async () => {
    const refused = await events(otherNamespace);
    expect(refused.status).toBe(403);
    const text = await refused.text();
    expect(text).toMatch(/forbidden/);
    expect(text).toMatch(/pods/);
    expect(text).toMatch(new RegExp(otherNamespace));
  });

  it('refuses the log of a pod the operator may not read: the stream carries the error, no line', async () => {
    const text = await logStream(otherNamespace, /event: serialized-error/);
    expect(text).toMatch(/event: serialized-error/);
    expect(text).toMatch(/forbidden/);
    expect(text).not.toMatch(/"type":"lines"/);
    // Their own pod, not yet on a node: its log is unavailable, said as such.
    const own = await logStream(ownNamespace, /"type":"unavailable"/);
    expect(own).toMatch(/"type":"unavailable","reason":"not-started"/);
  });
});
