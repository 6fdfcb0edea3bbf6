/**
 * `pod.events` and `pod.logs` (spec §9) on the result page's pods: the Events of a created
 * workload's pod, newest first, and its container's log — on the embedded cluster the node
 * agent's lines, then each new one; on the real tier (kube-apiserver with no kubelet to proxy
 * to) a typed "unavailable" instead of an error.
 */
import http from 'node:http';
import { CoreV1Api } from '@kubernetes/client-node';
import type { PodLogEvent } from '@mgpu/shared';
import { onRealTier } from '@mgpu/shared/test-tier';
import { describe, expect, it, onTestFinished } from 'vitest';
import {
  deleteAfterTest,
  eventually,
  ruleErrorsOf,
  seedRequest,
  startBffTest,
  trackedData,
  uniqueName,
} from './test-support/bff-harness.js';

const harness = startBffTest();
const namespace = 'default';

/** A running pod of a new seed workload (its container is the seed's `worker`). */
async function runningPod(prefix: string): Promise<string> {
  const name = uniqueName(prefix);
  deleteAfterTest(harness, name);
  await harness.caller.workload.create({ request: seedRequest(name), lang: 'en' });
  const pod = await eventually(
    () =>
      harness.bff.context.cluster.pods
        .list()
        .find(
          (item) =>
            item.metadata?.name?.startsWith(`${name}-`) &&
            item.status?.phase === 'Running' &&
            !item.metadata.deletionTimestamp,
        ),
    `a running pod of ${name}`,
  );
  return pod.metadata?.name ?? '';
}

/** Reads `pod.logs` events until `until` says enough (then leaves, as a browser tab closing). */
async function readLogs(
  input: { pod: string; tailLines?: number },
  until: (events: PodLogEvent[]) => boolean,
  onOpen?: (events: PodLogEvent[]) => void,
): Promise<PodLogEvent[]> {
  const events: PodLogEvent[] = [];
  const stream = await harness.caller.pod.logs({ namespace, container: 'worker', ...input });
  for await (const item of stream) {
    events.push(trackedData<PodLogEvent>(item));
    onOpen?.(events);
    if (until(events)) break;
  }
  return events;
}

/** The lines the log view shows: a `reset` starts it over, as the browser's does. */
function linesOf(events: PodLogEvent[]): string[] {
  const shown: string[] = [];
  for (const event of events) {
    if (event.type !== 'lines') continue;
    if (event.reset) shown.length = 0;
    shown.push(...event.lines);
  }
  return shown;
}

