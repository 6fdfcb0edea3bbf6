/**
 * The embedded cluster, standalone (spec §7):
 * `pnpm --silent sim --port P --kubeconfig FILE [--topology FILE] [--state-file FILE]
 * [--event-ttl DURATION] [--gpu-metrics-port P]` serves the Kubernetes API on 127.0.0.1:P,
 * writes a kubeconfig, prints a line with `ready` and runs until SIGTERM or SIGINT.
 * `--event-ttl` is kube-apiserver's: how long an Event lives after its last write (a Go
 * duration, default 1h). `--gpu-metrics-port` serves the GPU exporter (dcgm-exporter text of
 * the simulated use, spec §9) at http://127.0.0.1:P/metrics.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { parseDuration } from './duration.js';
import { startEmbeddedCluster } from './embedded.js';
import { whenLauncherExits } from './launchers.js';

const usage =
  'usage: sim --port P --kubeconfig FILE [--topology FILE] [--state-file FILE] [--event-ttl DURATION] [--gpu-metrics-port P]';

function fail(message: string): never {
  process.stderr.write(`${message}\n${usage}\n`);
  process.exit(2);
}

/** A start the flags allowed but the files refused: one line, no usage, no stack. */
function refuse(error: unknown): never {
  process.stderr.write(`sim: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(2);
}

let values: {
  port?: string;
  kubeconfig?: string;
  topology?: string;
  'state-file'?: string;
  'event-ttl'?: string;
  'gpu-metrics-port'?: string;
  help?: boolean;
};
try {
  ({ values } = parseArgs({
    options: {
      port: { type: 'string' },
      kubeconfig: { type: 'string' },
      topology: { type: 'string' },
      'state-file': { type: 'string' },
      'event-ttl': { type: 'string' },
      'gpu-metrics-port': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }));
} catch (error) {
  fail(error instanceof Error ? error.message : String(error));
}
// Asked for, the usage is the answer: stdout and exit 0, not an error.
if (values.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
const portOf = (flag: string, text: string) => {
  const port = Number(text);
  if (text.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535)
    fail(`--${flag}: not a port: ${text}`);
  return port;
};
const port = values.port === undefined ? 0 : portOf('port', values.port);
const gpuMetricsPort =
  values['gpu-metrics-port'] === undefined
    ? undefined
    : portOf('gpu-metrics-port', values['gpu-metrics-port']);
const eventTtlMs =
  values['event-ttl'] === undefined ? undefined : parseDuration(values['event-ttl']);
if (values['event-ttl'] !== undefined && eventTtlMs === undefined)
  fail(`--event-ttl: not a positive duration such as 30m or 1h: ${values['event-ttl']}`);

// pnpm runs scripts from the workspace root; relative paths are the caller's.
const cwd = process.env.INIT_CWD ?? process.cwd();
const cluster = await startEmbeddedCluster({
  port,
  ...(values.topology ? { topology: resolve(cwd, values.topology) } : {}),
  ...(values['state-file'] ? { stateFile: resolve(cwd, values['state-file']) } : {}),
  ...(eventTtlMs !== undefined ? { eventTtlMs } : {}),
  ...(gpuMetricsPort !== undefined ? { gpuMetricsPort } : {}),
}).catch(refuse);

if (values.kubeconfig) {
  const kubeconfig = resolve(cwd, values.kubeconfig);
  await cluster.writeKubeconfig(kubeconfig).catch(async (error: unknown) => {
    await cluster.stop();
    refuse(error);
  });
}
const nodes = cluster.topology.pools.reduce((sum, pool) => sum + pool.nodes, 0);
process.stdout.write(
  `mgpu embedded cluster ready at ${cluster.url} (${nodes} nodes, topology ${cluster.topology.name}${
    values.kubeconfig ? `, kubeconfig ${values.kubeconfig}` : ''
  }${cluster.gpuMetrics.url ? `, GPU exporter at ${cluster.gpuMetrics.url}` : ''})\n`,
);

let stopping = false;
const shutdown = (signal: string) => {
  if (stopping) return;
  stopping = true;
  process.stderr.write(`sim: ${signal}, stopping\n`);
  // Controllers busy with a huge sync must not hold the process: stop() ends them and closes
  // every connection; if it still has not finished after a short grace, exit regardless.
  setTimeout(() => {
    process.stderr.write('sim: stop took too long, exiting\n');
    process.exit(1);
  }, 3000);
  cluster.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`sim: stop failed: ${String(error)}\n`);
      process.exit(1);
    },
  );
};
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));

whenLauncherExits(() => shutdown('launcher exited'));
