/**
 * Issue 14's probe failures, one regression each: what an operator (or a script) sends, the
 * refusal they should see — a 4xx whose body names the rule — and that nothing was created.
 * Over loopback on a real BFF and the embedded cluster, as http.test.ts does.
 */
import { AppsV1Api, type V1Deployment } from '@kubernetes/client-node';
import { checkRequest, type WorkloadRequestInput, WorkloadRequestSchema } from '@mgpu/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningBff } from '../server.js';
import { seedRequest, startBffTest, uniqueName } from '../test-support/bff-harness.js';
import { exchange, mutation, openStream, queryUrl, startLoggedBff } from './hardening-support.js';

const harness = startBffTest();
let apps: AppsV1Api;
beforeAll(() => {
  apps = harness.adminKubeConfig.makeApiClient(AppsV1Api);
});

interface RuleErrorShape {
  path: string;
  rule: string;
  message: string;
}

interface ErrorBody {
  error?: {
    message: string;
    code?: number | string;
    data?: { ruleErrors?: RuleErrorShape[]; httpStatus?: number };
  };
}

const errorOf = (text: string): NonNullable<ErrorBody['error']> => {
  const body = JSON.parse(text) as ErrorBody;
  expect(body.error).toBeDefined();
  return body.error as NonNullable<ErrorBody['error']>;
};

const rulesOf = (text: string) => (errorOf(text).data?.ruleErrors ?? []).map((e) => e.rule);

/** A container without GPU: only the nodes' pod slots bound how many of its pods run. */
const cpuOnly = { name: 'web', image: 'nginx:1.27', gpu: { type: 'none' as const } };

/** Whether the cluster holds a workload of that name, asked of the API server itself. */
async function existsInCluster(
  namespace: string,
  name: string,
  kind: 'Deployment' | 'StatefulSet' = 'Deployment',
): Promise<boolean> {
  try {
    if (kind === 'Deployment') await apps.readNamespacedDeployment({ namespace, name });
    else await apps.readNamespacedStatefulSet({ namespace, name });
    return true;
  } catch (error) {
    if ((error as { code?: number }).code === 404) return false;
    throw error;
  }
}

/** What `workload.list` shows an operator. */
async function listedNames(): Promise<string[]> {
  const answer = await exchange(queryUrl(harness.url, 'workload.list', '{}'));
  expect(answer.status).toBe(200);
  const body = JSON.parse(answer.text) as {
    result: { data: { namespace: string; name: string }[] };
  };
  return body.result.data.map((workload) => `${workload.namespace}/${workload.name}`);
}

/**
 * Creates through `workload.create` and expects a 4xx naming one of `rules`; then checks that
 * neither the API server nor `workload.list` has the workload.
 */
async function expectCreateRefused(
  request: Record<string, unknown>,
  rules: string[],
): Promise<RuleErrorShape[]> {
  const namespace = String(request.namespace ?? 'default');
  const name = String(request.name);
  const answer = await mutation(
    harness.url,
    'workload.create',
    JSON.stringify({ request, clientRequestId: uniqueName('probe'), lang: 'en' }),
  );
  if (answer.status < 300) {
    // Created although it should not have been: remove it before failing, so a workload of a
    // billion replicas (say) does not load the cluster for the tests after this one.
    await apps
      .deleteNamespacedDeployment({ namespace, name, propagationPolicy: 'Background' })
      .catch(() => undefined);
  }
  expect(answer.status, answer.text.slice(0, 500)).toBeGreaterThanOrEqual(400);
  expect(answer.status, answer.text.slice(0, 500)).toBeLessThan(500);
  const found = rulesOf(answer.text);
  expect(
    found.some((rule) => rules.includes(rule)),
    `rules ${found.join(', ')}`,
  ).toBe(true);
  if (/^[a-z0-9.-]{1,253}$/.test(name) && /^[a-z0-9-]{1,63}$/.test(namespace))
    expect(await existsInCluster(namespace, name)).toBe(false);
  expect(await listedNames()).not.toContain(`${namespace}/${name}`);
  return errorOf(answer.text).data?.ruleErrors ?? [];
}

/** A Deployment made with the Kubernetes client directly: not the console's. */
async function createUnmanaged(name: string, env: { name: string; value: string }[] = []) {
  const body: V1Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: 'default', labels: { app: name } },
    spec: {
      replicas: 0,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'web', image: 'nginx:1.27', env }] },
      },
    },
  };
  await apps.createNamespacedDeployment({ namespace: 'default', body });
}

