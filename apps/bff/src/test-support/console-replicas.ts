/**
 * Two console processes over one cluster behind a round-robin proxy (issue 30), as a Service
 * with two replicas runs them: one session key file, one console namespace and instance name,
 * each replica started with `--allowed-origin` naming the proxy. And what the two-replica tests
 * of both tiers ask of them over HTTP: sign-in and sign-out, a query's status with a cookie,
 * `allocations.watch` read as the dashboard applies it, the leader Lease, the pool history.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CoordinationV1Api, type KubeConfig } from '@kubernetes/client-node';
import { connectCluster } from '@mgpu/api';
import type { AllocationEvent, AllocationRecord } from '@mgpu/shared';
import { type ConsoleObjects, consoleObjectsOf } from '../replicas/console-objects.js';
import { eventually } from './bff-harness.js';
import { type ConsoleProcess, startConsoleProcess } from './console-process.js';
import { type RoundRobinProxy, startRoundRobinProxy } from './round-robin-proxy.js';

export type ReplicaName = 'a' | 'b';

/** What both replicas are started with, as the chart starts both pods of a release. */
export interface ReplicaSettings {
  /** The test's own folder: the session key file is written there. */
  dir: string;
  kubeconfig: string;
  /** `--console-namespace`: where the replicas' shared objects are. */
  namespace: string;
  /** `--instance-name`: what those objects are named after. */
  instance: string;
  /** How operators get in: `['--token', token]` or `['--auth', 'kubernetes']`. */
  access: readonly string[];
}

/** The Lease, sign-outs Secret and history ConfigMap the replicas share, as the console names them. */
export async function replicaObjects(settings: ReplicaSettings): Promise<ConsoleObjects> {
  const connection = await connectCluster({ kubeconfig: settings.kubeconfig });
  return consoleObjectsOf({
    connection,
    consoleNamespace: settings.namespace,
    instanceName: settings.instance,
  });
}

export interface ConsoleReplicas {
  proxy: RoundRobinProxy;
  objects: ConsoleObjects;
  /** A replica's own URL (it changes when it restarts: port 0). */
  url(name: ReplicaName): string;
  /** The replica that answers at `url`, if one of them does. */
  nameOf(url: string): ReplicaName | undefined;
  /** SIGKILL (a crash) or SIGTERM (a rolling update's stop), and the wait for its exit. */
  stop(name: ReplicaName, signal: 'SIGKILL' | 'SIGTERM'): Promise<void>;
  /** Starts it again with the same flags and key file; the proxy sends to its new port. */
  start(name: ReplicaName): Promise<void>;
  /** Its log so far, for a failure's message. */
  output(name: ReplicaName): string;
  close(): Promise<void>;
}

/**
 * Starts replicas `a` and `b` with `settings`, a session key file of their own in its folder
 * (one line of `openssl rand -base64 48`'s length) and the proxy's origin.
 */
export async function startConsoleReplicas(settings: ReplicaSettings): Promise<ConsoleReplicas> {
  const objects = await replicaObjects(settings);
  const keyFile = join(settings.dir, 'session-key');
  await writeFile(keyFile, `${randomBytes(48).toString('base64')}\n`, { mode: 0o600 });
  const proxy = await startRoundRobinProxy();
  const flags = [
    '--kubeconfig',
    settings.kubeconfig,
    ...settings.access,
    '--console-namespace',
    settings.namespace,
    '--instance-name',
    settings.instance,
    '--session-key-file',
    keyFile,
    '--allowed-origin',
    proxy.url,
  ];
  const running = new Map<ReplicaName, { process: ConsoleProcess; url: string }>();
  const endpoints = () => proxy.setEndpoints([...running.values()].map((replica) => replica.url));
  const start = async (name: ReplicaName) => {
    const process = startConsoleProcess(flags);
    running.set(name, { process, url: await process.url });
    endpoints();
  };
  const replica = (name: ReplicaName) => {
    const found = running.get(name);
    if (found === undefined) throw new Error(`replica ${name} is not running`);
    return found;
  };
  const stop = async (name: ReplicaName, signal: 'SIGKILL' | 'SIGTERM') => {
    const { process } = replica(name);
    process.signal(signal);
    await process.exit;
    // Left in the proxy's list: its port refuses, and the proxy moves on, as a Service's does
    // until the endpoint controller catches up.
  };
  try {
    await Promise.all([start('a'), start('b')]);
  } catch (error) {
    for (const { process } of running.values()) process.signal('SIGKILL');
    await proxy.close();
    throw error;
  }
  return {
    proxy,
    objects,
    url: (name) => replica(name).url,
    nameOf: (url) => [...running].find(([, found]) => found.url === url)?.[0],
    stop,
    start,
    output: (name) => running.get(name)?.process.output() ?? '',
    async close() {
      for (const { process } of running.values()) {
        process.signal('SIGKILL');
        await process.exit;
      }
      await proxy.close();
    },
  };
}

