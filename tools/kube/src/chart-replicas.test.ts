// charts/mgpu-console as several replicas on the real API server (issue 30): two replicas
// whenever operators sign in, a rolling update and a PodDisruptionBudget that never leave none
// ready, the session key made once and kept through upgrades and reinstalls, and a Role that
// lets the console's account at its own Lease, sign-outs Secret and history ConfigMap by name
// and at nothing else. Pods do not run here (no kubelet), so where a pod would run, the test
// starts the console as the pod would (chart-support.ts). Runs under
// tools/kube/with-real-cluster.sh.
import type { V1Deployment, V1PodDisruptionBudget, V1Secret } from '@kubernetes/client-node';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authModeValues,
  CHART,
  canIAs,
  chartServiceAccount,
  chartTestBed,
  consoleContainer,
  consoleEnvValues,
  deploymentOf,
  FULLNAME,
  installedPod,
  RELEASE,
  renderChart,
  renderedObjects,
} from './chart-support.js';
import type { ConsoleProcess } from './console-process.js';
import { eventually, kubeConfigAs, kubectl, kubectlJson } from './test-support.js';

const bed = chartTestBed('chart-replicas');
const { namespace, helm } = bed;
const sessionKeySecret = `${FULLNAME}-session-key`;
// The console's own objects (design: `<MGPU_INSTANCE_NAME>-…` in MGPU_CONSOLE_NAMESPACE).
const lease = `leases.coordination.k8s.io/${FULLNAME}-leader`;
const revocations = `secrets/${FULLNAME}-revoked-sessions`;
const history = `configmaps/${FULLNAME}-pool-history`;

/** Every mode where operators sign in. */
const { none: _, ...SIGN_IN_MODES } = authModeValues(namespace);

const render = (values: string[]) => renderChart(helm, namespace, values);

const pdbOf = (objects: Array<Record<string, unknown>>) =>
  objects.find((object) => object.kind === 'PodDisruptionBudget') as
    | V1PodDisruptionBudget
    | undefined;

function sessionKey(): V1Secret {
  return kubectlJson<V1Secret>('admin', ['get', 'secret', '-n', namespace, sessionKeySecret]);
}

const canI = (verb: string, resource: string, ...flags: string[]) =>
  canIAs(chartServiceAccount(namespace), verb, resource, '--namespace', namespace, ...flags);