describe('refused requests name their rule and create nothing (issue 14)', () => {
  it('refuses replicas 1,000,000,000', async () => {
    await expectCreateRefused(
      seedRequest(uniqueName('probe-replicas'), { replicas: 1_000_000_000 }),
      ['replicas-range', 'replicas-exceed-cluster'],
    );
  });

  it('refuses the reserved namespace kube-system', async () => {
    const name = uniqueName('probe-ns');
    await expectCreateRefused(seedRequest(name, { namespace: 'kube-system' }), [
      'namespace-reserved',
    ]);
  });

  it.each([
    ['a zero-width space', 'nginx\u200b:1.27'],
    ['a newline', 'nginx:1.27\nevil:latest'],
  ])('refuses an image reference with %s', async (_label, image) => {
    const request = seedRequest(uniqueName('probe-image'));
    const container = request.containers[0];
    if (container) container.image = image;
    const errors = await expectCreateRefused(request, ['image-reference']);
    expect(errors.find((error) => error.rule === 'image-reference')?.path).toBe(
      'containers.0.image',
    );
  });

  it.each([44, 63])(
    'refuses a single-card mGPU container name of %i characters (its annotation key would be too long)',
    async (length) => {
      const request = seedRequest(
        uniqueName('probe-container'),
        {},
        { type: 'mgpu', multiCard: false, compute: '0.3', memoryGiB: '4', cards: 1 },
      );
      const container = request.containers[0];
      if (container) container.name = `c${'a'.repeat(length - 1)}`;
      await expectCreateRefused(request, ['annotation-key-too-long']);
    },
  );

  it.each([64, 253])('refuses a workload name of %i characters, on preview too', async (length) => {
    const name = `w${'a'.repeat(length - 1)}`;
    const request = seedRequest(name);
    const preview = await exchange(
      queryUrl(harness.url, 'workload.preview', JSON.stringify({ request, lang: 'en' })),
    );
    expect(preview.status).toBe(200);
    const checked = JSON.parse(preview.text) as {
      result: { data: { valid: boolean; errors: RuleErrorShape[] } };
    };
    expect(checked.result.data.valid).toBe(false);
    expect(checked.result.data.errors.map((error) => error.rule)).toContain('name-too-long');
    await expectCreateRefused(request, ['name-too-long']);
  });

  it('refuses 1,000 containers', async () => {
    const request = seedRequest(uniqueName('probe-many'), {
      containers: Array.from({ length: 1000 }, (_, index) => ({
        name: `c${index}`,
        image: 'nginx:1.27',
        gpu: { type: 'none' as const },
      })),
    });
    await expectCreateRefused(request, ['containers-max']);
  });

  it('refuses replicas 1,000,000,000 of a pod without GPU (more than the nodes run)', async () => {
    const errors = await expectCreateRefused(
      seedRequest(uniqueName('probe-cpu'), { replicas: 1_000_000_000, containers: [cpuOnly] }),
      ['replicas-exceed-cluster'],
    );
    expect(errors.find((error) => error.rule === 'replicas-exceed-cluster')?.path).toBe('replicas');
  });

  it.each([
    ['a dot', (name: string) => `${name}.v2`],
    ['a leading digit', (name: string) => `1${name}`],
    ['53 characters', (name: string) => `${name}-${'s'.repeat(52 - name.length)}`],
  ])('refuses a StatefulSet named with %s, on preview too', async (_label, nameOf) => {
    const name = nameOf(uniqueName('probe-sts'));
    const request = seedRequest(name, { kind: 'StatefulSet' });
    const preview = await exchange(
      queryUrl(harness.url, 'workload.preview', JSON.stringify({ request, lang: 'en' })),
    );
    expect(preview.status).toBe(200);
    const checked = JSON.parse(preview.text) as {
      result: { data: { valid: boolean; errors: RuleErrorShape[] } };
    };
    expect(checked.result.data.errors.map((error) => [error.rule, error.path])).toContainEqual([
      'statefulset-name',
      'name',
    ]);
    await expectCreateRefused(request, ['statefulset-name']);
    expect(await existsInCluster('default', name, 'StatefulSet')).toBe(false);
  });
});

