import { AppsV1Api, type V1Deployment, type V1StatefulSet } from '@kubernetes/client-node';
import { mergePatch } from '@mgpu/kube-client';
import { MANAGED_BY, MANAGED_BY_LABEL } from '@mgpu/shared';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  callerWithChangeAfterCheck,
  ruleErrorsOf,
  startBffTest,
  uniqueName,
} from './test-support/bff-harness.js';

const harness = startBffTest();
let apps: AppsV1Api;
beforeAll(() => {
  apps = harness.adminKubeConfig.makeApiClient(AppsV1Api);
});

const namespace = 'default';
const managed = { [MANAGED_BY_LABEL]: MANAGED_BY };

/** No pods (0 replicas): these tests are about which object a delete removes, not its pods. */
const podSpec = (name: string) => ({
  selector: { matchLabels: { app: name } },
  template: {
    metadata: { labels: { app: name } },
    spec: { containers: [{ name: 'main', image: 'busybox' }] },
  },
});
const deploymentOf = (name: string, labels: Record<string, string>): V1Deployment => ({
  metadata: { name, labels },
  spec: { replicas: 0, ...podSpec(name) },
});
const statefulSetOf = (name: string, labels: Record<string, string>): V1StatefulSet => ({
  metadata: { name, labels },
  spec: { replicas: 0, serviceName: name, ...podSpec(name) },
});

const deploymentExists = (name: string) =>
  apps.readNamespacedDeployment({ namespace, name }).then(
    (found) => found.metadata?.uid,
    () => undefined,
  );

describe('workload.delete removes only the object it checked (spec §8)', () => {
  it('refuses, as a conflict, an object put in the checked one’s place, and leaves it', async () => {
    const name = uniqueName('swap');
    await apps.createNamespacedDeployment({ namespace, body: deploymentOf(name, managed) });
    let replacement: string | undefined;
    const caller = callerWithChangeAfterCheck(harness, async () => {
      // Someone else's workload of the same name, without the console's label.
      await apps.deleteNamespacedDeployment({ namespace, name });
      const created = await apps.createNamespacedDeployment({
        namespace,
        body: deploymentOf(name, { team: 'other' }),
      });
      replacement = created.metadata?.uid;
    });
    const refused = await ruleErrorsOf(
      caller.workload.delete({ namespace, name, kind: 'Deployment', lang: 'en' }),
    );
    expect(refused.code).toBe('CONFLICT');
    expect(refused.errors).toMatchObject([{ rule: 'conflict' }]);
    expect(replacement).toBeDefined();
    expect(await deploymentExists(name)).toBe(replacement);
    await harness.caller.workload.delete({ namespace, name, force: true });
  });

  it('still deletes the checked object when only its version moved (a status or annotation write)', async () => {
    const name = uniqueName('churn');
    await apps.createNamespacedDeployment({ namespace, body: deploymentOf(name, managed) });
    const caller = callerWithChangeAfterCheck(harness, async () => {
      const body = { metadata: { annotations: { 'example.com/touched': 'yes' } } };
      await apps.patchNamespacedDeployment({ namespace, name, body }, mergePatch());
    });
    const deleted = await caller.workload.delete({ namespace, name, lang: 'en' });
    expect(deleted).toEqual({ namespace, name, deleted: true });
    const gone = await apps.readNamespacedDeployment({ namespace, name }).then(
      (found) => found.metadata?.deletionTimestamp !== undefined,
      () => true,
    );
    expect(gone).toBe(true);
  });

  it('without kind, refuses a name two kinds share and says to send kind', async () => {
    const name = uniqueName('twin');
    await apps.createNamespacedDeployment({ namespace, body: deploymentOf(name, managed) });
    await apps.createNamespacedStatefulSet({ namespace, body: statefulSetOf(name, managed) });
    const refused = await ruleErrorsOf(
      harness.caller.workload.delete({ namespace, name, lang: 'en' }),
    );
    expect(refused.code).toBe('BAD_REQUEST');
    expect(refused.errors).toMatchObject([{ rule: 'kind-ambiguous', path: 'kind' }]);
    expect(refused.errors[0]?.message).toContain('Deployment, StatefulSet');
    expect(refused.errors[0]?.fix).toContain('"kind"');
    expect(await deploymentExists(name)).toBeDefined();

    await harness.caller.workload.delete({ namespace, name, kind: 'StatefulSet' });
    expect(await deploymentExists(name)).toBeDefined();
    // The StatefulSet may still be finishing its foreground delete: name the kind.
    await harness.caller.workload.delete({ namespace, name, kind: 'Deployment' });
  });
});