const BOUND_MS = 20_000;

/** POST /session with `token` from `base`'s own origin; the cookie as `name=value`. */
export async function signIn(base: string, token: string): Promise<string> {
  const response = await fetch(`${base}/session`, {
    method: 'POST',
    headers: { origin: base, 'content-type': 'application/json' },
    body: JSON.stringify({ token }),
    signal: AbortSignal.timeout(BOUND_MS),
  });
  if (response.status !== 200)
    throw new Error(`sign-in at ${base}: ${response.status} ${await response.text()}`);
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  if (!cookie) throw new Error(`sign-in at ${base} set no cookie`);
  return cookie;
}

/** DELETE /session with `cookie` from `base`'s own origin: its status. */
export async function signOut(base: string, cookie: string): Promise<number> {
  const response = await fetch(`${base}/session`, {
    method: 'DELETE',
    headers: { origin: base, cookie },
    signal: AbortSignal.timeout(BOUND_MS),
  });
  await response.body?.cancel();
  return response.status;
}

/** The status of `GET /trpc/<procedure>` with `cookie` (no input: the procedures used take none). */
export async function statusWith(base: string, procedure: string, cookie: string) {
  const response = await fetch(`${base}/trpc/${procedure}`, {
    headers: { cookie },
    signal: AbortSignal.timeout(BOUND_MS),
  });
  await response.body?.cancel();
  return response.status;
}

/**
 * `cluster.history` through `base`: its sample times, oldest first, and the replica that took
 * them (`sampledBy`: the Lease identity of the leader that published them).
 */
