/**
 * Two consoles over one cluster (issue 30), as a Service with two replicas runs them: both
 * processes share `--session-key-file`, `--console-namespace` and `--instance-name`, behind a
 * round-robin proxy, on the embedded cluster reached by kubeconfig as `pnpm sim` serves it.
 * A sign-in through the Service works on both; a restart keeps it; a sign-out on one is refused
 * by both within the 5 s; a stream cut by its replica's death resumes on the other with
 * `Last-Event-ID` and nothing missed; the leader's death moves the Lease and history sampling.
 * The real tier's twin, with `--auth kubernetes`: replicas.real.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedRequest } from '@mgpu/shared';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from './test-support/bff-harness.js';
import {
  acceptingAfter,
  type ConsoleReplicas,
  historyThrough,
  killLeader,
  type ReplicaName,
  signIn,
  signOut,
  startConsoleReplicas,
  statusWith,
  watchAllocations,
} from './test-support/console-replicas.js';
import { type EmbeddedCluster, startEmbeddedCluster } from './test-support/embedded-cluster.js';

/** The console's shared token (`--token`): 32 characters. */
const TOKEN = randomBytes(24).toString('base64');
const instance = `replicas-${randomBytes(3).toString('hex')}`;
const namespace = 'default';
/** client-go's default lease duration is 15 s; a busy 2-core machine gets twice that. */
const HANDOVER_BOUND_MS = 30_000;
/** The contract: a sign-out on any replica is refused by every replica within 5 s. */
const SIGN_OUT_BOUND_MS = 5_000;

let dir = '';
let cluster: EmbeddedCluster | undefined;
let replicas: ConsoleReplicas;
const other = (name: ReplicaName): ReplicaName => (name === 'a' ? 'b' : 'a');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mgpu-replicas-'));
  cluster = await startEmbeddedCluster({ log: () => {} });
  const kubeconfig = join(dir, 'kubeconfig');
  await cluster.writeKubeconfig(kubeconfig);
  replicas = await startConsoleReplicas({
    dir,
    kubeconfig,
    namespace,
    instance,
    access: ['--token', TOKEN],
  });
}, 180_000);

