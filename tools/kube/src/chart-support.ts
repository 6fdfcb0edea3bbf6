// charts/mgpu-console on the real tier: helm run from build.sh's folder against the test
// cluster, what it renders read back as objects, and the console's pod laid out on this
// machine — pods do not run here (no kubelet), so the chart's tests start its process as the
// kubelet would, with the files and environment the kubelet would give it.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { V1Container, V1Deployment, V1EnvVar } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { contextName } from './kubeconfig.js';
import { type KubectlResult, kubectlJson, testKubeconfig } from './test-support.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const CHART = join(ROOT, 'charts', 'mgpu-console');
// Where a pod finds its account (client-node's loadFromCluster reads it there).
const SERVICE_ACCOUNT_DIR = 'var/run/secrets/kubernetes.io/serviceaccount';

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

/** The one Deployment of a rendered manifest. */
export function renderedDeployment(yamlText: string): V1Deployment {
  const deployment = renderedObjects(yamlText).find((object) => object.kind === 'Deployment');
  if (!deployment) throw new Error(`no Deployment in:\n${yamlText}`);
  return deployment as V1Deployment;
}

/** The console container of a Deployment the chart rendered. */
export function consoleContainer(deployment: V1Deployment): V1Container {
  const container = deployment.spec?.template.spec?.containers.find((c) => c.name === 'console');
  if (!container) throw new Error('no console container in the Deployment');
  return container;
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
