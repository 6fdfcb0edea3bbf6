/**
 * The embedded cluster's GPU exporter, as Prometheus and the console read it: every card of
 * every GPU node, every container on them, the simulated-utilization annotation obeyed, and the
 * node agents' `vmem_info` from the same model.
 */
import { AppsV1Api, CoreV1Api, CustomObjectsApi, type V1Deployment } from '@kubernetes/client-node';
import { mergePatch } from '@mgpu/kube-client';
import {
  checkRequest,
  GPU_METRICS,
  MGPU_NODE_RESOURCE,
  type MgpuNodeStatus,
  SIMULATED_UTILIZATION_ANNOTATION,
} from '@mgpu/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedCluster, startEmbeddedCluster } from '../embedded.js';
import { eventually } from '../test-support/controller-cluster.js';
import { type ExposedFamily, parseExposition } from '../test-support/prometheus-text.js';
import { topologyPodObject } from '../topology/topology.js';

let cluster: EmbeddedCluster;
let core: CoreV1Api;
const NAMESPACE = 'team-a';

/** A one-container pod with `compute` of one card, placed by the scheduler, annotated if asked. */
async function createPod(name: string, compute: string, annotated?: string) {
  const body = topologyPodObject({
    name,
    namespace: NAMESPACE,
    containers: [
      {
        name: 'main',
        image: 'busybox:1.36',
        gpu: { type: 'mgpu', multiCard: false, compute, memoryGiB: '4' },
      },
    ],
  });
  if (annotated !== undefined)
    body.metadata.annotations[SIMULATED_UTILIZATION_ANNOTATION] = annotated;
  await core.createNamespacedPod({ namespace: NAMESPACE, body });
}

const instanceOf = (pod: string) =>
  eventually(
    () => cluster.gpuMetrics.samples().instances.find((item) => item.pod === pod),
    30_000,
    `${pod} running`,
  );

const seriesOf = (family: ExposedFamily | undefined, labels: Record<string, string>) =>
  family?.samples.filter((sample) =>
    Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
  ) ?? [];

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ log: () => undefined, gpuMetricsPort: 0 });
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  await createPod('busy-80', '0.5', '80');
  await createPod('idle-0', '0.25', '0');
});
afterAll(async () => {
  await cluster?.stop();
});