describe('writes to workloads that exist answer to the same rules (issue 14)', () => {
  /** A workload made with the Kubernetes client directly, as an administrator would. */
  async function createDirectly(namespace: string, request: WorkloadRequestInput) {
    const { manifest } = checkRequest(WorkloadRequestSchema.parse(request), {
      reservedNamespaces: [],
    });
    await apps.createNamespacedDeployment({ namespace, body: manifest as V1Deployment });
    return apps.readNamespacedDeployment({ namespace, name: request.name });
  }

  it('refuses to scale a workload to 2147483647 (replicas-exceed-cluster) and leaves it as it is', async () => {
    const name = uniqueName('probe-scale');
    const created = await mutation(
      harness.url,
      'workload.create',
      JSON.stringify({ request: seedRequest(name, { replicas: 0, containers: [cpuOnly] }) }),
    );
    expect(created.status, created.text.slice(0, 300)).toBe(200);
    try {
      const answer = await mutation(
        harness.url,
        'workload.scale',
        JSON.stringify({ namespace: 'default', name, replicas: 2_147_483_647, lang: 'en' }),
      );
      expect(answer.status, answer.text.slice(0, 300)).toBe(400);
      const [error] = errorOf(answer.text).data?.ruleErrors ?? [];
      expect(error).toMatchObject({ rule: 'replicas-exceed-cluster', path: 'replicas' });
      expect(error?.message).toContain('2147483647');
      expect(
        (await apps.readNamespacedDeployment({ namespace: 'default', name })).spec?.replicas,
      ).toBe(0);
    } finally {
      await apps.deleteNamespacedDeployment({ namespace: 'default', name }).catch(() => undefined);
    }
  });

  it('refuses scale, update and delete (even forced) in kube-system, and changes nothing', async () => {
    const name = uniqueName('probe-system');
    const request = seedRequest(name, { namespace: 'kube-system', replicas: 0 });
    const before = await createDirectly('kube-system', request);
    try {
      const tries = [
        mutation(
          harness.url,
          'workload.scale',
          JSON.stringify({ namespace: 'kube-system', name, replicas: 1 }),
        ),
        mutation(
          harness.url,
          'workload.update',
          JSON.stringify({
            namespace: 'kube-system',
            name,
            resourceVersion: before.metadata?.resourceVersion,
            request: { ...request, replicas: 1 },
          }),
        ),
        mutation(
          harness.url,
          'workload.delete',
          JSON.stringify({ namespace: 'kube-system', name, force: true }),
        ),
      ];
      for (const answer of await Promise.all(tries)) {
        expect(answer.status, answer.text.slice(0, 300)).toBe(400);
        expect(rulesOf(answer.text)).toEqual(['namespace-reserved']);
      }
      const after = await apps.readNamespacedDeployment({ namespace: 'kube-system', name });
      expect(after.metadata?.deletionTimestamp).toBeUndefined();
      expect(after.spec?.replicas).toBe(0);
      expect(after.metadata?.generation).toBe(before.metadata?.generation);
    } finally {
      await apps
        .deleteNamespacedDeployment({ namespace: 'kube-system', name })
        .catch(() => undefined);
    }
  });
});

describe('workloads the console does not manage (issue 14)', () => {
  it('refuses to delete a Deployment made without the console (rule not-managed)', async () => {
    const name = uniqueName('probe-foreign');
    await createUnmanaged(name);
    const answer = await mutation(
      harness.url,
      'workload.delete',
      JSON.stringify({ namespace: 'default', name }),
    );
    expect(answer.status, answer.text).toBeGreaterThanOrEqual(400);
    expect(answer.status, answer.text).toBeLessThan(500);
    expect(rulesOf(answer.text)).toContain('not-managed');
    expect(await existsInCluster('default', name)).toBe(true);
  });

  it('deletes a Deployment made without the console when the input says force: true', async () => {
    const name = uniqueName('probe-forced');
    await createUnmanaged(name);
    const answer = await mutation(
      harness.url,
      'workload.delete',
      JSON.stringify({ namespace: 'default', name, force: true }),
    );
    expect(answer.status, answer.text).toBe(200);
    // Foreground deletion: the object may linger until its dependents are gone.
    for (let attempt = 0; attempt < 100 && (await existsInCluster('default', name)); attempt++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await existsInCluster('default', name)).toBe(false);
  });

  it('does not hand out an env value of such a Deployment through workload.get', async () => {
    const name = uniqueName('probe-env');
    const secret = `s3cr3t-${uniqueName('value')}`;
    await createUnmanaged(name, [{ name: 'DATABASE_PASSWORD', value: secret }]);
    const answer = await exchange(
      queryUrl(harness.url, 'workload.get', JSON.stringify({ namespace: 'default', name })),
    );
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(answer.text).not.toContain(secret);
  });
});

