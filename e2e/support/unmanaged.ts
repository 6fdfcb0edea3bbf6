import type { WorkloadRequestInput } from '@mgpu/shared';
import { expect, type Page } from '@playwright/test';
import { kubectl, type ReachableCluster } from './cluster.js';

/** The console under test: the run's own under the real tier, else the one on `cluster`. */
const consoleUrlOf = (cluster: ReachableCluster, path: string) =>
  `${cluster.consoleURL ?? ''}${path}`;

/**
 * A Deployment made with kubectl, as someone outside the console would: the console's own
 * manifest of `request` (its preview), minus the managed-by label (rule `not-managed`).
 */
export async function createWithKubectl(
  page: Page,
  cluster: ReachableCluster,
  request: WorkloadRequestInput,
): Promise<void> {
  const input = encodeURIComponent(JSON.stringify({ request, lang: 'en' }));
  const response = await page.request.get(
    consoleUrlOf(cluster, `/trpc/workload.preview?input=${input}`),
  );
  expect(response.ok()).toBe(true);
  const manifest = (await response.json()).result.data.manifest as {
    metadata: { labels: Record<string, string> };
  };
  delete manifest.metadata.labels['app.kubernetes.io/managed-by'];
  kubectl(cluster.kubeconfig, ['create', '-f', '-'], JSON.stringify(manifest));
}

/** One field of the Deployment `name` in `default`, as the Kubernetes API answers (`jsonpath`). */
export const deploymentField = (cluster: ReachableCluster, name: string, jsonpath: string) =>
  kubectl(cluster.kubeconfig, [
    'get',
    'deployment',
    name,
    '-n',
    'default',
    '-o',
    `jsonpath=${jsonpath}`,
  ]);
