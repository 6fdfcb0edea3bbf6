import { appRouter } from '@mgpu/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type BffHarness,
  deleteAfterTest,
  eventually,
  PENDING_GPU,
  SEED_GPU,
  seedRequest,
  startHarness,
  uniqueName,
} from '../test-support/bff-harness.js';
import { ConsoleMetrics } from './metrics.js';

let harness: BffHarness;
beforeAll(async () => {
  harness = await startHarness({ metricsPort: 0 });
});
afterAll(async () => {
  await harness?.close();
});

/** One sample line of the Prometheus text format: name, labels, value. */
interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const label of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[label[1] ?? ''] = label[2] ?? '';
    samples.push({ name: match[1] ?? '', labels, value: Number(match[3]) });
  }
  return samples;
}

const scrape = async () => {
  const url = harness.bff.metricsUrl;
  if (url === undefined) throw new Error('the console serves no metrics');
  const response = await fetch(url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await response.text();
  familyBlocks(text);
  return parseSamples(text);
};

/**
 * Each family's samples as text, checking the format on the way: every sample sits in one
 * contiguous block under its own family's `# TYPE` (a histogram's `_bucket`/`_sum`/`_count` too).
 */
function familyBlocks(text: string): Map<string, string> {
  const blocks = new Map<string, string>();
  let family: string | undefined;
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) /.exec(line)?.[1];
    if (type !== undefined) {
      expect(blocks.has(type), `${type} has two blocks`).toBe(false);
      family = type;
      blocks.set(type, '');
      continue;
    }
    if (line === '' || line.startsWith('#')) continue;
    const name = /^([a-zA-Z_:][\w:]*)/.exec(line)?.[1] ?? '';
    expect([name, name.replace(/_(bucket|sum|count)$/, '')], line).toContain(family);
    blocks.set(family ?? '', `${blocks.get(family ?? '')}${line}\n`);
  }
  return blocks;
}

/** The card and instance families of an answer (the parts kept between scrapes). */
async function perCardAndInstance(metrics: ConsoleMetrics): Promise<string> {
  const blocks = familyBlocks(Buffer.concat(await metrics.answer()).toString());
  return [...blocks]
    .filter(([family]) => /^mgpu_(card|instance)_/.test(family))
    .map(([family, lines]) => `${family}\n${lines}`)
    .join('');
}

/** Creates the workload and waits for its pod's two mGPU instances (one per card). */
async function createOnTwoCards(name: string, request: ReturnType<typeof seedRequest>) {
  await harness.caller.workload.create({ request, clientRequestId: uniqueName('c'), lang: 'en' });
  return eventually(() => {
    const found = harness.bff.context.allocations.snapshot({ workload: name });
    return found.length === 2 ? found : undefined;
  }, 'the seed example on its two cards');
}

