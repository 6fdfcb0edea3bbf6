// charts/mgpu-console on the real tier: helm run from build.sh's folder against the test
// cluster, what it renders read back as objects, and the console's pod laid out on this
// machine — pods do not run here (no kubelet), so the chart's tests start its process as the
// kubelet would, with the files and environment the kubelet would give it.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  CoreV1Api,
  type V1Container,
  type V1Deployment,
  type V1EnvVar,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { type ConsoleProcess, startConsoleProcess } from './console-process.js';
import { buildBinaries } from './control-plane.js';
import { contextName } from './kubeconfig.js';
import { freePort } from './processes.js';
import {
  type KubectlResult,
  kubeConfigAs,
  kubectl,
  kubectlJson,
  testKubeconfig,
} from './test-support.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const CHART = join(ROOT, 'charts', 'mgpu-console');
// Where a pod finds its account (client-node's loadFromCluster reads it there).
const SERVICE_ACCOUNT_DIR = 'var/run/secrets/kubernetes.io/serviceaccount';

/** The release the chart tests install. */
export const RELEASE = 'console';
/** The chart's name for it (its fullname helper): the Deployment, Service and ServiceAccount. */
export const FULLNAME = `${RELEASE}-mgpu-console`;

/** A namespace of one test file's own: `<prefix>-` and six hex digits. */
export const testNamespace = (prefix: string) => `${prefix}-${randomBytes(3).toString('hex')}`;

/** The release's ServiceAccount in `namespace`, as `kubectl --as` names it. */
export const chartServiceAccount = (namespace: string) =>
  `system:serviceaccount:${namespace}:${FULLNAME}`;

/** `--set` for each of `values`. */
export const setFlags = (values: string[]) => values.flatMap((value) => ['--set', value]);

/** Values of each auth mode in `namespace`; `kubernetes` is the chart's default. */
export function authModeValues(namespace: string): Record<string, string[]> {
  return {
    kubernetes: [],
    oidc: [
      'auth.mode=oidc',
      'auth.oidc.issuer=https://issuer.example.com',
      'auth.oidc.clientId=mgpu-console',
      'auth.oidc.clientSecret=not-a-real-secret',
      'ingress.enabled=true',
      'ingress.hosts[0].host=gpu-console.example.com',
      'ingress.tls[0].secretName=gpu-console-tls',
      'ingress.tls[0].hosts[0]=gpu-console.example.com',
    ],
    token: [
      'auth.mode=token',
      'auth.token.value=0123456789abcdef0123456789abcdef',
      `rbac.workloadNamespaces[0]=${namespace}`,
    ],
    none: ['auth.mode=none'],
  };
}

/** helm's arguments that render the release in `namespace` with `values` set. */
export const templateArgs = (namespace: string, values: string[]) => [
  'template',
  RELEASE,
  CHART,
  '--namespace',
  namespace,
  ...setFlags(values),
];

/** What `helm template` renders for the release in `namespace` with `values`, as objects. */
export function renderChart(
  helm: (args: string[]) => KubectlResult,
  namespace: string,
  values: string[],
): Array<Record<string, unknown>> {
  const rendered = helm(templateArgs(namespace, values));
  if (rendered.status !== 0)
    throw new Error(`helm template ${values.join(' ')}: ${rendered.stderr}`);
  return renderedObjects(rendered.stdout);
}

/** `kubectl auth can-i` as `user`, asked by the administrator. */
export function canIAs(user: string, verb: string, resource: string, ...flags: string[]): boolean {
  const result = kubectl('admin', ['auth', 'can-i', verb, resource, ...flags, '--as', user]);
  return result.stdout.trim() === 'yes';
}

/** helm (from `binDir`) as the test cluster's administrator, its cache and config under `work`. */
export function helmIn(binDir: string, work: string): (args: string[]) => KubectlResult {
  return (args) => {
    const result = spawnSync(
      join(binDir, 'helm'),
      ['--kubeconfig', testKubeconfig ?? '', '--kube-context', contextName('admin'), ...args],
      {
        encoding: 'utf8',
        timeout: 120_000,
        // helm's cache and config stay in the test's folder, not in the user's home.
        env: {
          ...process.env,
          HELM_CACHE_HOME: join(work, 'helm', 'cache'),
          HELM_CONFIG_HOME: join(work, 'helm', 'config'),
          HELM_DATA_HOME: join(work, 'helm', 'data'),
        },
      },
    );
    return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
  };
}