describe('the wire format under probing (issue 14)', () => {
  it.each([
    ['bad input', { 0: { namespace: 5 } }],
    ['input that is not an object', { 0: 'everything' }],
  ])('answers a ?batch=1 subscription with %s with a 4xx', async (_label, input) => {
    const answer = await openStream(
      `${harness.url}/trpc/allocations.watch?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`,
    );
    expect(answer.status, answer.text.slice(0, 300)).toBeGreaterThanOrEqual(400);
    expect(answer.status, answer.text.slice(0, 300)).toBeLessThan(500);
  });

  it.each([
    ['workload.create over POST', 'mutation'],
    ['workload.preview over GET', 'query'],
  ])('words a type error (%s) as a sentence, with structured ruleErrors', async (_label, how) => {
    const input = JSON.stringify({
      request: { name: 5, containers: 'none' },
      clientRequestId: 'x',
    });
    const answer =
      how === 'mutation'
        ? await mutation(harness.url, 'workload.create', input)
        : await exchange(queryUrl(harness.url, 'workload.preview', input));
    expect(answer.status).toBe(400);
    const error = errorOf(answer.text);
    // zod's default message is its issue list as pretty-printed JSON.
    expect(error.message.trimStart()).not.toMatch(/^[[{]/);
    expect(error.message).not.toContain('"code"');
    expect(error.message).not.toContain('\n');
    expect(error.message.length).toBeGreaterThan(0);
    const ruleErrors = error.data?.ruleErrors;
    expect(Array.isArray(ruleErrors)).toBe(true);
    expect(ruleErrors?.length).toBeGreaterThan(0);
    for (const ruleError of ruleErrors ?? []) {
      expect(typeof ruleError.path).toBe('string');
      expect(ruleError.rule).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
      expect(typeof ruleError.message).toBe('string');
    }
    expect(ruleErrors?.some((ruleError) => /(^|\.)name$/.test(ruleError.path))).toBe(true);
  });
});

describe('a console started with a token (issue 14)', () => {
  const TOKEN = `token-${uniqueName('secret')}`;
  let tokened: RunningBff;
  let logLines: string[];
  beforeAll(async () => {
    ({ bff: tokened, logLines } = await startLoggedBff(harness, { token: TOKEN }));
  });
  afterAll(async () => {
    await tokened?.close();
  });

  const signIn = (token: string) =>
    exchange(`${tokened.url}/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: tokened.url },
      body: JSON.stringify({ token }),
    });

  it('answers 300 wrong tokens on /session with some 429s', async () => {
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 300; attempt++)
      statuses.push((await signIn(`wrong-${attempt}`)).status);
    expect(statuses.every((status) => status === 401 || status === 429)).toBe(true);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
  });

  it('never writes a ?token= from a URL into its log', async () => {
    const leaked = `${TOKEN}-in-url`;
    for (const path of [
      `/trpc/gpu.models?token=${leaked}`,
      `/trpc/gpu.models?input=%7B%7D&token=${leaked}`,
      `/healthz?token=${leaked}`,
      `/session?token=${leaked}`,
      `/no-such-page?token=${leaked}`,
    ])
      await exchange(`${tokened.url}${path}`);
    // pino writes synchronously to the stream; give the event loop a turn anyway.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.filter((line) => line.includes(leaked))).toEqual([]);
  });

  it('gives the session cookie a lifetime (Max-Age or Expires)', async () => {
    // A fresh console: the wrong-token test above may have this address rate-limited.
    const { bff: fresh } = await startLoggedBff(harness, { token: TOKEN });
    try {
      const answer = await exchange(`${fresh.url}/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: fresh.url },
        body: JSON.stringify({ token: TOKEN }),
      });
      expect(answer.status).toBe(200);
      const cookie = answer.headers.get('set-cookie') ?? '';
      expect(cookie).toContain('mgpu_console_session=');
      expect(cookie).toMatch(/;\s*(Max-Age=\d+|Expires=)/i);
    } finally {
      await fresh.close();
    }
  });
});