describe('pod.events', () => {
  it("lists the pod's Events newest first: placed on its cards by the scheduler, started by the node", async () => {
    const pod = await runningPod('events');
    const { events, containers } = await eventually(async () => {
      const answer = await harness.caller.pod.events({ namespace, pod, lang: 'en' });
      return answer.events.some((event) => event.reason === 'Started') ? answer : undefined;
    }, 'the Started event');
    expect(containers).toEqual(['worker']);
    const scheduled = events.find((event) => event.reason === 'Scheduled');
    expect(scheduled).toMatchObject({ type: 'Normal', source: 'mgpu-scheduler' });
    expect(scheduled?.message).toMatch(/cards worker=\[/);
    const times = events.map((event) => event.lastTime ?? '');
    expect(times).toEqual([...times].sort().reverse());
    expect(events.map((event) => event.reason)).toEqual(
      expect.arrayContaining(['Pulled', 'Started']),
    );
  });

  it('refuses a pod that does not exist, naming it', async () => {
    await expect(
      harness.caller.pod.events({ namespace, pod: 'no-such-pod', lang: 'en' }),
    ).rejects.toThrow(/no-such-pod/);
  });
});

describe('pod.logs', () => {
  it('sends the last lines the node agent wrote, then follows new ones; says "unavailable" where no kubelet serves logs', async () => {
    const pod = await runningPod('logs');
    if (onRealTier()) {
      // kube-apiserver proxies a log call to the node's kubelet; the real tier has none.
      const events = await readLogs({ pod }, () => false);
      expect(events).toEqual([
        { type: 'unavailable', reason: 'no-kubelet', detail: expect.any(String) },
      ]);
      return;
    }
    const written = 'epoch 1: loss 0.42';
    let wrote = false;
    const events = await readLogs(
      { pod, tailLines: 50 },
      (seen) => linesOf(seen).some((line) => line.endsWith(written)),
      (seen) => {
        // Once the tail arrived, the container writes one more line: it must follow.
        if (!wrote && linesOf(seen).some((line) => line.endsWith('container worker started'))) {
          wrote = true;
          harness.embedded?.containerLogs.write(namespace, pod, 'worker', written);
        }
      },
    );
    // The operator left: the BFF's log call ends with them, nothing keeps following.
    await eventually(
      () => harness.embedded?.containerLogs.followers(namespace, pod, 'worker') === 0,
      'the log call to end',
    );
    expect(events[0]).toEqual({ type: 'lines', reset: true, lines: [] });
    const lines = linesOf(events);
    expect(
      lines.some((line) =>
        /mGPU instance \/dev\/mgpu\d+inst\d+ on card \d+: compute weight 60 %, memory limit 4096 MiB/.test(
          line,
        ),
      ),
    ).toBe(true);
    // Timestamped, as `kubectl logs --timestamps`.
    for (const line of lines) expect(line).toMatch(/^\d{4}-\d\d-\d\dT\S+Z /);
    // A new view asks for the last line only, and gets just that.
    const tail = await readLogs({ pod, tailLines: 1 }, (seen) => linesOf(seen).length >= 1);
    expect(linesOf(tail)).toEqual([expect.stringMatching(/epoch 1: loss 0.42$/)]);
  });

  it('says a pod that is gone or has no node is unavailable, and refuses a container the pod does not have', async () => {
    expect(await readLogs({ pod: 'no-such-pod' }, () => false)).toEqual([
      { type: 'unavailable', reason: 'pod-gone', detail: expect.stringMatching(/not found/) },
    ]);
    // A pod no node holds yet has no log: said as such, and asked again until it has one.
    const waiting = uniqueName('waiting');
    const core = harness.adminKubeConfig.makeApiClient(CoreV1Api);
    await core.createNamespacedPod({
      namespace,
      body: {
        metadata: { name: waiting },
        spec: { schedulerName: 'nobody', containers: [{ name: 'worker', image: 'busybox' }] },
      },
    });
    onTestFinished(async () => {
      await core.deleteNamespacedPod({ namespace, name: waiting, gracePeriodSeconds: 0 });
    });
    expect(await readLogs({ pod: waiting }, (seen) => seen.length >= 1)).toEqual([
      { type: 'unavailable', reason: 'not-started', detail: expect.any(String) },
    ]);
    const pod = await runningPod('container');
    // A rule error in the operator's language (zh-CN unless asked), naming the pod's containers.
    const refused = await ruleErrorsOf(
      harness.caller.pod.logs({ namespace, pod, container: 'sidecar' }).then(async (stream) => {
        for await (const _ of stream) break;
      }),
    );
    expect(refused.code).toBe('BAD_REQUEST');
    expect(refused.errors).toMatchObject([
      {
        rule: 'container-not-found',
        path: 'container',
        message: expect.stringContaining('没有容器“sidecar”'),
        fix: expect.stringContaining('worker'),
      },
    ]);
    const english = await ruleErrorsOf(
      harness.caller.pod
        .logs({ namespace, pod, container: 'sidecar', lang: 'en' })
        .then(async (stream) => {
          for await (const _ of stream) break;
        }),
    );
    expect(english.errors[0]?.message).toMatch(/has no container "sidecar"/);
  });

  it('ends the log call when the subscriber leaves on the very first event', async () => {
    // The real tier has no kubelet to stream a log (the first test says so).
    if (onRealTier()) return;
    const pod = await runningPod('leave');
    const events = await readLogs({ pod }, (seen) => seen.length >= 1);
    expect(events).toEqual([{ type: 'lines', reset: true, lines: [] }]);
    await eventually(
      () => harness.embedded?.containerLogs.followers(namespace, pod, 'worker') === 0,
      'the log call to end once the subscriber left on the reset',
    );
  });

  it('reopens a follow the API server dropped while the container runs, without a line twice', async () => {
    if (onRealTier()) return;
    const pod = await runningPod('resume');
    const logs = harness.embedded?.containerLogs;
    const followed = () => logs?.followers(namespace, pod, 'worker') === 1 || undefined;
    const reading = readLogs({ pod, tailLines: 50 }, (seen) =>
      linesOf(seen).some((line) => line.endsWith('after the drop')),
    );
    await eventually(followed, 'the follow call');
    logs?.write(namespace, pod, 'worker', 'before the drop');
    // The connection to the kubelet drops; the container runs on.
    logs?.dropFollowers(namespace, pod, 'worker');
    await eventually(followed, 'the follow call reopened');
    logs?.write(namespace, pod, 'worker', 'after the drop');
    const events = await reading;
    expect(events.filter((event) => event.type === 'ended')).toEqual([]);
    const lines = linesOf(events);
    expect(lines.filter((line) => line.endsWith('before the drop'))).toHaveLength(1);
    expect(new Set(lines).size).toBe(lines.length);
    expect(lines.some((line) => line.endsWith('container worker started'))).toBe(true);
  });

  it('bounds the tail by its own bytes and goes on following; ends a follow past its bytes with "limit"', async () => {
    if (onRealTier()) return;
    const pod = await runningPod('budget');
    const logs = harness.embedded?.containerLogs;
    const long = (index: number) => `${String(index).padStart(5, '0')} ${'x'.repeat(1_000)}`;
    // 3,000 lines of 1 kB: more than the tail's bytes.
    for (let index = 0; index < 3_000; index += 1)
      logs?.write(namespace, pod, 'worker', long(index));
    const reading = readLogs({ pod, tailLines: 5_000 }, (seen) =>
      seen.some((event) => event.type === 'ended'),
    );
    await eventually(
      () => logs?.followers(namespace, pod, 'worker') === 1 || undefined,
      'the follow after the tail',
    );
    logs?.write(namespace, pod, 'worker', 'after the tail');
    // Then more than the follow's bytes: the stream ends, saying why.
    for (let index = 0; index < 5_000; index += 1)
      logs?.write(namespace, pod, 'worker', long(index));
    const events = await reading;
    const lines = linesOf(events);
    expect(lines.some((line) => line.endsWith('after the tail'))).toBe(true);
    const tail = lines.slice(
      0,
      lines.findIndex((line) => line.endsWith('after the tail')),
    );
    expect(tail.length).toBeGreaterThan(0);
    expect(tail.length).toBeLessThan(3_000);
    // What the bytes left out is the oldest lines, never the newest: the tail ends with the last.
    expect(tail.at(-1)).toMatch(/ 02999 x+$/);
    expect(new Set(tail).size).toBe(tail.length);
    expect(events.at(-1)).toEqual({ type: 'ended', reason: 'limit' });
    expect(lines.length - tail.length - 1).toBeLessThan(5_000);
  });

  it('over HTTP (SSE): lines stream to the browser, and the log call ends when it leaves', async () => {
    const pod = await runningPod('sse');
    const input = encodeURIComponent(JSON.stringify({ namespace, pod, container: 'worker' }));
    const text = await new Promise<string>((resolve, reject) => {
      http
        .get(
          `${harness.url}/trpc/pod.logs?input=${input}`,
          { headers: { accept: 'text/event-stream' } },
          (response) => {
            let received = '';
            response.setEncoding('utf8');
            response.on('data', (chunk: string) => {
              received += chunk;
              // The first event with lines in it (or the word that there are none), then leave.
              if (received.includes('"lines":["') || received.includes('"unavailable"')) {
                response.destroy();
                resolve(received);
              }
            });
          },
        )
        .on('error', reject);
    });
    if (onRealTier()) {
      expect(text).toMatch(/"reason":"no-kubelet"/);
      return;
    }
    expect(text).toMatch(/node \S+: starting container worker/);
    await eventually(
      () => harness.embedded?.containerLogs.followers(namespace, pod, 'worker') === 0,
      'the log call to end once the browser left',
    );
  });

  it('over HTTP: refuses more than 5,000 lines of tail before the stream opens', async () => {
    const input = encodeURIComponent(
      JSON.stringify({ namespace, pod: 'any', container: 'worker', tailLines: 5001 }),
    );
    const response = await fetch(`${harness.url}/trpc/pod.logs?input=${input}`);
    expect(response.status).toBe(400);
  });
});