export async function historyThrough(
  base: string,
  cookie: string,
): Promise<{ times: string[]; sampledBy: string | undefined }> {
  const response = await fetch(`${base}/trpc/cluster.history`, {
    headers: { cookie },
    signal: AbortSignal.timeout(BOUND_MS),
  });
  const body = (await response.json()) as {
    result?: { data: { samples: { at: string }[]; sampledBy?: string } };
  };
  if (!body.result) throw new Error(`cluster.history: ${response.status} ${JSON.stringify(body)}`);
  const { samples, sampledBy } = body.result.data;
  return { times: samples.map((sample) => sample.at), sampledBy };
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface LeaseRecord {
  holder: string;
  renewTime: string;
  transitions: number;
}

export async function readLease(kubeConfig: KubeConfig, namespace: string, name: string) {
  const lease = await kubeConfig
    .makeApiClient(CoordinationV1Api)
    .readNamespacedLease({ name, namespace });
  return {
    holder: lease.spec?.holderIdentity ?? '',
    renewTime: lease.spec?.renewTime ? new Date(lease.spec.renewTime).toISOString() : '',
    transitions: lease.spec?.leaseTransitions ?? 0,
  } satisfies LeaseRecord;
}

/**
 * The identity that holds the Lease and keeps renewing it (a dead holder's record stays until
 * another takes it: its renewTime stands still), other than `not`; waits up to `timeoutMs`.
 */
export async function liveHolder(
  kubeConfig: KubeConfig,
  namespace: string,
  name: string,
  timeoutMs: number,
  not?: string,
): Promise<string> {
  let last: LeaseRecord | undefined;
  let failure = '';
  const what = () =>
    `a live holder of Lease ${namespace}/${name} (last read: ${last ? JSON.stringify(last) : failure})`;
  return eventually(
    async () => {
      const now = await readLease(kubeConfig, namespace, name).catch((error: unknown) => {
        failure = String(error).slice(0, 300);
        return undefined;
      });
      const before = last;
      last = now;
      if (!now?.holder || now.holder === not) return undefined;
      if (before?.holder !== now.holder || before.renewTime === now.renewTime) {
        // Renewals come every retry period (2 s): look again after one.
        await delay(2_500);
        return undefined;
      }
      return now.holder;
    },
    what,
    timeoutMs / 100,
  );
}

/**
 * `allocations.watch` with `cookie`, as the dashboard applies it: a snapshot replaces the
 * records (from its first part), upsert and delete change them; `records` may start from an
 * earlier stream's, as a page that reconnects keeps what it had.
 */
export function watchAllocations(
  base: string,
  cookie: string,
  options: { lastEventId?: string; records?: Map<string, AllocationRecord> } = {},
) {
  const records = new Map(options.records);
  const abort = new AbortController();
  let lastEventId = options.lastEventId;
  let events = 0;
  let status = 0;
  const ended = (async () => {
    const response = await fetch(`${base}/trpc/allocations.watch?input=%7B%7D`, {
      headers: {
        cookie,
        accept: 'text/event-stream',
        ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
      },
      signal: abort.signal,
    });
    status = response.status;
    const reader = response.body?.getReader();
    const decoder = new TextDecoder();
    let text = '';
    for (;;) {
      const chunk = await reader?.read();
      if (!chunk || chunk.done) return;
      text += decoder.decode(chunk.value, { stream: true });
      const frames = text.split('\n\n');
      text = frames.pop() ?? '';
      for (const frame of frames) {
        const field = (name: string) =>
          frame
            .split('\n')
            .find((line) => line.startsWith(`${name}: `))
            ?.slice(name.length + 2);
        const data = field('data');
        if (field('event') !== undefined || !data) continue;
        const event = JSON.parse(data) as AllocationEvent;
        if (event.type === 'snapshot' && !event.part) records.clear();
        for (const record of event.records)
          if (event.type === 'delete') records.delete(record.id);
          else records.set(record.id, record);
        lastEventId = field('id') ?? lastEventId;
        events++;
      }
    }
  })().then(
    () => 'ended' as const,
    () => (abort.signal.aborted ? ('closed' as const) : ('cut' as const)),
  );
  return {
    records,
    status: () => status,
    events: () => events,
    lastEventId: () => lastEventId,
    /** How it ended: the server ended it, the connection was cut, or `close()`. */
    ended,
    async close() {
      abort.abort();
      await ended;
    },
  };
}

/**
 * The replicas that still answer `procedure` with `cookie` once `boundMs` have passed since now
 * (each asked until it answers 401): the sign-out contract is 5 s on every replica.
 */
export async function acceptingAfter(
  replicas: ConsoleReplicas,
  procedure: string,
  cookie: string,
  boundMs: number,
): Promise<ReplicaName[]> {
  const from = Date.now();
  const accepting = new Set<ReplicaName>(['a', 'b']);
  while (accepting.size > 0 && Date.now() - from <= boundMs) {
    for (const name of accepting)
      if ((await statusWith(replicas.url(name), procedure, cookie)) === 401) accepting.delete(name);
    await delay(100);
  }
  return [...accepting];
}

/**
 * Kills the replica that holds the leader Lease (SIGKILL, so it never releases it) and waits up
 * to `handoverMs` for the other to hold it and renew. Identities are `hostname_uuid`, one host
 * for both, so the leader is found by leaving one alone: with `a` gone, the live holder is `b`,
 * and `a` comes back to a Lease `b` holds (`whileBLeads` runs then, with `b`'s identity). `b`
 * is left stopped;
 * `killedAt` is an ISO time.
 */
export async function killLeader(
  replicas: ConsoleReplicas,
  kubeConfig: KubeConfig,
  handoverMs: number,
  whileBLeads: (leader: string) => Promise<unknown> = async () => {},
) {
  const { namespace, lease } = replicas.objects;
  await replicas.stop('a', 'SIGKILL');
  const leader = await liveHolder(kubeConfig, namespace, lease, handoverMs * 2);
  await replicas.start('a');
  await whileBLeads(leader);
  await replicas.stop('b', 'SIGKILL');
  const killedAt = new Date().toISOString();
  const successor = await liveHolder(kubeConfig, namespace, lease, handoverMs, leader);
  return { leader, successor, killedAt };
}