export function renderedObjects(yamlText: string): Array<Record<string, unknown>> {
  return parseAllDocuments(yamlText)
    .map((document) => document.toJS() as Record<string, unknown> | null)
    .filter((object): object is Record<string, unknown> => object !== null);
}

/** The one Deployment of rendered objects. */
export function deploymentOf(objects: Array<Record<string, unknown>>): V1Deployment {
  const deployment = objects.find((object) => object.kind === 'Deployment');
  if (!deployment) throw new Error(`no Deployment in:\n${JSON.stringify(objects)}`);
  return deployment as V1Deployment;
}

/** The one Deployment of a rendered manifest. */
export const renderedDeployment = (yamlText: string) => deploymentOf(renderedObjects(yamlText));

/** The console container of a Deployment the chart rendered. */
export function consoleContainer(deployment: V1Deployment): V1Container {
  const container = deployment.spec?.template.spec?.containers.find((c) => c.name === 'console');
  if (!container) throw new Error('no console container in the Deployment');
  return container;
}

/** The console's environment variables that have a value (not those read from elsewhere). */
export function consoleEnvValues(deployment: V1Deployment): Record<string, string | undefined> {
  const env = consoleContainer(deployment).env ?? [];
  return Object.fromEntries(env.map((variable) => [variable.name, variable.value]));
}

function secretData(namespace: string, name: string): Record<string, string> {
  return (
    kubectlJson<{ data?: Record<string, string> }>('admin', [
      'get',
      'secret',
      '-n',
      namespace,
      name,
    ]).data ?? {}
  );
}

/** The pod's environment from the container's env: values, Secret keys and its namespace, as the kubelet reads them. */
export function podEnvironment(env: V1EnvVar[], namespace: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const variable of env) {
    const secret = variable.valueFrom?.secretKeyRef;
    const field = variable.valueFrom?.fieldRef?.fieldPath;
    if (variable.value !== undefined) out[variable.name] = variable.value;
    else if (secret) {
      const value = secretData(namespace, secret.name ?? '')[secret.key] ?? '';
      out[variable.name] = Buffer.from(value, 'base64').toString('utf8');
    } else if (field === 'metadata.namespace') out[variable.name] = namespace;
    else throw new Error(`env ${variable.name}: not understood here`);
  }
  return out;
}

/**
 * Lays out under `root` what the kubelet gives the Deployment's pod — the ServiceAccount's
 * `token`, the cluster's `caData` and the namespace where client-node looks for them, and the
 * files of every Secret volume at its mount — and answers the console's environment: the pod's,
 * with each path into a mount moved under `root`, and the console told where that root is.
 */
export function layOutPod(options: {
  deployment: V1Deployment;
  namespace: string;
  root: string;
  token: string;
  caData: string;
}): Record<string, string> {
  const { deployment, namespace, root } = options;
  const accountDir = join(root, SERVICE_ACCOUNT_DIR);
  mkdirSync(accountDir, { recursive: true });
  writeFileSync(join(accountDir, 'token'), options.token);
  writeFileSync(join(accountDir, 'ca.crt'), Buffer.from(options.caData, 'base64'));
  writeFileSync(join(accountDir, 'namespace'), namespace);

  const container = consoleContainer(deployment);
  const volumes = deployment.spec?.template.spec?.volumes ?? [];
  const secretMounts = (container.volumeMounts ?? []).filter((mount) =>
    volumes.some((volume) => volume.name === mount.name && volume.secret),
  );
  for (const mount of secretMounts) {
    const secret = volumes.find((volume) => volume.name === mount.name)?.secret ?? {};
    const data = secretData(namespace, secret.secretName ?? '');
    const items = secret.items ?? Object.keys(data).map((key) => ({ key, path: key }));
    for (const item of items) {
      const file = join(root, mount.mountPath, item.path);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, Buffer.from(data[item.key] ?? '', 'base64'));
    }
  }
  const env = podEnvironment(container.env ?? [], namespace);
  for (const [name, value] of Object.entries(env))
    if (secretMounts.some((mount) => value.startsWith(`${mount.mountPath}/`)))
      env[name] = join(root, value);
  return { ...env, MGPU_TEST_IN_CLUSTER_ROOT: root };
}

