import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { stringify } from 'yaml';
import {
  type ClusterPki,
  createPki,
  createTokenUsers,
  type TokenUser,
  writeTokenFile,
} from './pki.js';
import { freePort, logTail, type ManagedProcess, startProcess, stopProcess } from './processes.js';

const TOOLS_KUBE = new URL('..', import.meta.url).pathname;

export interface ControlPlaneOptions {
  /** Temp dir for data, certificates and logs; the caller removes it. */
  dir: string;
  /** kube-apiserver's secure port on 127.0.0.1; 0 = pick a free one. */
  port?: number;
  /** The run's CA and certificates, when something started before needs them; else made here. */
  pki?: ClusterPki;
  /** More kube-apiserver flags, e.g. the test issuer's `--oidc-*` (`oidc-issuer.ts`). */
  apiServerFlags?: readonly string[];
  log: (message: string) => void;
}

export interface ControlPlane {
  server: string;
  pki: ClusterPki;
  users: TokenUser[];
  processes: ManagedProcess[];
  stop(): Promise<void>;
}

/**
 * Runs tools/kube/build.sh (which reuses the cache when it can) and resolves with the folder of
 * the binaries. Asynchronous, so SIGTERM during a cold build (tens of minutes) is still handled;
 * `onStart` gets the child so the caller can stop its process group. Progress goes to stderr.
 */
export function buildBinaries(onStart: (child: ChildProcess) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', [join(TOOLS_KUBE, 'build.sh')], {
      detached: true,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    onStart(child);
    let out = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.once('error', reject);
    child.once('exit', (status) => {
      const dir = out.trim().split('\n').pop();
      if (status === 0 && dir) resolve(dir);
      else reject(new Error(`tools/kube/build.sh failed (exit ${status ?? 'signal'})`));
    });
  });
}

interface Probe {
  url: string;
  ca?: Buffer;
  token?: string;
  /** A component's self-signed serving certificate on loopback: nothing to verify it against. */
  insecure?: boolean;
}

/** GET a URL; resolves with the status code and body, never rejects (refused = status 0). */
function probe({ url, ca, token, insecure }: Probe): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    const onResponse = (res: import('node:http').IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    };
    const request = url.startsWith('https:')
      ? httpsGet(url, { ca, headers, timeout: 5000, rejectUnauthorized: !insecure }, onResponse)
      : httpGet(url, { headers, timeout: 5000 }, onResponse);
    request.on('error', () => resolve({ status: 0, body: '' }));
    request.on('timeout', () => request.destroy());
  });
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `ready` says so; fails early with the log tail if the process died. */
async function waitFor(
  what: string,
  managed: ManagedProcess,
  ready: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  let dead = false;
  void managed.exited.then(() => {
    dead = true;
  });
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (dead)
      throw new Error(`${managed.name} exited before ${what}:\n${logTail(managed.logFile)}`);
    if (await ready()) return;
    await delay(250);
  }
  throw new Error(
    `${what} not reached in ${timeoutMs / 1000} s; ${managed.name}:\n${logTail(managed.logFile)}`,
  );
}

function writeComponentKubeconfig(
  file: string,
  server: string,
  pki: ClusterPki,
  user: TokenUser,
): void {
  writeFileSync(
    file,
    stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'local', cluster: { server, 'certificate-authority': pki.caCert } }],
      users: [{ name: user.user, user: { token: user.token } }],
      contexts: [{ name: 'local', context: { cluster: 'local', user: user.user } }],
      'current-context': 'local',
    }),
    { mode: 0o600 },
  );
}

