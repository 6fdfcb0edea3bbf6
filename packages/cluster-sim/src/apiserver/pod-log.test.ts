/**
 * `pods/<name>/log` on the embedded cluster, as kubectl logs and the console read it: the node
 * agent's lines (what it set up for the container), tail, limitBytes, follow, and kube's refusals.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationFor, type EmbeddedCluster, startEmbeddedCluster } from '../embedded.js';
import { eventually } from '../test-support/controller-cluster.js';
import { KUBECTL } from './test-cluster.js';

let cluster: EmbeddedCluster;
let core: CoreV1Api;
/** A pod of the default topology that holds mGPU cards: its agent started it with instances. */
let pod: { namespace: string; name: string; container: string };

beforeAll(async () => {
  cluster = await startEmbeddedCluster({ log: () => undefined });
  core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const seeded = cluster.topology.pods.find((item) => item.node !== undefined);
  if (!seeded) throw new Error('the default topology has no running pod');
  const object = await core.readNamespacedPod({ namespace: seeded.namespace, name: seeded.name });
  pod = {
    namespace: seeded.namespace,
    name: seeded.name,
    container: object.spec?.containers[0]?.name ?? '',
  };
});
afterAll(async () => {
  await cluster?.stop();
});

const logUrl = (name: string, query: Record<string, string>, namespace = pod.namespace) =>
  `${cluster.url}/api/v1/namespaces/${namespace}/pods/${name}/log?${new URLSearchParams(query)}`;

async function readLog(query: Record<string, string>, name = pod.name) {
  const response = await fetch(logUrl(name, query), { headers: authorizationFor(cluster) });
  return { status: response.status, text: await response.text() };
}

describe('pods/<name>/log', () => {
  it('holds what the node agent set up for the container, each line timestamped', async () => {
    const log = await eventually(async () => {
      const read = await readLog({ container: pod.container, timestamps: 'true' });
      return read.status === 200 && read.text.includes('started\n') ? read.text : undefined;
    });
    const lines = log.trimEnd().split('\n');
    for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z /);
    expect(log).toMatch(
      /mGPU instance \/dev\/mgpu\d+inst\d+ on card \d+: compute weight \d+ %, memory limit \d+ MiB/,
    );
    expect(lines.at(-1)).toMatch(new RegExp(`container ${pod.container} started$`));
    // Without timestamps the lines are the container's own text.
    const plain = await readLog({ container: pod.container });
    expect(plain.text.split('\n')[0]).toMatch(/^node \S+: starting container/);
  });

  it('gives the last tailLines lines, and stops at limitBytes', async () => {
    const all = (await readLog({ container: pod.container })).text.trimEnd().split('\n');
    const tail = await readLog({ container: pod.container, tailLines: '2' });
    expect(tail.text.trimEnd().split('\n')).toEqual(all.slice(-2));
    const bounded = await readLog({ container: pod.container, limitBytes: '12' });
    expect(bounded.text).toBe(`${all.join('\n')}\n`.slice(0, 12));
  });

  it('gives the lines from sinceTime on, to the second as kube-apiserver passes it on', async () => {
    const read = await readLog({ container: pod.container, timestamps: 'true' });
    const lines = read.text.trimEnd().split('\n');
    const last = lines.at(-1)?.split(' ')[0] ?? '';
    const second = Math.floor(Date.parse(last) / 1000) * 1000;
    const since = await readLog({ container: pod.container, timestamps: 'true', sinceTime: last });
    expect(since.text.trimEnd().split('\n')).toEqual(
      lines.filter((line) => Date.parse(line.split(' ')[0] ?? '') >= second),
    );
    const later = new Date(second + 60_000).toISOString();
    expect((await readLog({ container: pod.container, sinceTime: later })).text).toBe('');
    expect((await readLog({ container: pod.container, sinceTime: 'yesterday' })).status).toBe(400);
  });

  it('is what kubectl logs prints', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pod-log-'));
    try {
      const kubeconfig = join(dir, 'kubeconfig');
      await cluster.writeKubeconfig(kubeconfig);
      const printed = await new Promise<string>((resolve, reject) =>
        execFile(
          KUBECTL,
          [
            '--kubeconfig',
            kubeconfig,
            'logs',
            '-n',
            pod.namespace,
            pod.name,
            '-c',
            pod.container,
            '--tail=1',
          ],
          { timeout: 30_000 },
          (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout)),
        ),
      );
      expect(printed).toBe(`container ${pod.container} started\n`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('follows: a line the container writes reaches an open stream, which ends with the pod', async () => {
    const received: string[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      http
        .get(
          logUrl(pod.name, { container: pod.container, follow: 'true', tailLines: '1' }),
          { headers: authorizationFor(cluster) },
          (response) => {
            expect(response.statusCode).toBe(200);
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => received.push(chunk));
            response.on('end', resolve);
          },
        )
        .on('error', reject);
    });
    await eventually(() => (received.join('').includes('started') ? true : undefined));
    cluster.containerLogs.write(pod.namespace, pod.name, pod.container, 'training step 1 done');
    await eventually(() =>
      received.join('').includes('training step 1 done\n') ? true : undefined,
    );
    expect(received.join('').split('\n')[0]).toMatch(/started$/);
    // The kubelet closes a follower's stream when the container stops.
    cluster.containerLogs.close(pod.namespace, pod.name);
    await ended;
  });

  it('answers as kube-apiserver does: an unknown container, a pod with no node (204, nothing), no pod', async () => {
    const unknown = await readLog({ container: 'nope' });
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.text)).toMatchObject({
      reason: 'BadRequest',
      message: expect.stringMatching(/container nope is not valid/),
    });
    await core.createNamespacedPod({
      namespace: pod.namespace,
      body: {
        metadata: { name: 'unplaced-log' },
        // A scheduler nobody runs: the pod stays without a node.
        spec: { schedulerName: 'nobody', containers: [{ name: 'main', image: 'busybox' }] },
      },
    });
    const unplaced = await readLog({ container: 'main' }, 'unplaced-log');
    expect(unplaced).toEqual({ status: 204, text: '' });
    expect((await readLog({ container: 'main' }, 'absent-pod')).status).toBe(404);
  });

  it("records the kubelet's Events of the started pod", async () => {
    const events = await eventually(async () => {
      const list = await core.listNamespacedEvent({
        namespace: pod.namespace,
        fieldSelector: `involvedObject.name=${pod.name}`,
      });
      const reasons = list.items.map((event) => event.reason);
      return reasons.includes('Started') ? list.items : undefined;
    });
    const started = events.find((event) => event.reason === 'Started');
    expect(started).toMatchObject({ type: 'Normal', source: { component: 'kubelet' } });
    expect(events.map((event) => event.reason)).toEqual(expect.arrayContaining(['Pulled']));
  });
});