describe.skipIf(!onRealTier())("the Helm chart's replicas on the real API server", () => {
  const consoles: ConsoleProcess[] = [];

  beforeAll(() => bed.setUp(), 120_000);

  afterAll(async () => {
    await Promise.all(consoles.map((running) => running.stop()));
    // The namespace takes the kept session key with it.
    await bed.tearDown();
  }, 60_000);

  it('runs two replicas wherever operators sign in, one without sign-in; a number wins', () => {
    for (const [mode, values] of Object.entries(SIGN_IN_MODES)) {
      const deployment = deploymentOf(render(values));
      expect(deployment.spec?.replicas, mode).toBe(2);
      const env = consoleEnvValues(deployment);
      expect(env.MGPU_SESSION_KEY_FILE, mode).toBe('/etc/mgpu-console/session-key/key');
      // Each replica counts wrong sign-ins on its own: half of 10 each keeps ~10 per address.
      expect(env.MGPU_SIGN_IN_ATTEMPTS, mode).toBe('5');
    }
    const none = render(['auth.mode=none']);
    expect(deploymentOf(none).spec?.replicas).toBe(1);
    expect(consoleEnvValues(deploymentOf(none)).MGPU_SESSION_KEY_FILE).toBeUndefined();
    expect(none.some((object) => object.kind === 'Secret')).toBe(false);
    expect(pdbOf(none)).toBeUndefined();

    const three = deploymentOf(render(['replicaCount=3']));
    expect(three.spec?.replicas).toBe(3);
    expect(consoleEnvValues(three).MGPU_SIGN_IN_ATTEMPTS).toBe('4'); // 10 / 3, rounded up
    const one = render(['replicaCount=1']);
    expect(deploymentOf(one).spec?.replicas).toBe(1);
    expect(consoleEnvValues(deploymentOf(one)).MGPU_SIGN_IN_ATTEMPTS).toBe('10');
    // One replica and minAvailable 1 would block every drain of its node.
    expect(pdbOf(one)).toBeUndefined();
    const strict = render(['auth.signInAttemptsPerMinute=1']);
    expect(consoleEnvValues(deploymentOf(strict)).MGPU_SIGN_IN_ATTEMPTS).toBe('1');

    for (const refused of ['replicaCount=-1', 'replicaCount=two']) {
      const result = helm(['template', RELEASE, CHART, '--set', refused]);
      expect(result.status, refused).not.toBe(0);
      expect(result.stderr).toContain('/replicaCount');
    }
  });

  it('keeps a replica serving through upgrades and drains: rolling update, budget, spread, stop delay', () => {
    const objects = render([]);
    const deployment = deploymentOf(objects);
    expect(deployment.spec?.strategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 0, maxSurge: 1 },
    });
    const podLabels = deployment.spec?.template.metadata?.labels ?? {};
    const pdb = pdbOf(objects);
    expect(pdb?.spec?.minAvailable).toBe(1);
    expect(podLabels).toMatchObject(pdb?.spec?.selector?.matchLabels ?? { none: 'none' });
    const pod = deployment.spec?.template.spec;
    const spread = pod?.topologySpreadConstraints ?? [];
    expect(spread).toEqual([
      expect.objectContaining({
        topologyKey: 'kubernetes.io/hostname',
        whenUnsatisfiable: 'ScheduleAnyway',
        maxSkew: 1,
      }),
    ]);
    expect(podLabels).toMatchObject(spread[0]?.labelSelector?.matchLabels ?? { none: 'none' });
    const container = consoleContainer(deployment);
    expect(container.readinessProbe?.httpGet).toMatchObject({ path: '/readyz', port: 'http' });
    // The pod serves on while the Service forgets it, then the console's own stop (≤ 5 s) fits
    // in the grace period.
    expect(container.lifecycle?.preStop?.exec?.command?.[0]).toBe('node');
    expect(pod?.terminationGracePeriodSeconds).toBeGreaterThan(5 + 5);
    // Where the replicas keep what they share: the pod's own namespace, the release's names.
    const namespaceVariable = container.env?.find((v) => v.name === 'MGPU_CONSOLE_NAMESPACE');
    expect(namespaceVariable?.valueFrom?.fieldRef?.fieldPath).toBe('metadata.namespace');
    expect(consoleEnvValues(deployment).MGPU_INSTANCE_NAME).toBe(FULLNAME);

    const configured = render([
      'pdb.enabled=false',
      'topologySpread.whenUnsatisfiable=DoNotSchedule',
      'shutdownDelaySeconds=0',
    ]);
    expect(pdbOf(configured)).toBeUndefined();
    const configuredPod = deploymentOf(configured).spec?.template.spec;
    expect(configuredPod?.topologySpreadConstraints?.[0]?.whenUnsatisfiable).toBe('DoNotSchedule');
    expect(configuredPod?.containers[0]?.lifecycle).toBeUndefined();
  });

  it("names the console's objects as the console accepts, whatever the release's name", () => {
    // A release name may be 53 characters with dots; --instance-name is a DNS label of at most 42.
    const longRelease = 'team.a-release-name-long-enough-to-be-cut-to-size';
    const rendered = helm(['template', longRelease, CHART, '--namespace', namespace]);
    expect(rendered.status, rendered.stderr).toBe(0);
    const objects = renderedObjects(rendered.stdout);
    const prefix = consoleEnvValues(deploymentOf(objects)).MGPU_INSTANCE_NAME ?? '';
    expect(prefix).toMatch(/^[a-z0-9]([-a-z0-9]{0,40}[a-z0-9])?$/);
    const role = objects.find((object) => object.kind === 'Role') as
      | { rules: Array<{ resourceNames?: string[] }> }
      | undefined;
    expect(role?.rules.flatMap((rule) => rule.resourceNames ?? [])).toEqual([
      `${prefix}-leader`,
      `${prefix}-revoked-sessions`,
      `${prefix}-pool-history`,
    ]);
  });

  it("mounts an existing session key Secret's key as the file, and makes none of its own", () => {
    const objects = render([
      'session.existingSecret=team-session-key',
      'session.existingSecretKey=k',
    ]);
    // Only the chart's sign-outs Secret, which holds no key.
    expect(
      objects
        .filter((object) => object.kind === 'Secret')
        .map((object) => (object.metadata as { name?: string } | undefined)?.name),
    ).toEqual([`${FULLNAME}-revoked-sessions`]);
    const deployment = deploymentOf(objects);
    const volume = deployment.spec?.template.spec?.volumes?.find((v) => v.name === 'session-key');
    expect(volume?.secret).toMatchObject({
      secretName: 'team-session-key',
      items: [{ key: 'k', path: 'key' }],
    });
    expect(consoleContainer(deployment).volumeMounts).toContainEqual(
      expect.objectContaining({ name: 'session-key', readOnly: true }),
    );
  });

  it('installs two replicas, and an upgrade to another image keeps the session key', () => {
    const install = helm(['install', RELEASE, CHART, '--namespace', namespace]);
    expect(install.status, install.stderr).toBe(0);
    expect(install.stdout).toContain('Replicas: 2.');
    const before = kubectlJson<V1Deployment>('admin', [
      'get',
      'deployment',
      '-n',
      namespace,
      FULLNAME,
    ]);
    expect(before.spec?.replicas).toBe(2);
    const budget = kubectl('admin', ['get', 'pdb', '-n', namespace, FULLNAME]);
    expect(budget.status, budget.stderr).toBe(0);
    const key = sessionKey();
    expect(key.metadata?.annotations?.['helm.sh/resource-policy']).toBe('keep');
    const keyText = Buffer.from(key.data?.key ?? '', 'base64').toString('utf8');
    // 48 random bytes as base64 text: more than the 32 characters --session-key-file asks for.
    expect(keyText).toMatch(/^[A-Za-z0-9+/]{64}$/);

    const upgrade = helm([
      'upgrade',
      RELEASE,
      CHART,
      '--namespace',
      namespace,
      '--set',
      'image.tag=0.1.1',
    ]);
    expect(upgrade.status, upgrade.stderr).toBe(0);
    const after = kubectlJson<V1Deployment>('admin', [
      'get',
      'deployment',
      '-n',
      namespace,
      FULLNAME,
    ]);
    expect(after.spec?.template.spec?.containers[0]?.image).toBe('mgpu-console:0.1.1');
    // The same key: every session sealed before the upgrade opens on the new pods.
    expect(sessionKey().data).toEqual(key.data);
  });

  it("lets the console's account at its own Lease, sign-outs and history by name, nothing else", () => {
    for (const verb of ['get', 'update']) {
      for (const own of [lease, revocations, history])
        expect(canI(verb, own), `${verb} ${own}`).toBe(true);
    }
    // The first replica to start creates the Lease and the history (create cannot be limited
    // to a name); the sign-outs Secret is the chart's, so no Secret may be created at all.
    for (const kind of ['leases.coordination.k8s.io', 'configmaps'])
      expect(canI('create', kind), `create ${kind}`).toBe(true);
    expect(canI('create', 'secrets')).toBe(false);
    // Nothing is listed or watched, no other object of theirs is readable, none is deleted.
    for (const kind of ['leases.coordination.k8s.io', 'secrets', 'configmaps']) {
      expect(canI('list', kind), `list ${kind}`).toBe(false);
      expect(canI('watch', kind), `watch ${kind}`).toBe(false);
    }
    expect(canI('get', `secrets/${sessionKeySecret}`)).toBe(false);
    expect(canI('get', 'secrets/some-team-credentials')).toBe(false);
    expect(canI('update', 'leases.coordination.k8s.io/kube-scheduler')).toBe(false);
    expect(canI('get', 'configmaps/kube-root-ca.crt')).toBe(false);
    expect(canI('delete', revocations)).toBe(false);
    expect(canI('delete', lease)).toBe(false);
    // Only in its own namespace.
    expect(canI('get', revocations, '--namespace', 'default')).toBe(false);
    expect(canI('create', 'secrets', '--namespace', 'default')).toBe(false);
  });

  it('runs as two pods sharing the key: a sign-in holds on both and after a restart, a sign-out ends it on both', async () => {
    const admin = kubeConfigAs('admin');
    // Both pods get the same files from the kubelet: the account's token and the session key.
    const pod = installedPod(bed);
    const startPod = async () => {
      const started = await pod.start();
      consoles.push(started);
      return started;
    };
    const [first, second] = [await startPod(), await startPod()];

    // The chart's default auth: the operator signs in with their own token, on one pod.
    const signedIn = await fetch(`${first.base}/session`, {
      method: 'POST',
      headers: { origin: first.base, 'content-type': 'application/json' },
      body: JSON.stringify({ token: admin.getCurrentUser()?.token ?? '' }),
    });
    expect(signedIn.status, await signedIn.clone().text()).toBe(200);
    const cookie = (signedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const whoami = async (pod: ConsoleProcess) => {
      const response = await fetch(`${pod.base}/trpc/session.whoami`, { headers: { cookie } });
      expect(response.status, `${pod.base}: ${await response.clone().text()}`).toBe(200);
      return ((await response.json()) as { result: { data: { username: string } } }).result.data;
    };
    const operator = await whoami(first);
    // The Service sends the next request to the other pod: the same operator, still signed in.
    expect(await whoami(second)).toEqual(operator);
    // An upgrade replaces the first pod: its successor opens the same cookie.
    await first.stop();
    const successor = await startPod();
    expect(await whoami(successor)).toEqual(operator);

    // A sign-out on one pod is refused by the other too: the console's account keeps it in the
    // Secret the chart made, which the chart's Role lets it write (and no Secret create).
    const signedOut = await fetch(`${second.base}/session`, {
      method: 'DELETE',
      headers: { origin: second.base, cookie },
    });
    expect(signedOut.ok, await signedOut.clone().text()).toBe(true);
    const refused = async (pod: ConsoleProcess) =>
      (await fetch(`${pod.base}/trpc/session.whoami`, { headers: { cookie } })).status === 401;
    await eventually('the sign-out on both pods', async () =>
      (await refused(second)) && (await refused(successor)) ? true : undefined,
    );
    const signOuts = kubectlJson<V1Secret>('admin', ['get', revocations, '-n', namespace]);
    expect(Object.keys(signOuts.data ?? {})).toContain('revoked');
    await Promise.all(consoles.map((pod) => pod.stop()));
    // An upgrade leaves the console's sign-outs alone: the chart's Secret has no data of its own.
    const upgrade = helm(['upgrade', RELEASE, CHART, '--namespace', namespace, '--reuse-values']);
    expect(upgrade.status, upgrade.stderr).toBe(0);
    const kept = kubectlJson<V1Secret>('admin', ['get', revocations, '-n', namespace]);
    expect(kept.data?.revoked).toBe(signOuts.data?.revoked);
  }, 180_000);

  it('leaves the session key and the sign-outs behind on uninstall, and a reinstall adopts both', () => {
    const key = sessionKey();
    const signOuts = () => kubectlJson<V1Secret>('admin', ['get', revocations, '-n', namespace]);
    const revoked = signOuts().data?.revoked;
    expect(revoked).toBeDefined();
    const uninstall = helm(['uninstall', RELEASE, '--namespace', namespace]);
    expect(uninstall.status, uninstall.stderr).toBe(0);
    expect(sessionKey().data).toEqual(key.data);
    // Sessions the old key sealed open again after a reinstall: their sign-outs must stay too.
    expect(signOuts().data?.revoked).toBe(revoked);
    const install = helm(['install', RELEASE, CHART, '--namespace', namespace]);
    expect(install.status, install.stderr).toBe(0);
    expect(sessionKey().data).toEqual(key.data);
    expect(signOuts().data?.revoked).toBe(revoked);
  });
});
