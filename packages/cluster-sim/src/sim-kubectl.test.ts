/**
 * The standalone sim as an operator meets it (spec §7): `pnpm --silent sim`, then the real
 * kubectl. With MGPU_TEST_KUBECONFIG the same steps run against that cluster instead.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRequest, seedRequest, VKE, WorkloadRequestSchema } from '@mgpu/shared';
import { onRealTier, testTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { eventually } from './test-support/controller-cluster.js';
import { type SimProcess, startSimProcess } from './test-support/sim-process.js';

const KUBECTL = process.env.MGPU_TEST_KUBECTL ?? '/usr/bin/kubectl';

let sim: SimProcess | undefined;
let simPort = 0;
let kubeconfig = '';
let dir = '';
const namespace = `kubectl-${randomBytes(3).toString('hex')}`;

function kubectl(
  args: string[],
  input?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = execFile(
      KUBECTL,
      ['--kubeconfig', kubeconfig, ...args],
      { timeout: 30_000 },
      (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
          stdout,
          stderr,
        }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });

const accepts = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mgpu-sim-kubectl-'));
  const tier = testTier();
  if (tier.kind === 'real') {
    kubeconfig = tier.kubeconfig;
  } else {
    simPort = await freePort();
    kubeconfig = join(dir, 'kubeconfig.yaml');
    sim = startSimProcess(['--port', String(simPort), '--kubeconfig', kubeconfig]);
    await sim.url;
  }
  // `kubectl create namespace` speaks protobuf; a manifest goes as JSON on any server.
  const created = await kubectl(
    ['create', '-f', '-'],
    JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }),
  );
  expect(created.stderr).toBe('');
}, 90_000);

afterAll(async () => {
  await kubectl(['delete', 'namespace', namespace, '--wait=false']);
  sim?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** The seed's Deployment exactly as the console writes it. */
function seedDeploymentYaml(name: string): string {
  const checked = checkRequest(WorkloadRequestSchema.parse(seedRequest(name, { namespace })));
  return stringify(checked.manifest);
}

const selector = (name: string) => `app.kubernetes.io/name=${name}`;

describe('pnpm sim with kubectl', { timeout: 60_000 }, () => {
  it('lists Ready GPU nodes with their pool labels', async () => {
    const nodes = await kubectl(['get', 'nodes', '-l', `${VKE.scheduleLabel}=mgpu`, '-o', 'name']);
    expect(nodes.code).toBe(0);
    expect(nodes.stdout.trim().split('\n').length).toBeGreaterThan(0);
    const ready = await kubectl([
      'get',
      'nodes',
      '-o',
      'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}',
    ]);
    expect(
      ready.stdout
        .trim()
        .split('\n')
        .every((status) => status === 'True'),
    ).toBe(true);
  });

  it('creates a Deployment from YAML and runs its pod on two distinct cards', async () => {
    const created = await kubectl(['create', '-f', '-'], seedDeploymentYaml('seed'));
    expect(created.stderr).toBe('');
    expect(created.stdout).toContain('deployment.apps/seed created');
    const line = await eventually(async () => {
      const pods = await kubectl([
        '-n',
        namespace,
        'get',
        'pods',
        '-l',
        selector('seed'),
        '-o',
        `jsonpath={range .items[*]}{.status.phase} {.spec.nodeName} {.metadata.annotations.vke\\.volcengine\\.com/gpu-index-container-worker}{"\\n"}{end}`,
      ]);
      const first = pods.stdout.trim();
      return first.startsWith('Running ') ? first : undefined;
    }, 30_000);
    const [, node, cards] = line.split(' ');
    expect(node).toBeTruthy();
    const indexes = (cards ?? '').split(',');
    expect(indexes).toHaveLength(2);
    expect(new Set(indexes).size).toBe(2);
  });

  it('refuses a duplicate create', async () => {
    const again = await kubectl(['create', '-f', '-'], seedDeploymentYaml('seed'));
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/AlreadyExists/);
  });

  it('explains an unschedulable pod in describe and in its conditions', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'too-big',
        namespace,
        annotations: { [VKE.computePolicyAnnotation]: 'native-burst-share' },
      },
      spec: {
        containers: [
          {
            name: 'main',
            image: 'nginx:1.27',
            resources: {
              limits: { [VKE.coreResource]: '90', [VKE.memoryResource]: '90000' },
              requests: { [VKE.coreResource]: '90', [VKE.memoryResource]: '90000' },
            },
          },
        ],
      },
    };
    expect((await kubectl(['create', '-f', '-'], JSON.stringify(pod))).code).toBe(0);
    const reason = await eventually(async () => {
      const result = await kubectl([
        '-n',
        namespace,
        'get',
        'pod',
        'too-big',
        '-o',
        'jsonpath={.status.conditions[?(@.type=="PodScheduled")].reason}',
      ]);
      return result.stdout === 'Unschedulable' ? result.stdout : undefined;
    });
    expect(reason).toBe('Unschedulable');
    const described = await eventually(async () => {
      const result = await kubectl(['-n', namespace, 'describe', 'pod', 'too-big']);
      return result.stdout.includes('FailedScheduling') ? result.stdout : undefined;
    });
    expect(described).toMatch(/nodes are available: .*memory/);
  });

  it('deletes the Deployment and its pods are collected', async () => {
    expect((await kubectl(['-n', namespace, 'delete', 'deployment', 'seed'])).code).toBe(0);
    await eventually(async () => {
      const pods = await kubectl([
        '-n',
        namespace,
        'get',
        'pods,replicasets',
        '-l',
        selector('seed'),
        '-o',
        'name',
      ]);
      return pods.code === 0 && pods.stdout.trim() === '' ? true : undefined;
    }, 30_000);
  });

  it.skipIf(onRealTier())('stops cleanly when its launcher is terminated', async () => {
    expect(await accepts(simPort)).toBe(true);
    sim?.stop();
    await eventually(
      async () => ((await accepts(simPort)) ? undefined : true),
      15_000,
      'the sim to stop',
    );
  });
});