describe('the embedded GPU exporter', () => {
  it('has a card series for every card of every GPU node, unused ones at 0 %', async () => {
    await instanceOf('busy-80');
    const gpuCards = cluster.topology.pools
      .filter((pool) => pool.resourceType !== 'none')
      .reduce((sum, pool) => sum + pool.nodes * (pool.cardsPerNode ?? 0), 0);
    const { cards, instances } = cluster.gpuMetrics.samples();
    expect(cards).toHaveLength(gpuCards);
    const used = new Set(instances.map((item) => `${item.node}/${item.card}`));
    const unused = cards.filter((card) => !used.has(`${card.node}/${card.card}`));
    expect(unused.length).toBeGreaterThan(0);
    for (const card of unused) {
      expect(card.utilizationPercent).toBe(0);
      if (card.memoryMiB !== null) expect(card.memoryFreeMiB).toBe(card.memoryMiB);
    }
    // A card's figure is its instances' use weighted by their share of it.
    for (const card of cards) {
      const on = instances.filter((item) => item.node === card.node && item.card === card.card);
      const sum = on.reduce(
        (total, item) => total + (item.utilizationPercent * item.allocatedComputePercent) / 100,
        0,
      );
      expect(card.utilizationPercent).toBeCloseTo(Math.min(100, sum), 0);
    }
  });

  it('shows what the annotation asks: 80 % of its own share, and 0 % for the idle one', async () => {
    const busy = await instanceOf('busy-80');
    const idle = await instanceOf('idle-0');
    expect(busy.allocatedComputePercent).toBe(50);
    expect(Math.abs(busy.utilizationPercent - 80)).toBeLessThanOrEqual(2);
    expect(idle.utilizationPercent).toBe(0);
    for (const item of [busy, idle]) {
      expect(item.memoryUsedMiB).toBeGreaterThan(0);
      expect(item.memoryUsedMiB).toBeLessThanOrEqual(item.memoryLimitMiB ?? 0);
    }
  });

  it('serves the same figures as Prometheus text on GET /metrics, each family with a HELP that says simulated', async () => {
    const busy = await instanceOf('busy-80');
    const url = cluster.gpuMetrics.url ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const families = parseExposition(await response.text());
    for (const name of Object.values(GPU_METRICS)) {
      expect(families.get(name)?.type, name).toBe('gauge');
      expect(families.get(name)?.help, name).toMatch(/simulated/);
    }
    const cards = cluster.gpuMetrics.samples().cards;
    expect(families.get(GPU_METRICS.cardUtilization)?.samples).toHaveLength(cards.length);
    const [series] = seriesOf(families.get(GPU_METRICS.instanceUtilization), {
      namespace: NAMESPACE,
      pod: 'busy-80',
      container: 'main',
    });
    expect(series?.labels).toEqual({
      Hostname: busy.node,
      gpu: String(busy.card),
      namespace: NAMESPACE,
      pod: 'busy-80',
      container: 'main',
    });
    expect(Math.abs((series?.value ?? 0) - 80)).toBeLessThanOrEqual(2);
    const card = seriesOf(families.get(GPU_METRICS.cardUtilization), {
      Hostname: busy.node,
      gpu: String(busy.card),
    });
    expect(card).toHaveLength(1);
    expect(Object.keys(card[0]?.labels ?? {}).sort()).toEqual([
      'Hostname',
      'UUID',
      'gpu',
      'modelName',
    ]);
    const active = seriesOf(families.get(GPU_METRICS.cardEngineActive), {
      Hostname: busy.node,
      gpu: String(busy.card),
    });
    expect(active[0]?.value).toBeCloseTo((card[0]?.value ?? 0) / 100, 2);
    // Unknown is left out, never written as 0: whole-card nodes do not say their memory.
    const fbUsed = families.get(GPU_METRICS.cardMemoryUsed)?.samples.length ?? 0;
    expect(fbUsed).toBe(cards.filter((item) => item.memoryUsedMiB !== null).length);
  });

  it("fills each instance's vmem_info and tasks in the MgpuNode report from the same model", async () => {
    const busy = await instanceOf('busy-80');
    const custom = cluster.kubeConfig.makeApiClient(CustomObjectsApi);
    const reported = await eventually(async () => {
      const object = (await custom.getClusterCustomObject({
        group: MGPU_NODE_RESOURCE.group,
        version: MGPU_NODE_RESOURCE.version,
        plural: MGPU_NODE_RESOURCE.plural,
        name: busy.node,
      })) as { status?: MgpuNodeStatus };
      return object.status?.cards
        .flatMap((card) => card.instances)
        .find((instance) => instance.pod === 'busy-80');
    });
    const [task] = reported.tasks ?? [];
    expect(task).toBeGreaterThan(0);
    expect(reported.vmem_info?.used).toEqual([{ pid: task, used_mib: busy.memoryUsedMiB }]);
    expect((reported.vmem_info?.free_mib ?? 0) + (busy.memoryUsedMiB ?? 0)).toBe(
      reported.vmem_limit,
    );
  });

  it("takes a Deployment's pod template annotation: each replica at what it says", async () => {
    const checked = checkRequest({
      name: 'quiet-deploy',
      namespace: NAMESPACE,
      replicas: 2,
      containers: [
        {
          name: 'main',
          image: 'busybox:1.36',
          gpu: { type: 'mgpu', multiCard: false, compute: '0.2', memoryGiB: '2' },
        },
      ],
    });
    const manifest = checked.manifest;
    if (!manifest) throw new Error('the request is invalid');
    manifest.spec.template.metadata.annotations = {
      ...manifest.spec.template.metadata.annotations,
      [SIMULATED_UTILIZATION_ANNOTATION]: '0',
    };
    await cluster.kubeConfig
      .makeApiClient(AppsV1Api)
      .createNamespacedDeployment({ namespace: NAMESPACE, body: manifest as V1Deployment });
    const replicas = await eventually(() => {
      const found = cluster.gpuMetrics
        .samples()
        .instances.filter((item) => item.pod.startsWith('quiet-deploy-'));
      return found.length === 2 ? found : undefined;
    });
    for (const replica of replicas) expect(replica.utilizationPercent).toBe(0);
  });

  it('follows the annotation when it changes on a running pod (kubectl annotate)', async () => {
    await instanceOf('idle-0');
    await core.patchNamespacedPod(
      {
        namespace: NAMESPACE,
        name: 'idle-0',
        body: { metadata: { annotations: { [SIMULATED_UTILIZATION_ANNOTATION]: '100' } } },
      },
      mergePatch(),
    );
    await eventually(
      () =>
        cluster.gpuMetrics
          .samples()
          .instances.find((item) => item.pod === 'idle-0' && item.utilizationPercent === 100),
      30_000,
      'the new annotation to show',
    );
  });
});