afterAll(async () => {
  await replicas?.close();
  await cluster?.stop();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

/** Both replicas' answers to a cheap query with `cookie`. */
const onBoth = async (cookie: string) => ({
  a: await statusWith(replicas.url('a'), 'cluster.summary', cookie),
  b: await statusWith(replicas.url('b'), 'cluster.summary', cookie),
});

describe.skipIf(onRealTier())(
  'two console replicas behind one Service',
  {
    timeout: 180_000,
  },
  () => {
    it('takes a sign-in made through the Service on either replica', async () => {
      const cookie = await signIn(replicas.proxy.url, TOKEN);
      expect(await onBoth(cookie)).toEqual({ a: 200, b: 200 });
      expect(await onBoth('')).toEqual({ a: 401, b: 401 });
      // Alternating requests through the Service reach both and are all answered.
      for (let round = 0; round < 4; round++)
        expect(await statusWith(replicas.proxy.url, 'cluster.summary', cookie)).toBe(200);
      expect(new Set(replicas.proxy.answeredBy()).size).toBe(2);
    });

    it('still takes the session after a replica restarts with the same key file', async () => {
      const cookie = await signIn(replicas.url('a'), TOKEN);
      await replicas.stop('a', 'SIGTERM');
      await replicas.start('a');
      expect(await onBoth(cookie)).toEqual({ a: 200, b: 200 });
      // A crash too: nothing of the session was only in the process.
      await replicas.stop('a', 'SIGKILL');
      await replicas.start('a');
      expect(await onBoth(cookie)).toEqual({ a: 200, b: 200 });
    });

    it('refuses a session signed out on one replica on both within 5 s, and only that one', async () => {
      const [leaving, staying] = [
        await signIn(replicas.proxy.url, TOKEN),
        await signIn(replicas.proxy.url, TOKEN),
      ];
      expect(await onBoth(leaving)).toEqual({ a: 200, b: 200 });
      expect(await signOut(replicas.url('b'), leaving)).toBe(200);
      const accepting = await acceptingAfter(
        replicas,
        'cluster.summary',
        leaving,
        SIGN_OUT_BOUND_MS,
      );
      expect(accepting, 'replicas still taking the signed-out cookie after 5 s').toEqual([]);
      expect(await onBoth(leaving)).toEqual({ a: 401, b: 401 });
      expect(await onBoth(staying)).toEqual({ a: 200, b: 200 });
    });

    it('resumes a stream cut by its replica on the other with Last-Event-ID, missing nothing', async () => {
      const cookie = await signIn(replicas.proxy.url, TOKEN);
      const first = watchAllocations(replicas.proxy.url, cookie);
      await eventually(() => first.events() > 0, 'the first stream to send its snapshot', 600);
      const served = replicas.nameOf(replicas.proxy.answeredBy().at(-1) ?? '');
      expect(served).toBeDefined();
      const dead = served ?? 'a';
      const survivor = other(dead);

      await replicas.stop(dead, 'SIGKILL');
      expect(await first.ended).not.toBe('closed');
      const lastEventId = first.lastEventId();
      expect(lastEventId).toBeDefined();

      // A workload made while the stream is down, through the Service (the survivor answers).
      const name = `resumed-${randomBytes(3).toString('hex')}`;
      const created = await fetch(`${replicas.proxy.url}/trpc/workload.create`, {
        method: 'POST',
        headers: { origin: replicas.proxy.url, 'content-type': 'application/json', cookie },
        body: JSON.stringify({ request: seedRequest(name), lang: 'en' }),
      });
      expect(created.status, await created.clone().text()).toBe(200);
      expect(replicas.nameOf(replicas.proxy.answeredBy().at(-1) ?? '')).toBe(survivor);

      // The page reconnects through the Service with the last id it got, keeping its records.
      const resumed = watchAllocations(replicas.proxy.url, cookie, {
        records: first.records,
        ...(lastEventId ? { lastEventId } : {}),
      });
      try {
        await eventually(
          () => [...resumed.records.values()].some((record) => record.pod.startsWith(`${name}-`)),
          `${name}'s allocations on the resumed stream`,
          900,
        );
        expect(resumed.status()).toBe(200);
        expect(replicas.nameOf(replicas.proxy.answeredBy().at(-1) ?? '')).toBe(survivor);
        // No gap: what the resumed page holds is what a fresh page on the survivor gets.
        // Each try opens a stream and waits for its snapshot: 60 tries are about a minute.
        await eventually(
          async () => {
            const fresh = watchAllocations(replicas.url(survivor), cookie);
            await eventually(() => fresh.events() > 0, 'a fresh snapshot', 300);
            await fresh.close();
            const held = [...resumed.records.keys()].sort();
            return JSON.stringify(held) === JSON.stringify([...fresh.records.keys()].sort());
          },
          'the resumed records to equal a fresh snapshot',
          60,
        );
      } finally {
        await resumed.close();
        await replicas.start(dead);
      }
    });

    it('moves the leader Lease and history sampling to the other replica when the leader dies', async () => {
      const cookie = await signIn(replicas.proxy.url, TOKEN);
      const admin = cluster?.kubeConfig;
      if (!admin) throw new Error('no embedded cluster');
      const { successor, killedAt } = await killLeader(
        replicas,
        admin,
        HANDOVER_BOUND_MS,
        // The follower answers with the samples the Lease's holder took and published: one
        // replica samples, not each on its own.
        (leader) =>
          eventually(
            async () => {
              const shown = await historyThrough(replicas.url('a'), cookie);
              return shown.times.length > 0 && shown.sampledBy === leader;
            },
            `history samples by the leader ${leader} on the follower`,
            600,
          ),
      );
      // Samples taken after the leader died are the survivor's, and the history says so.
      let last: Awaited<ReturnType<typeof historyThrough>> | undefined;
      await eventually(
        async () => {
          last = await historyThrough(replicas.proxy.url, cookie);
          const after = last.times.filter((at) => at > killedAt);
          return after.length >= 2 && last.sampledBy === successor;
        },
        () => `two samples by ${successor} after the leader died (last: ${JSON.stringify(last)})`,
        600,
      );
      await replicas.start('b');
    });
  },
);
