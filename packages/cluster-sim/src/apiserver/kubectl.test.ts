/**
 * The real kubectl (1.32) as an outside client: what operators type against the embedded
 * cluster must behave as it does against a kube-apiserver (without --validate=false).
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KUBECTL, startTestCluster, type TestCluster, UNSCHEDULED } from './test-cluster.js';

// A real cluster (MGPU_TEST_KUBECONFIG) answers slower than the sim.
vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

let cluster: TestCluster;
let namespace: string;

const deploymentYaml = (replicas: number, image = 'nginx:1.27'): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: ${replicas}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      schedulerName: ${UNSCHEDULED}
      containers:
      - name: worker
        image: ${image}
        ports: [{containerPort: 80}]
`;

const podYaml = (name: string): string => `apiVersion: v1
kind: Pod
metadata: {name: ${name}, labels: {app: loose}}
spec:
  schedulerName: ${UNSCHEDULED}
  containers: [{name: c, image: busybox:1.36}]
`;

beforeAll(async () => {
  cluster = await startTestCluster();
  namespace = await cluster.createNamespace('kubectl');
});

afterAll(async () => {
  await cluster.kubectl(['delete', 'node', 'kubectl-test-node', '--ignore-not-found']);
  await cluster.close();
});

async function ok(args: string[], input?: string): Promise<string> {
  const result = await cluster.kubectl(args, input);
  if (result.code !== 0)
    throw new Error(`kubectl ${args.join(' ')} failed (${result.code}): ${result.stderr}`);
  return result.stdout;
}

describe('kubectl', () => {
  it('lists namespaces and nodes', async () => {
    const namespaces = await ok(['get', 'namespaces']);
    expect(namespaces).toMatch(/^NAME\s+STATUS\s+AGE/);
    expect(namespaces).toMatch(/^default\s+Active/m);
    expect(namespaces).toMatch(/^kube-system\s+Active/m);
    await ok(
      ['create', '-f', '-'],
      'apiVersion: v1\nkind: Node\nmetadata: {name: kubectl-test-node, labels: {mgpu-test/kubectl: "yes"}}\n',
    );
    const nodes = await ok(['get', 'nodes', '-l', 'mgpu-test/kubectl=yes', '-o', 'name']);
    expect(nodes.trim()).toBe('node/kubectl-test-node');
    const table = await ok(['get', 'no']);
    expect(table).toMatch(/^NAME\s+STATUS\s+ROLES\s+AGE\s+VERSION/);
  });

  it('creates a Deployment from YAML, refuses a duplicate and prints it as JSON', async () => {
    expect(await ok(['create', '-n', namespace, '-f', '-'], deploymentYaml(2))).toContain(
      'deployment.apps/web created',
    );
    const duplicate = await cluster.kubectl(
      ['create', '-n', namespace, '-f', '-'],
      deploymentYaml(2),
    );
    expect(duplicate.code).not.toBe(0);
    expect(duplicate.stderr).toContain('AlreadyExists');
    expect(duplicate.stderr).toContain('deployments.apps "web" already exists');
    const json = JSON.parse(
      await ok(['get', 'deployment', 'web', '-n', namespace, '-o', 'json']),
    ) as {
      kind: string;
      spec: { replicas: number; strategy: { type: string } };
      metadata: { generation: number };
    };
    expect(json).toMatchObject({
      kind: 'Deployment',
      spec: { replicas: 2, strategy: { type: 'RollingUpdate' } },
      metadata: { generation: 1 },
    });
    const table = await ok(['get', 'deploy', '-n', namespace, '-o', 'wide']);
    expect(table).toMatch(
      /^NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\s+CONTAINERS\s+IMAGES\s+SELECTOR/,
    );
    // READY/UP-TO-DATE/AVAILABLE are a deployment controller's to fill in.
    expect(table).toMatch(/^web\s+\d+\/2\s+\d+\s+\d+\s+\S+\s+worker\s+nginx:1\.27\s+app=web/m);
  });

  it('applies client-side and server-side', async () => {
    expect(await ok(['apply', '-n', namespace, '-f', '-'], deploymentYaml(3))).toContain(
      'deployment.apps/web configured',
    );
    expect(
      await ok(['get', 'deploy', 'web', '-n', namespace, '-o', 'jsonpath={.spec.replicas}']),
    ).toBe('3');
    expect(await ok(['apply', '-n', namespace, '-f', '-'], deploymentYaml(3))).toContain(
      'deployment.apps/web unchanged',
    );
    const serverSide = await ok(
      ['apply', '--server-side', '-n', namespace, '-f', '-'],
      deploymentYaml(4, 'nginx:1.28'),
    );
    expect(serverSide).toContain('deployment.apps/web serverside-applied');
    expect(
      await ok([
        'get',
        'deploy',
        'web',
        '-n',
        namespace,
        '-o',
        'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image}',
      ]),
    ).toBe('4 nginx:1.28');
  });

  it('patches with every patch type and scales', async () => {
    await ok([
      'patch',
      'deploy',
      'web',
      '-n',
      namespace,
      '-p',
      '{"spec":{"template":{"spec":{"containers":[{"name":"worker","image":"nginx:1.29"}]}}}}',
    ]);
    await ok([
      'patch',
      'deploy',
      'web',
      '-n',
      namespace,
      '--type=merge',
      '-p',
      '{"metadata":{"labels":{"team":"gpu"}}}',
    ]);
    await ok([
      'patch',
      'deploy',
      'web',
      '-n',
      namespace,
      '--type=json',
      '-p',
      '[{"op":"replace","path":"/spec/revisionHistoryLimit","value":3}]',
    ]);
    const patched = await ok([
      'get',
      'deploy',
      'web',
      '-n',
      namespace,
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports[0].containerPort} {.metadata.labels.team} {.spec.revisionHistoryLimit}',
    ]);
    expect(patched).toBe('nginx:1.29 80 gpu 3');
    expect(await ok(['scale', 'deploy', 'web', '-n', namespace, '--replicas=5'])).toContain(
      'deployment.apps/web scaled',
    );
    expect(
      await ok(['get', 'deploy', 'web', '-n', namespace, '-o', 'jsonpath={.spec.replicas}']),
    ).toBe('5');
    const invalid = await cluster.kubectl([
      'scale',
      'deploy',
      'web',
      '-n',
      namespace,
      '--replicas=-1',
    ]);
    expect(invalid.code).not.toBe(0);
  });

  it('describes, labels and waits', async () => {
    const described = await ok(['describe', 'deployment', 'web', '-n', namespace]);
    expect(described).toMatch(/^Name:\s+web$/m);
    expect(described).toMatch(/^Replicas:\s+5 desired/m);
    await ok(['create', '-n', namespace, '-f', '-'], podYaml('loose-1'));
    await ok(['label', 'pod', 'loose-1', '-n', namespace, 'tier=web']);
    expect(await ok(['get', 'pods', '-n', namespace, '-l', 'tier=web', '-o', 'name'])).toBe(
      'pod/loose-1\n',
    );
    expect(
      await ok([
        'get',
        'pods',
        '-n',
        namespace,
        '--field-selector',
        'status.phase=Pending',
        '-o',
        'name',
      ]),
    ).toContain('pod/loose-1');
    const waited = await ok([
      'wait',
      '-n',
      namespace,
      '--for=jsonpath={.status.phase}=Pending',
      'pod/loose-1',
      '--timeout=10s',
    ]);
    expect(waited).toContain('condition met');
    const describedPod = await ok(['describe', 'pod', 'loose-1', '-n', namespace]);
    expect(describedPod).toMatch(/^Status:\s+Pending$/m);
  });

  it('streams pod changes with get -w', async () => {
    const watcher = spawn(
      KUBECTL,
      [...cluster.kubectlBaseArgs, 'get', 'pods', '-n', namespace, '-w', '--request-timeout=0'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    const checks = new Set<() => void>();
    watcher.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      for (const check of [...checks]) check();
    });
    /** Resolves once a whole line matching `line` has been printed (chunks may split lines). */
    const seen = (line: RegExp): Promise<void> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          checks.delete(check);
          reject(new Error(`kubectl get -w never printed ${line}: ${output}`));
        }, 20_000);
        const check = (): void => {
          if (!line.test(output)) return;
          checks.delete(check);
          clearTimeout(timer);
          resolve();
        };
        checks.add(check);
        check();
      });
    try {
      await seen(/^loose-1\s+0\/1\s+Pending.*\n/m);
      await ok(['create', '-n', namespace, '-f', '-'], podYaml('watched-1'));
      await seen(/^watched-1\s+0\/1\s+Pending.*\n/m);
      expect(output).toMatch(/^NAME\s+READY\s+STATUS/m);
      expect(output).toMatch(/^watched-1\s+0\/1\s+Pending/m);
    } finally {
      watcher.kill('SIGTERM');
    }
  });

  it('refuses a misspelt field the way kubectl users know (strict field validation)', async () => {
    const typo = await cluster.kubectl(
      ['create', '-n', namespace, '-f', '-'],
      deploymentYaml(1).replace('replicas:', 'replicass:'),
    );
    expect(typo.code).not.toBe(0);
    expect(typo.stderr).toContain('BadRequest');
    expect(typo.stderr).toContain('strict decoding error: unknown field "spec.replicass"');
  });

  it('rejects invalid objects with the field that is wrong', async () => {
    const invalid = await cluster.kubectl(
      ['create', '-n', namespace, '-f', '-'],
      deploymentYaml(1, '""').replace('name: web', 'name: broken'),
    );
    expect(invalid.code).not.toBe(0);
    expect(invalid.stderr).toContain('is invalid');
    expect(invalid.stderr).toContain('spec.template.spec.containers[0].image: Required value');
  });

  it('deletes with garbage collection and reports NotFound afterwards', async () => {
    const owner = JSON.parse(await ok(['get', 'deploy', 'web', '-n', namespace, '-o', 'json'])) as {
      metadata: { uid: string };
    };
    await ok(
      ['create', '-n', namespace, '-f', '-'],
      `apiVersion: v1
kind: Pod
metadata:
  name: owned-1
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: ${owner.metadata.uid}}]
spec:
  schedulerName: ${UNSCHEDULED}
  containers: [{name: c, image: busybox:1.36}]
`,
    );
    expect(await ok(['delete', 'deploy', 'web', '-n', namespace])).toContain(
      'deployment.apps "web" deleted',
    );
    await ok(['wait', '-n', namespace, '--for=delete', 'pod/owned-1', '--timeout=10s']);
    const gone = await cluster.kubectl(['get', 'deploy', 'web', '-n', namespace]);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('NotFound');
    expect(await ok(['delete', 'pods', '-n', namespace, '-l', 'app=loose'])).toContain('deleted');
    const empty = await cluster.kubectl(['get', 'pods', '-n', namespace, '-l', 'app=loose']);
    expect(empty.stderr).toContain('No resources found');
  });

  it('creates a namespace and a deployment with the generator commands (protobuf bodies)', async () => {
    const generated = `${namespace}-gen`;
    expect(await ok(['create', 'namespace', generated])).toContain(
      `namespace/${generated} created`,
    );
    const again = await cluster.kubectl(['create', 'namespace', generated]);
    expect(again.stderr).toContain('AlreadyExists');
    expect(
      await ok([
        'create',
        'deployment',
        'gen',
        '-n',
        generated,
        '--image=nginx:1.27',
        '--replicas=0',
        '--port=80',
      ]),
    ).toContain('deployment.apps/gen created');
    const created = JSON.parse(
      await ok(['get', 'deploy', 'gen', '-n', generated, '-o', 'json']),
    ) as {
      metadata: { labels: Record<string, string> };
      spec: {
        replicas: number;
        selector: unknown;
        template: { spec: { containers: { image: string; ports: unknown }[] } };
      };
    };
    expect(created.metadata.labels).toEqual({ app: 'gen' });
    expect(created.spec.replicas).toBe(0);
    expect(created.spec.selector).toEqual({ matchLabels: { app: 'gen' } });
    expect(created.spec.template.spec.containers[0]).toMatchObject({
      image: 'nginx:1.27',
      ports: [{ containerPort: 80 }],
    });
    expect(await ok(['delete', 'namespace', generated, '--wait=true', '--timeout=20s'])).toContain(
      'deleted',
    );
    const gone = await cluster.kubectl(['get', 'namespace', generated]);
    expect(gone.stderr).toContain('NotFound');
  });

  it('knows the MgpuNode custom resource by its short name', async () => {
    await ok(
      ['create', '-f', '-'],
      'apiVersion: mgpu.console.io/v1alpha1\nkind: MgpuNode\nmetadata: {name: kubectl-report}\nspec: {nodeName: n1}\n',
    );
    expect(await ok(['get', 'mgn', '-o', 'name'])).toContain(
      'mgpunode.mgpu.console.io/kubectl-report',
    );
    await ok(['delete', 'mgn', 'kubectl-report']);
  });
});
