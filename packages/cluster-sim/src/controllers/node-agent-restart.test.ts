/**
 * The embedded node agent after a restart from the state file: the pods it finds running were
 * announced before, so their Events say Pulled/Started once (a kubelet does not re-announce a
 * container it already runs), while the new agent still serves their logs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CoreV1Api, type V1Pod } from '@kubernetes/client-node';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, describe, expect, it } from 'vitest';
import { type EmbeddedCluster, startEmbeddedCluster } from '../embedded.js';
import { eventually } from '../test-support/controller-cluster.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function started(stateFile: string): Promise<EmbeddedCluster> {
  const cluster = await startEmbeddedCluster({ stateFile, log: () => undefined });
  cleanups.push(() => cluster.stop());
  return cluster;
}

/** How many times the pod's Events say `reason` (a repeated Event counts each time). */
async function said(cluster: EmbeddedCluster, pod: V1Pod, reason: string): Promise<number> {
  const core = cluster.kubeConfig.makeApiClient(CoreV1Api);
  const events = await core.listNamespacedEvent({
    namespace: pod.metadata?.namespace ?? '',
    fieldSelector: `involvedObject.name=${pod.metadata?.name}`,
  });
  return events.items
    .filter((event) => event.reason === reason)
    .reduce((sum, event) => sum + (event.count ?? 1), 0);
}

// The embedded cluster's own agent; the real tier's agents run elsewhere.
describe.skipIf(onRealTier())(
  'node agent restarted from the state file',
  { timeout: 60_000 },
  () => {
    it('does not say Pulled/Started again for a container already reported running', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'mgpu-node-agent-restart-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const stateFile = join(dir, 'state.json');

      const first = await started(stateFile);
      const core = first.kubeConfig.makeApiClient(CoreV1Api);
      const pod = await eventually(
        async () => {
          const pods = (await core.listPodForAllNamespaces()).items;
          for (const each of pods)
            if (each.status?.phase === 'Running' && (await said(first, each, 'Started')) > 0)
              return each;
          return undefined;
        },
        30_000,
        'a running pod with its Started event',
      );
      const namespace = pod.metadata?.namespace ?? '';
      const name = pod.metadata?.name ?? '';
      const container = pod.spec?.containers[0]?.name ?? '';
      const before = {
        pulled: await said(first, pod, 'Pulled'),
        started: await said(first, pod, 'Started'),
      };
      await first.stop();
      cleanups.pop();

      const again = await started(stateFile);
      // The new agent took the pod up again: it writes what the node gave the container.
      await eventually(
        () =>
          again.containerLogs
            .lines(namespace, name, container)
            ?.some((line) => line.text.includes(`container ${container} started`)) || undefined,
        30_000,
        'the restarted agent to run the pod again',
      );
      // The agent hands Events to its recorder, which writes them a moment later: let any land.
      await sleep(1_500);
      expect(await said(again, pod, 'Pulled')).toBe(before.pulled);
      expect(await said(again, pod, 'Started')).toBe(before.started);
    });
  },
);
