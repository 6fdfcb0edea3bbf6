/**
 * The cluster and builders of the API conformance tests (`src/apiserver/conformance-*.test.ts`):
 * the calls our controllers and the BFF make through @kubernetes/client-node. Each test file
 * calls `useConformanceCluster()` once and gets its own cluster: the embedded one, or the real
 * one the test tier names (`startTestCluster`), with a namespace of its own.
 */
import {
  AppsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubernetesObject,
  type V1Deployment,
  type V1Pod,
  Watch,
} from '@kubernetes/client-node';
import { afterAll, beforeAll, vi } from 'vitest';
import { startTestCluster, type TestCluster, UNSCHEDULED } from '../apiserver/test-cluster.js';

export let cluster: TestCluster;
export let core: CoreV1Api;
export let apps: AppsV1Api;
export let custom: CustomObjectsApi;
export let namespace: string;

export const WATCH_WINDOW = 20;

/**
 * Starts this test file's cluster before its tests and closes it after; `cluster`, `core`,
 * `apps`, `custom` and `namespace` are set from then on.
 */
export function useConformanceCluster(): void {
  // A real cluster (MGPU_TEST_KUBECONFIG) answers slower than the sim.
  vi.setConfig({ testTimeout: 60_000, hookTimeout: 120_000 });

  beforeAll(async () => {
    cluster = await startTestCluster({
      watchWindow: WATCH_WINDOW,
      bookmarkIntervalMs: 100,
      stateFileDelayMs: 20,
    });
    core = cluster.kubeConfig.makeApiClient(CoreV1Api);
    apps = cluster.kubeConfig.makeApiClient(AppsV1Api);
    custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
    namespace = await cluster.createNamespace('conformance');
  });

  afterAll(async () => {
    await cluster.close();
  });
}

export function pod(name: string, labels: Record<string, string> = {}): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: { schedulerName: UNSCHEDULED, containers: [{ name: 'worker', image: 'nginx:1.27' }] },
  };
}

export function deployment(name: string, replicas = 2): V1Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: {
          schedulerName: UNSCHEDULED,
          containers: [
            {
              name: 'worker',
              image: 'nginx:1.27',
              env: [{ name: 'MODE', value: 'a' }],
              ports: [{ containerPort: 80 }],
            },
          ],
        },
      },
    },
  };
}

/** Collects watch events until `until` says stop or the timeout passes. */
export async function collectWatch(
  path: string,
  query: Record<string, string | boolean>,
  act: () => Promise<void>,
  until: (
    events: { type: string; object: KubernetesObject & { code?: number; reason?: string } }[],
  ) => boolean,
): Promise<{ type: string; object: KubernetesObject & { code?: number; reason?: string } }[]> {
  const events: { type: string; object: KubernetesObject & { code?: number; reason?: string } }[] =
    [];
  let finished: (() => void) | undefined;
  const done = new Promise<void>((resolve) => {
    finished = resolve;
  });
  const controller = await new Watch(cluster.kubeConfig).watch(
    path,
    query,
    (type, object) => {
      events.push({ type, object });
      if (until(events)) finished?.();
    },
    () => finished?.(),
  );
  await act();
  await Promise.race([done, new Promise((resolve) => setTimeout(resolve, 5000))]);
  controller.abort();
  return events;
}
