/**
 * @mgpu/kube-client's LeaderElector against a Kubernetes API: the embedded cluster, or the real
 * kube-apiserver on the real tier (startTestCluster). It is tested here rather than beside
 * leader-election.ts because kube-client cannot depend on the cluster that depends on it.
 * Replicas are electors in this process and, for a crash, a child process killed with SIGKILL.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CoordinationV1Api, type V1Lease } from '@kubernetes/client-node';
import { LeaderElector } from '@mgpu/kube-client';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventually, startTestCluster, type TestCluster } from './apiserver/test-cluster.js';

vi.setConfig({ testTimeout: 90_000, hookTimeout: 120_000 });

const SHORT = { leaseDurationSeconds: 2, renewDeadlineMs: 1500, retryPeriodMs: 200 };
const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const LEASE_HOLDER = fileURLToPath(new URL('./test-support/lease-holder.ts', import.meta.url));

let cluster: TestCluster;
let leases: CoordinationV1Api;
let namespace: string;
const electors: LeaderElector[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  cluster = await startTestCluster();
  leases = cluster.kubeConfig.makeApiClient(CoordinationV1Api);
  namespace = await cluster.createNamespace('leader-election');
});

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await Promise.all(electors.splice(0).map((elector) => elector.stop()));
});

afterAll(async () => {
  await cluster.close();
});

function elector(name: string, identity: string, log: string[] = []): LeaderElector {
  const made = new LeaderElector({
    kubeConfig: cluster.kubeConfig,
    namespace,
    name,
    identity,
    ...SHORT,
    log: (message) => log.push(message),
  });
  electors.push(made);
  return made;
}

const readLease = (name: string): Promise<V1Lease> =>
  leases.readNamespacedLease({ name, namespace });

/** Generous: a loaded machine or a real cluster may be slow; the test never asserts how long. */
const TAKEOVER_TIMEOUT_MS = 30_000;
/**
 * The contract: another replica takes over within the lease duration of the leader's
 * death (a released lease at once). Three lease durations leave room for a busy 2-core machine
 * and still fail an elector that waits for anything longer than the lease.
 */
const HANDOVER_BOUND_MS = 3 * SHORT.leaseDurationSeconds * 1000;

async function leaderOf(candidates: LeaderElector[]): Promise<LeaderElector> {
  return eventually(async () => {
    const leading = candidates.filter((candidate) => candidate.leading);
    return leading.length === 1 ? leading[0] : undefined;
  }, TAKEOVER_TIMEOUT_MS);
}

describe('LeaderElector', () => {
  it('elects exactly one of two replicas, and the other takes over when the leader stops', async () => {
    const a = elector('two-replicas', 'replica-a');
    const b = elector('two-replicas', 'replica-b');
    const seen = { a: [] as boolean[], b: [] as boolean[] };
    a.onChange((leading) => seen.a.push(leading));
    b.onChange((leading) => seen.b.push(leading));
    a.start();
    b.start();
    const leader = await leaderOf([a, b]);
    const follower = leader === a ? b : a;
    // Several renewals later there is still one leader, and the Lease names it.
    for (let check = 0; check < 5; check += 1) {
      await new Promise((resolve) => setTimeout(resolve, SHORT.retryPeriodMs));
      expect([a, b].filter((candidate) => candidate.leading)).toEqual([leader]);
    }
    const held = await readLease('two-replicas');
    const leaderIdentity = leader === a ? 'replica-a' : 'replica-b';
    expect(held.spec?.holderIdentity).toBe(leaderIdentity);

    await leader.stop();
    expect(leader.leading).toBe(false);
    await eventually(async () => (follower.leading ? true : undefined), HANDOVER_BOUND_MS);
    const taken = await readLease('two-replicas');
    expect(taken.spec?.holderIdentity).toBe(leader === a ? 'replica-b' : 'replica-a');
    expect(taken.spec?.leaseTransitions).toBe((held.spec?.leaseTransitions ?? 0) + 1);
    expect(leader === a ? seen.a : seen.b).toEqual([true, false]);
    expect(follower === a ? seen.a : seen.b).toEqual([true]);
  });

  it('hands over from a replica that crashed once its lease runs out', async () => {
    const crashing = spawn(
      process.execPath,
      [
        '--conditions=source',
        '--import',
        'tsx',
        LEASE_HOLDER,
        cluster.kubeconfigPath,
        namespace,
        'crash',
        'crashing-replica',
      ],
      { cwd: PACKAGE_DIR, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(crashing);
    let output = '';
    crashing.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    crashing.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    await eventually(
      async () => (/^leading$/m.test(output) ? true : undefined),
      TAKEOVER_TIMEOUT_MS,
    ).catch(() => {
      throw new Error(`the child replica never led: ${output}`);
    });
    const crashed = await readLease('crash');
    expect(crashed.spec?.holderIdentity).toBe('crashing-replica');

    const survivor = elector('crash', 'surviving-replica');
    survivor.start();
    // While the child renews, its lease stands.
    for (let check = 0; check < 5; check += 1) {
      await new Promise((resolve) => setTimeout(resolve, SHORT.retryPeriodMs));
      expect(survivor.leading).toBe(false);
    }
    crashing.kill('SIGKILL');
    await eventually(async () => (survivor.leading ? true : undefined), HANDOVER_BOUND_MS);
    const taken = await readLease('crash');
    expect(taken.spec?.holderIdentity).toBe('surviving-replica');
    expect(taken.spec?.leaseTransitions).toBe((crashed.spec?.leaseTransitions ?? 0) + 1);
  });

  it('logs a failure that repeats once, not at every retry', async () => {
    const log: string[] = [];
    const lost = new LeaderElector({
      kubeConfig: cluster.kubeConfig,
      namespace: 'no-such-namespace-for-leases',
      name: 'nowhere',
      identity: 'replica-a',
      ...SHORT,
      log: (message) => log.push(message),
    });
    electors.push(lost);
    lost.start();
    await eventually(async () => (log.length > 0 ? true : undefined), TAKEOVER_TIMEOUT_MS);
    // Many retries later, still the one line.
    await new Promise((resolve) => setTimeout(resolve, 10 * SHORT.retryPeriodMs));
    expect(lost.leading).toBe(false);
    expect(log).toHaveLength(1);
    expect(log[0]).toContain('no-such-namespace-for-leases/nowhere');
  });
});
