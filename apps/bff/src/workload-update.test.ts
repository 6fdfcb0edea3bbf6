import { AppsV1Api } from '@kubernetes/client-node';
import { mergePatch } from '@mgpu/kube-client';
import { APP_LABEL, MAX_ECHOED_INPUT, WorkloadRequestSchema } from '@mgpu/shared';
import { beforeAll, describe, expect, it } from 'vitest';
import { mutation } from './hardening/hardening-support.js';
import {
  type BffHarness,
  callerWithWorkloads,
  eventually,
  ruleErrorsOf,
  seedRequest,
  startBffTest,
  uniqueName,
  withCompute,
} from './test-support/bff-harness.js';

const harness = startBffTest();
let apps: AppsV1Api;
beforeAll(() => {
  apps = harness.adminKubeConfig.makeApiClient(AppsV1Api);
});

const namespace = 'default';

/**
 * Another client's write that leaves the form's fields and the console's labels alone: an
 * annotation of the Deployment itself, like the controller's revision (kube-apiserver bumps a
 * Deployment's generation for it all the same).
 */
const touch = async (name: string, value: string) => {
  const body = { metadata: { annotations: { 'example.com/touched': value } } };
  const patched = await apps.patchNamespacedDeployment({ namespace, name, body }, mergePatch());
  return patched.metadata?.resourceVersion ?? '';
};

type Caller = BffHarness['caller'];
type OpenedForm = Awaited<ReturnType<Caller['workload']['get']>>;

/** The operator's edit from the form they opened: compute 1.6 instead of 1.2. */
const applyEdit = (caller: Caller, name: string, form: OpenedForm) =>
  caller.workload.update({
    namespace,
    name,
    resourceVersion: form.resourceVersion,
    request: withCompute(form.request, '1.6'),
    lang: 'en',
  });

/** A caller whose first PUT waits for `write`: another client's write between read and PUT. */
function writeBeforeFirstPut(write: () => Promise<unknown>) {
  let happened = false;
  const caller = callerWithWorkloads(harness, (real) => ({
    replace: async (kind, ns, name, object) => {
      if (!happened) {
        happened = true;
        await write();
      }
      return real.replace(kind, ns, name, object);
    },
  }));
  return { caller, happened: () => happened };
}

/** The seed example, created by the console, and the form as an operator opens it. */
async function opened(prefix: string) {
  const name = uniqueName(prefix);
  await harness.caller.workload.create({
    request: WorkloadRequestSchema.parse(seedRequest(name)),
    lang: 'en',
  });
  return { name, form: await harness.caller.workload.get({ namespace, name }) };
}

describe('workload.update: a conflict means the spec or the console’s labels changed (spec §8)', () => {
  it('accepts an edit from a version many writes that leave the spec alone have made stale', async () => {
    const { name, form } = await opened('churn');
    let last = '';
    for (let write = 0; write < 80; write += 1) last = await touch(name, String(write));
    // The console has heard of every one of them before the operator applies the edit.
    await eventually(
      () =>
        harness.bff.context.cluster.workloads.cached(namespace, name)?.metadata?.resourceVersion ===
        last,
      'the console to see the last write',
    );
    const updated = await applyEdit(harness.caller, name, form);
    expect(updated.changes).toEqual([
      { path: 'containers.0.gpu.compute', before: '1.2', after: '1.6' },
    ]);
    await harness.caller.workload.delete({ namespace, name });
  });

  it('refuses an edit once another client changed a label the console set', async () => {
    const { name, form } = await opened('relabel');
    const body = { metadata: { labels: { [APP_LABEL]: `${name}-renamed` } } };
    await apps.patchNamespacedDeployment({ namespace, name, body }, mergePatch());
    const refused = await ruleErrorsOf(applyEdit(harness.caller, name, form));
    expect(refused.code).toBe('CONFLICT');
    expect(refused.errors).toMatchObject([{ rule: 'conflict' }]);
    await harness.caller.workload.delete({ namespace, name });
  });

  it('writes the edit when a status-like write lands between its read and its PUT', async () => {
    const { name, form } = await opened('race');
    const race = writeBeforeFirstPut(() => touch(name, 'between'));
    const updated = await applyEdit(race.caller, name, form);
    expect(race.happened()).toBe(true);
    expect(updated.changes).toMatchObject([{ path: 'containers.0.gpu.compute', after: '1.6' }]);
    await harness.caller.workload.delete({ namespace, name });
  });

  it('still refuses a spec edit another client made between its read and its PUT', async () => {
    const { name, form } = await opened('rival');
    const race = writeBeforeFirstPut(async () => {
      const body = { spec: { replicas: 2 } };
      await apps.patchNamespacedDeployment({ namespace, name, body }, mergePatch());
    });
    const refused = await ruleErrorsOf(applyEdit(race.caller, name, form));
    expect(race.happened()).toBe(true);
    expect(refused.code).toBe('CONFLICT');
    expect(refused.errors).toMatchObject([{ rule: 'conflict' }]);
    const stored = await apps.readNamespacedDeployment({ namespace, name });
    expect(stored.spec?.replicas).toBe(2);
    await harness.caller.workload.delete({ namespace, name });
  });
});

describe('workload.update: what an error quotes of the client input is bounded', () => {
  it('refuses a 100 KB resourceVersion on its field, without sending it back', async () => {
    const { name, form } = await opened('huge');
    const resourceVersion = '9'.repeat(100_000);
    const body = JSON.stringify({ namespace, name, resourceVersion, request: form.request });
    const answer = await mutation(harness.url, 'workload.update', body);
    expect(answer.status).toBe(400);
    expect(answer.text).toContain('resourceVersion');
    expect(answer.text.length).toBeLessThan(2_000);
    await harness.caller.workload.delete({ namespace, name });
  });

  it('quotes a stale resourceVersion in the conflict cut to 64 characters with an ellipsis', async () => {
    const { name, form } = await opened('echo');
    const sent = `${'x'.repeat(MAX_ECHOED_INPUT)}${'y'.repeat(60)}`;
    const refused = await ruleErrorsOf(
      applyEdit(harness.caller, name, { ...form, resourceVersion: sent }),
    );
    expect(refused.code).toBe('CONFLICT');
    expect(refused.errors).toMatchObject([{ rule: 'conflict', path: 'resourceVersion' }]);
    expect(refused.errors[0]?.message).toContain(`${'x'.repeat(MAX_ECHOED_INPUT)}…`);
    expect(refused.errors[0]?.message).not.toContain('yy');
    expect(refused.errors[0]?.fix).toBeTruthy();
    await harness.caller.workload.delete({ namespace, name });
  });
});