/**
 * A chart test file's place on the test cluster: a namespace of its own, and helm with its cache
 * in a work folder. `setUp` (the file's beforeAll) makes both; `tearDown` uninstalls the
 * release and removes them, the namespace taking what the release left in it.
 */
export function chartTestBed(prefix: string) {
  const namespace = testNamespace(prefix);
  let work = '';
  let helm: ((args: string[]) => KubectlResult) | undefined;
  let setUpFailed = false;
  const core = () => kubeConfigAs('admin').makeApiClient(CoreV1Api);
  return {
    namespace,
    work: () => work,
    helm(args: string[]): KubectlResult {
      if (!helm) throw new Error('helm before beforeAll');
      return helm(args);
    },
    async setUp() {
      try {
        work = mkdtempSync(join(tmpdir(), `mgpu-${prefix}-`));
        // build.sh reuses its cache; helm sits beside the control plane's binaries.
        helm = helmIn(await buildBinaries(() => {}), work);
        await core().createNamespace({ body: { metadata: { name: namespace } } });
      } catch (error) {
        setUpFailed = true;
        throw error;
      }
    },
    async tearDown() {
      helm?.(['uninstall', RELEASE, '--namespace', namespace]);
      try {
        await core().deleteNamespace({ name: namespace });
      } catch (error) {
        // After a failed setUp (no namespace, or no cluster) its error is the one to read.
        if (!setUpFailed) throw error;
      } finally {
        if (work) rmSync(work, { recursive: true, force: true });
      }
    },
  };
}

export type ChartTestBed = ReturnType<typeof chartTestBed>;

/** A console started as the release's pod: its process, and the metrics port it listens on. */
export interface PodConsole extends ConsoleProcess {
  metricsPort: number;
}

/**
 * The installed release's pod as the kubelet would give it (`layOutPod` under the work folder's
 * `pod-root`: its ServiceAccount's token, the cluster's CA, its Secrets) and `start`, which runs
 * its console with the chart's args. The one thing a pod has that a test cannot is its own
 * network namespace: each console listens on loopback, on ports free on this machine.
 */
export function installedPod(bed: ChartTestBed) {
  const { namespace } = bed;
  const token = kubectl('admin', ['create', 'token', FULLNAME, '-n', namespace]);
  if (token.status !== 0) throw new Error(`kubectl create token ${FULLNAME}: ${token.stderr}`);
  const manifest = bed.helm(['get', 'manifest', RELEASE, '--namespace', namespace]);
  if (manifest.status !== 0) throw new Error(`helm get manifest: ${manifest.stderr}`);
  const deployment = renderedDeployment(manifest.stdout);
  const cluster = kubeConfigAs('admin').getCurrentCluster();
  const server = new URL(cluster?.server ?? '');
  const env = layOutPod({
    deployment,
    namespace,
    root: join(bed.work(), 'pod-root'),
    token: token.stdout.trim(),
    caData: cluster?.caData ?? '',
  });
  return {
    deployment,
    env,
    server,
    async start(): Promise<PodConsole> {
      const [port, metricsPort] = [await freePort(), await freePort()];
      const started = await startConsoleProcess({
        args: consoleContainer(deployment).args ?? [],
        port,
        env: {
          // No ~/.kube/config in a pod: nothing but the in-cluster account to connect with.
          HOME: bed.work(),
          ...env,
          HOST: '127.0.0.1',
          PORT: String(port),
          MGPU_METRICS_HOST: '127.0.0.1',
          MGPU_METRICS_PORT: String(metricsPort),
          KUBERNETES_SERVICE_HOST: server.hostname,
          KUBERNETES_SERVICE_PORT: server.port,
        },
      });
      return { ...started, metricsPort };
    },
  };
}
