/**
 * The cluster the controller tests run against: the embedded cluster (API server + controllers,
 * default topology) on a random loopback port, or — when MGPU_TEST_KUBECONFIG names a
 * kubeconfig — that cluster (a real kube-apiserver with kube-controller-manager and our
 * scheduler and node agents). Tests go through @kubernetes/client-node and kubectl only.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppsV1Api, CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { testTier } from '@mgpu/shared/test-tier';
import { type EmbeddedCluster, startEmbeddedCluster } from '../embedded.js';

export interface ControllerCluster {
  kubeConfig: KubeConfig;
  kubeconfigPath: string;
  core: CoreV1Api;
  apps: AppsV1Api;
  custom: CustomObjectsApi;
  isSim: boolean;
  kubectl(
    args: string[],
    input?: string,
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  /** A fresh namespace for one test file; deleted on close. */
  createNamespace(prefix: string): Promise<string>;
  close(): Promise<void>;
}

const KUBECTL = process.env.MGPU_TEST_KUBECTL ?? '/usr/bin/kubectl';

export async function startControllerCluster(): Promise<ControllerCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'mgpu-controllers-'));
  const tier = testTier();
  let embedded: EmbeddedCluster | undefined;
  let kubeConfig: KubeConfig;
  let kubeconfigPath: string;
  if (tier.kind === 'real') {
    kubeConfig = new KubeConfig();
    kubeConfig.loadFromFile(tier.kubeconfig);
    kubeconfigPath = tier.kubeconfig;
  } else {
    embedded = await startEmbeddedCluster({ log: () => undefined });
    kubeConfig = embedded.kubeConfig;
    kubeconfigPath = join(dir, 'kubeconfig.yaml');
    await embedded.writeKubeconfig(kubeconfigPath);
  }
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const namespaces: string[] = [];
  return {
    kubeConfig,
    kubeconfigPath,
    core,
    apps: kubeConfig.makeApiClient(AppsV1Api),
    custom: kubeConfig.makeApiClient(CustomObjectsApi),
    isSim: embedded !== undefined,
    kubectl: (args, input) =>
      new Promise((resolve) => {
        const child = execFile(
          KUBECTL,
          ['--kubeconfig', kubeconfigPath, ...args],
          { timeout: 30_000 },
          (error, stdout, stderr) => {
            const code = error && typeof error.code === 'number' ? error.code : error ? 1 : 0;
            resolve({ code, stdout, stderr });
          },
        );
        if (input !== undefined) child.stdin?.end(input);
      }),
    async createNamespace(prefix) {
      const name = `${prefix}-${randomBytes(3).toString('hex')}`;
      await core.createNamespace({ body: { metadata: { name } } });
      namespaces.push(name);
      return name;
    },
    async close() {
      for (const name of namespaces) {
        await core.deleteNamespace({ name }).catch(() => undefined);
      }
      await embedded?.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Polls until `check` returns a value (controllers converge, they do not answer at once). */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