/** etcd, then kube-apiserver (until /readyz), then kube-controller-manager. */
export async function startControlPlane(
  binDir: string,
  options: ControlPlaneOptions,
): Promise<ControlPlane> {
  const { dir, log } = options;
  const processes: ManagedProcess[] = [];
  const stop = async () => {
    // Reverse order: controllers first, etcd last, so nobody logs a storm of refused connections.
    for (const managed of [...processes].reverse()) await stopProcess(managed);
  };
  try {
    const pki = options.pki ?? createPki(dir);
    const users = createTokenUsers();
    const tokenFile = join(dir, 'tokens.csv');
    writeTokenFile(tokenFile, users);
    const [etcdClient, etcdPeer, apiPort] = [
      await freePort(),
      await freePort(),
      options.port || (await freePort()),
    ];
    const etcdUrl = `http://127.0.0.1:${etcdClient}`;
    const peerUrl = `http://127.0.0.1:${etcdPeer}`;

    log(`starting etcd on ${etcdUrl}`);
    const etcd = startProcess(
      'etcd',
      join(binDir, 'etcd'),
      [
        '--name=mgpu',
        `--data-dir=${join(dir, 'etcd')}`,
        `--listen-client-urls=${etcdUrl}`,
        `--advertise-client-urls=${etcdUrl}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=mgpu=${peerUrl}`,
        // A throwaway store: fsync only costs time (and disk wait for the other engineers).
        '--unsafe-no-fsync',
        '--log-level=warn',
      ],
      join(dir, 'etcd.log'),
    );
    processes.push(etcd);
    await waitFor(
      'health',
      etcd,
      async () => (await probe({ url: `${etcdUrl}/health` })).body.includes('"true"'),
      30_000,
    );

    const server = `https://127.0.0.1:${apiPort}`;
    log(`starting kube-apiserver on ${server}`);
    const apiserver = startProcess(
      'kube-apiserver',
      join(binDir, 'kube-apiserver'),
      [
        `--etcd-servers=${etcdUrl}`,
        '--bind-address=127.0.0.1',
        '--advertise-address=127.0.0.1',
        `--secure-port=${apiPort}`,
        `--cert-dir=${join(dir, 'apiserver-certs')}`,
        `--tls-cert-file=${pki.servingCert}`,
        `--tls-private-key-file=${pki.servingKey}`,
        `--client-ca-file=${pki.caCert}`,
        `--token-auth-file=${tokenFile}`,
        '--authorization-mode=Node,RBAC',
        '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
        `--service-account-key-file=${pki.serviceAccountPub}`,
        `--service-account-signing-key-file=${pki.serviceAccountKey}`,
        '--service-cluster-ip-range=10.96.0.0/24',
        // The `kubernetes` Endpoints would need a non-loopback address, and nothing in-cluster
        // dials it here: without this the server logs an error every 10 s.
        '--endpoint-reconciler-type=none',
        '--profiling=false',
        ...(options.apiServerFlags ?? []),
      ],
      join(dir, 'kube-apiserver.log'),
    );
    processes.push(apiserver);
    const admin = users.find((u) => u.id === 'admin');
    if (!admin) throw new Error('no admin token user');
    const ca = readFileSync(pki.caCert);
    // Cold start on a busy 2-core machine: the first /readyz can take half a minute or more.
    await waitFor(
      'a healthy kube-apiserver', // not the word tools wait for: see cluster-real-main.ts
      apiserver,
      async () => (await probe({ url: `${server}/readyz`, ca, token: admin.token })).status === 200,
      180_000,
    );

    const kcmUser = users.find((u) => u.id === 'controller-manager');
    if (!kcmUser) throw new Error('no controller-manager token user');
    const kcmKubeconfig = join(dir, 'controller-manager.kubeconfig');
    writeComponentKubeconfig(kcmKubeconfig, server, pki, kcmUser);
    log('starting kube-controller-manager');
    const controllerManager = startProcess(
      'kube-controller-manager',
      join(binDir, 'kube-controller-manager'),
      [
        `--kubeconfig=${kcmKubeconfig}`,
        // No kubelets: the node lifecycle controller would mark every node unreachable after
        // 40 s, taint it NoExecute and evict the pods. The mGPU node agents stand in for the
        // kubelets but do not heartbeat, and the embedded cluster has no such controller either.
        '--controllers=*,-node-lifecycle-controller,-taint-eviction-controller',
        // Each controller runs as its own service account, as kubeadm clusters do, so RBAC
        // denials show up the way they would on a real cluster.
        '--use-service-account-credentials=true',
        `--service-account-private-key-file=${pki.serviceAccountKey}`,
        `--root-ca-file=${pki.caCert}`,
        '--leader-elect=false',
        '--bind-address=127.0.0.1',
        // Nothing scrapes its metrics or health endpoints: serve none (and need no serving cert).
        '--secure-port=0',
        '--profiling=false',
      ],
      join(dir, 'kube-controller-manager.log'),
    );
    processes.push(controllerManager);
    return { server, pki, users, processes, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface KubeSchedulerOptions {
  /** Where its kubeconfig, configuration, serving certificate and log go. */
  dir: string;
  /**
   * Client-side rate limit towards kube-apiserver. Upstream's default (50 QPS, burst 100) caps
   * it at ~25 pods/s (a binding and an event per pod); a benchmark raises it so the figure is
   * the scheduler's own, as the mGPU scheduler (client-node, no limiter) has none.
   */
  qps?: number;
  log: (message: string) => void;
}

/**
 * Upstream kube-scheduler (default profile) against a running control plane, as
 * `system:kube-scheduler` with bootstrap RBAC, no leader election; resolves once its /readyz
 * says its informers are synced. The caller stops it with `stopProcess`.
 */
export async function startKubeScheduler(
  binDir: string,
  controlPlane: ControlPlane,
  options: KubeSchedulerOptions,
): Promise<ManagedProcess> {
  const { dir, log } = options;
  const user = controlPlane.users.find((u) => u.id === 'scheduler');
  if (!user) throw new Error('no scheduler token user');
  const kubeconfig = join(dir, 'kube-scheduler.kubeconfig');
  writeComponentKubeconfig(kubeconfig, controlPlane.server, controlPlane.pki, user);
  const qps = options.qps ?? 50;
  const config = join(dir, 'kube-scheduler.yaml');
  writeFileSync(
    config,
    stringify({
      apiVersion: 'kubescheduler.config.k8s.io/v1',
      kind: 'KubeSchedulerConfiguration',
      clientConnection: { kubeconfig, qps, burst: Math.max(100, qps) },
      leaderElection: { leaderElect: false },
      enableProfiling: false,
    }),
  );
  const port = await freePort();
  log(`starting kube-scheduler (healthz on 127.0.0.1:${port}, ${qps} QPS)`);
  const scheduler = startProcess(
    'kube-scheduler',
    join(binDir, 'kube-scheduler'),
    [
      `--config=${config}`,
      `--authentication-kubeconfig=${kubeconfig}`,
      `--authorization-kubeconfig=${kubeconfig}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
      `--cert-dir=${join(dir, 'kube-scheduler-certs')}`,
    ],
    join(dir, 'kube-scheduler.log'),
  );
  try {
    await waitFor(
      'a synced kube-scheduler',
      scheduler,
      async () =>
        (await probe({ url: `https://127.0.0.1:${port}/readyz`, insecure: true })).status === 200,
      60_000,
    );
  } catch (error) {
    await stopProcess(scheduler);
    throw error;
  }
  return scheduler;
}
