// `pnpm --silent cluster:real --kubeconfig FILE [--port N] [--topology FILE] [--no-mgpu-controllers]
//   [--oidc-env FILE]`
// Upstream etcd, kube-apiserver and kube-controller-manager on loopback, a test OpenID Connect
// issuer kube-apiserver trusts (its URL, client and user written to --oidc-env), the MgpuNode CRD, the
// default topology's nodes and pods, and the project's mGPU scheduler and node agents (spec §7,
// "The real control plane"). Progress on stderr; stdout gets the one `ready` line. SIGTERM or
// SIGINT stops everything.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { VersionApi } from '@kubernetes/client-node';
import {
  DEFAULT_TOPOLOGY_FILE,
  loadTopology,
  type RunningController,
  whenLauncherExits,
} from '@mgpu/cluster-sim';
import {
  CLUSTER_ROLES_FILE,
  createFromFile,
  createTopologyPods,
  installCrd,
  registerNodes,
  TEST_BINDINGS_FILE,
  waitForDefaultServiceAccount,
} from './cluster-setup.js';
import { buildBinaries, type ControlPlane, startControlPlane } from './control-plane.js';
import { kubeConfigFor, kubeconfigText, writeKubeconfig } from './kubeconfig.js';
import { startMgpuControllers } from './mgpu-controllers.js';
import { type OidcIssuer, oidcEnvironment, startOidcIssuer } from './oidc-issuer.js';
import { createPki } from './pki.js';

const log = (message: string) => process.stderr.write(`[cluster:real] ${message}\n`);

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    port: { type: 'string' },
    topology: { type: 'string' },
    'no-mgpu-controllers': { type: 'boolean', default: false },
    'oidc-env': { type: 'string' },
  },
  strict: true,
});
if (!values.kubeconfig) {
  log(
    'usage: cluster:real --kubeconfig FILE [--port N] [--topology FILE] [--no-mgpu-controllers] [--oidc-env FILE]',
  );
  process.exit(2);
}
const kubeconfigFile = resolve(values.kubeconfig);
const port = values.port ? Number(values.port) : 0;

const dir = mkdtempSync(join(tmpdir(), 'mgpu-cluster-real-'));
let build: ChildProcess | undefined;
let controlPlane: ControlPlane | undefined;
let oidcIssuer: OidcIssuer | undefined;
let controllers: RunningController[] = [];
let stopping = false;

async function shutdown(exitCode: number): Promise<never> {
  // A group kill and a relayed signal may both arrive: the first one stops everything, within
  // bounded time (each process gets SIGKILL after its grace period).
  if (stopping) return new Promise<never>(() => {});
  stopping = true;
  log('stopping');
  if (build?.pid && build.exitCode === null) {
    try {
      process.kill(-build.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  for (const controller of controllers) {
    try {
      await controller.stop();
    } catch (error) {
      log(`stopping a controller failed: ${String(error)}`);
    }
  }
  await controlPlane?.stop();
  await oidcIssuer?.stop();
  if (process.env.MGPU_KUBE_KEEP_DIR) log(`kept ${dir} (logs, certificates, etcd data)`);
  else rmSync(dir, { recursive: true, force: true });
  log('stopped');
  process.exit(exitCode);
}

process.on('SIGTERM', () => void shutdown(0));
process.on('SIGINT', () => void shutdown(0));
process.on('SIGHUP', () => void shutdown(0));
whenLauncherExits(() => {
  if (stopping) return;
  log('a launcher above us exited');
  void shutdown(1);
});

async function main(): Promise<void> {
  const started = Date.now();
  const seconds = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
  const topology = loadTopology(values.topology ?? DEFAULT_TOPOLOGY_FILE);

  const binDir = await buildBinaries((child) => {
    build = child;
  });
  log(`binaries in ${binDir} (${seconds()})`);
  // The issuer first: kube-apiserver's OIDC authenticator fetches its discovery at start and
  // refuses every ID token until it has.
  const pki = createPki(dir);
  oidcIssuer = await startOidcIssuer(dir, pki);
  log(
    `OIDC issuer at ${oidcIssuer.issuer} (client ${oidcIssuer.clientId}, user ${oidcIssuer.login})`,
  );
  controlPlane = await startControlPlane(binDir, {
    dir,
    port,
    pki,
    apiServerFlags: oidcIssuer.apiServerFlags,
    log,
  });
  const text = kubeconfigText(controlPlane.server, controlPlane.pki, controlPlane.users);
  const admin = kubeConfigFor(text, 'admin');
  // Progress never says "ready": tools wait for that word (spec §7), and only the last line
  // may carry it, once the kubeconfig is written.
  log(`kube-apiserver up (${seconds()})`);

  await installCrd(admin);
  await createFromFile(admin, CLUSTER_ROLES_FILE);
  await createFromFile(admin, TEST_BINDINGS_FILE);
  await waitForDefaultServiceAccount(admin, 'default');
  log(`CRD, RBAC and kube-controller-manager in place (${seconds()})`);
  const nodeCount = await registerNodes(admin, topology);
  log(`${nodeCount} nodes of topology ${topology.name} registered`);

  if (!values['no-mgpu-controllers']) {
    // The controllers act as mgpu-controllers, bound only to rbac/console-clusterrole.yaml's
    // role: a missing permission surfaces here as a 403, as it would on an operator's cluster.
    controllers = [await startMgpuControllers(kubeConfigFor(text, 'controllers'), topology, log)];
    log('mGPU node agents and scheduler started');
  }
  const podCount = await createTopologyPods(admin, topology);
  log(`${podCount} topology pods created`);

  // Any control-plane process dying from now on is fatal: tests would see a half cluster.
  for (const managed of controlPlane.processes) {
    void managed.exited.then((status) => {
      if (!stopping) {
        log(`${managed.name} exited (${status}); see ${managed.logFile}`);
        void shutdown(1);
      }
    });
  }

  const version = await admin.makeApiClient(VersionApi).getCode();
  writeKubeconfig(kubeconfigFile, text);
  if (values['oidc-env']) {
    // KEY='value' lines for a shell to source: URLs, ids, hex secrets and paths, none with a quote.
    const lines = Object.entries(oidcEnvironment(oidcIssuer)).map(([k, v]) => `${k}='${v}'\n`);
    writeFileSync(resolve(values['oidc-env']), lines.join(''), { mode: 0o600 });
  }
  process.stdout.write(
    `cluster:real ready: Kubernetes ${version.gitVersion} (upstream kube-apiserver) at ${controlPlane.server}, kubeconfig ${kubeconfigFile} (${seconds()})\n`,
  );
}

main().catch((error: unknown) => {
  log(`failed: ${error instanceof Error ? error.message : String(error)}`);
  void shutdown(1);
});