describe('/metrics', () => {
  it('is served on its own port, not on the console’s', async () => {
    expect(new URL(harness.bff.metricsUrl ?? '').port).not.toBe(new URL(harness.url).port);
    const onMain = await fetch(`${harness.url}/metrics`, { headers: { accept: 'text/plain' } });
    expect(onMain.status).toBe(404);
  });

  it('shows 60 on both cards of the seed example, and the pools as the dashboard does', async () => {
    const name = uniqueName('metrics');
    deleteAfterTest(harness, name);
    // The seed's example on the A100 native-burst-share node, whose cards 4–7 the default
    // topology leaves empty (0–3 have 20 % left): its two cards hold only this pod's 60 %.
    const records = await createOnTwoCards(
      name,
      seedRequest(name, {}, { ...SEED_GPU, model: 'NVIDIA-A100-SXM4-80GB' }),
    );
    const samples = await scrape();
    const compute = samples.filter((s) => s.name === 'mgpu_card_compute_allocated_percent');
    for (const record of records) {
      const card = compute.find(
        (s) => s.labels.node === record.node && s.labels.card === String(record.card),
      );
      expect(card?.value).toBe(60);
      expect(card?.labels.policy).toBe('native-burst-share');
      expect(card?.labels.model).toBeTruthy();
      const memory = samples.find(
        (s) =>
          s.name === 'mgpu_card_memory_allocated_mib' &&
          s.labels.node === record.node &&
          s.labels.card === String(record.card),
      );
      expect(memory?.value).toBe(4096);
      const instances = samples.find(
        (s) =>
          s.name === 'mgpu_card_instances' &&
          s.labels.node === record.node &&
          s.labels.card === String(record.card),
      );
      expect(instances?.value).toBe(1);
    }
    // One series per card of every GPU node, none per pod.
    const nodes = await harness.caller.cluster.nodes();
    expect(compute).toHaveLength(nodes.reduce((sum, node) => sum + node.cards.length, 0));
    const summary = await harness.caller.cluster.summary();
    for (const pool of summary.pools) {
      const of = (metric: string) =>
        samples.find((s) => s.name === metric && s.labels.pool === pool.pool)?.value;
      expect(of('mgpu_pool_stranded_memory_mib')).toBe(pool.stranded.memoryMiB);
      expect(of('mgpu_pool_stranded_compute_percent')).toBe(pool.stranded.computePercent);
      expect(of('mgpu_pool_largest_fit_compute_percent')).toBe(pool.largestFit.computePercent);
      expect(of('mgpu_pending_pods')).toBeDefined();
    }
  });

  it('shows each mGPU instance’s own share, wherever the scheduler put it', async () => {
    const name = uniqueName('metrics');
    deleteAfterTest(harness, name);
    const records = await createOnTwoCards(name, seedRequest(name));
    const samples = await scrape();
    for (const record of records) {
      const labels = {
        namespace: record.namespace,
        pod: record.pod,
        container: 'worker',
        node: record.node,
        card: String(record.card),
      };
      const of = (metric: string) =>
        samples.find(
          (s) => s.name === metric && JSON.stringify(s.labels) === JSON.stringify(labels),
        )?.value;
      expect(of('mgpu_instance_compute_percent')).toBe(60);
      expect(of('mgpu_instance_memory_mib')).toBe(4096);
      // A card's figure is the sum of its instances' (the scheduler's booking).
      const onCard = samples.filter(
        (s) =>
          s.name === 'mgpu_instance_compute_percent' &&
          s.labels.node === record.node &&
          s.labels.card === String(record.card),
      );
      const card = samples.find(
        (s) =>
          s.name === 'mgpu_card_compute_allocated_percent' &&
          s.labels.node === record.node &&
          s.labels.card === String(record.card),
      );
      expect(card?.value).toBe(onCard.reduce((sum, s) => sum + s.value, 0));
    }
  });

  it('counts a pod no node can take under the pools that lack room for it', async () => {
    const name = uniqueName('nofit');
    deleteAfterTest(harness, name);
    await harness.caller.workload.create({
      request: seedRequest(name, {}, PENDING_GPU),
      clientRequestId: uniqueName('c'),
      lang: 'en',
    });
    const pending = await eventually(async () => {
      const pod = (await harness.caller.cluster.pending()).find((p) => p.workload === name);
      return pod && pod.rejections.length > 0 ? pod : undefined;
    }, 'the pod to be pending');
    const samples = (await scrape()).filter((s) => s.name === 'mgpu_pending_pods');
    const pools = pending.largestFits?.length ? pending.largestFits.map((f) => f.pool) : ['none'];
    for (const pool of pools)
      expect(samples.find((s) => s.labels.pool === pool)?.value).toBeGreaterThanOrEqual(1);
  });

  it('answers after a change what a fresh build from the same cluster answers', async () => {
    const kept = new ConsoleMetrics({
      views: harness.bff.context.views,
      allocations: harness.bff.context.allocations,
      router: appRouter,
      sseSubscribers: () => 0,
    });
    const fresh = () =>
      new ConsoleMetrics({
        views: harness.bff.context.views,
        allocations: harness.bff.context.allocations,
        router: appRouter,
        sseSubscribers: () => 0,
      });
    await perCardAndInstance(kept);
    const name = uniqueName('metrics');
    deleteAfterTest(harness, name);
    const records = await createOnTwoCards(name, seedRequest(name));
    // Both in the same turn of the event loop: no informer event between them.
    const [afterCreate, freshAfterCreate] = await Promise.all([
      perCardAndInstance(kept),
      perCardAndInstance(fresh()),
    ]);
    expect(afterCreate).toBe(freshAfterCreate);
    for (const record of records) expect(afterCreate).toContain(`pod="${record.pod}"`);

    await harness.caller.workload.delete({ namespace: 'default', name });
    await eventually(
      () => harness.bff.context.allocations.snapshot({ workload: name }).length === 0 || undefined,
      'the pod’s instances to be gone',
    );
    const [afterDelete, freshAfterDelete] = await Promise.all([
      perCardAndInstance(kept),
      perCardAndInstance(fresh()),
    ]);
    expect(afterDelete).toBe(freshAfterDelete);
    for (const record of records) expect(afterDelete).not.toContain(`pod="${record.pod}"`);
  });

  it('has the console’s own figures: SSE subscribers, HTTP durations, process metrics', async () => {
    await fetch(`${harness.url}/trpc/gpu.models`);
    const samples = await scrape();
    const names = new Set(samples.map((s) => s.name));
    expect(names).toContain('mgpu_console_sse_subscribers');
    expect(names).toContain('process_cpu_seconds_total');
    expect(names).toContain('nodejs_eventloop_lag_seconds');
    const models = samples.find(
      (s) =>
        s.name === 'mgpu_console_http_request_duration_seconds_count' &&
        s.labels.route === '/trpc/gpu.models',
    );
    expect(models?.value).toBeGreaterThanOrEqual(1);
    expect(models?.labels).toMatchObject({ method: 'GET', status_code: '200' });
  });
});
