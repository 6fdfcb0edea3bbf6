#!/usr/bin/env node
/**
 * `npm start` runs this: the console on the cluster the operator configured (a kubeconfig, the
 * in-cluster service account) or, with none, on the embedded mGPU cluster; the first log line
 * says which.
 */
import { parseArgs } from 'node:util';
import { connectCluster, describeSource } from '@mgpu/api';
import { CARD_POLICIES, type CardPolicy } from '@mgpu/shared';
import { pino } from 'pino';
import { parseTrustProxy, type TrustProxy } from './http/trust-proxy.js';
import { consoleTokenProblem } from './identity/console-token.js';
import { SessionSeal } from './identity/session-seal.js';
import { USAGE } from './main-usage.js';
import { startBff } from './server.js';
import { idleFlagsOf } from './usage/idle-flags.js';
import { prometheusFlagsOf, prometheusSourceOf } from './usage/prometheus-flags.js';

const flags = {
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    token: { type: 'string' },
    kubeconfig: { type: 'string' },
    context: { type: 'string' },
    embedded: { type: 'boolean' },
    topology: { type: 'string' },
    'state-file': { type: 'string' },
    'card-policy': { type: 'string' },
    'model-label': { type: 'string' },
    'allowed-origin': { type: 'string', multiple: true },
    'reserved-namespace': { type: 'string', multiple: true },
    'metrics-port': { type: 'string' },
    'gpu-metrics-port': { type: 'string' },
    'metrics-host': { type: 'string' },
    'history-minutes': { type: 'string' },
    auth: { type: 'string' },
    'oidc-issuer': { type: 'string' },
    'oidc-client-id': { type: 'string' },
    'oidc-client-secret': { type: 'string' },
    'oidc-ca-file': { type: 'string' },
    'oidc-scopes': { type: 'string' },
    'session-idle-minutes': { type: 'string' },
    'session-max-hours': { type: 'string' },
    'access-review-ttl': { type: 'string' },
    'trust-proxy': { type: 'string' },
    'prometheus-url': { type: 'string' },
    'prometheus-token-file': { type: 'string' },
    'prometheus-ca-file': { type: 'string' },
    'usage-queries': { type: 'string' },
    'idle-threshold': { type: 'string' },
    'idle-after': { type: 'string' },
    'usage-max-age': { type: 'string' },
    'session-key-file': { type: 'string' },
    'console-namespace': { type: 'string' },
    'instance-name': { type: 'string' },
    'sign-in-attempts': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
} as const;

/** The flags read, or the usage: `--help` prints it (exit 0), a wrong flag one line and it (exit 2). */
function readFlags() {
  try {
    return parseArgs(flags).values;
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    process.exit(2);
  }
}
const values = readFlags();
if (values.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}

const log = pino({ name: 'mgpu-console' });
const cardPolicy = (values['card-policy'] ??
  process.env.MGPU_CARD_POLICY ??
  'binpack') as CardPolicy;
if (!(CARD_POLICIES as readonly string[]).includes(cardPolicy)) {
  log.fatal(`--card-policy must be ${CARD_POLICIES.join(' or ')}, not ${cardPolicy}`);
  process.exit(2);
}
// Spec §8: Prometheus text at http://<host>:<port>/metrics, on a port of its own.
const metricsPortText = values['metrics-port'] ?? process.env.MGPU_METRICS_PORT;
const metricsPort = metricsPortText === undefined ? undefined : Number(metricsPortText);
if (
  metricsPort !== undefined &&
  (!Number.isInteger(metricsPort) || metricsPort < 0 || metricsPort > 65535)
) {
  log.fatal(`--metrics-port must be a port number, not ${metricsPortText}`);
  process.exit(2);
}
const metricsHost = values['metrics-host'] ?? process.env.MGPU_METRICS_HOST;
// Issue 28: the embedded cluster's GPU exporter over HTTP too, for a Prometheus to scrape.
const gpuMetricsPortText = values['gpu-metrics-port'] ?? process.env.MGPU_GPU_METRICS_PORT;
const gpuMetricsPort = gpuMetricsPortText === undefined ? undefined : Number(gpuMetricsPortText);
if (
  gpuMetricsPort !== undefined &&
  (gpuMetricsPortText?.trim() === '' ||
    !Number.isInteger(gpuMetricsPort) ||
    gpuMetricsPort < 0 ||
    gpuMetricsPort > 65535)
) {
  log.fatal(`--gpu-metrics-port must be a port number, not ${gpuMetricsPortText}`);
  process.exit(2);
}
// How far back the dashboard's per-pool history reaches (sampled every 10 s, kept in memory).
const historyMinutes = Number(values['history-minutes'] ?? process.env.MGPU_HISTORY_MINUTES ?? 60);
if (!Number.isFinite(historyMinutes) || historyMinutes <= 0 || historyMinutes > 7 * 24 * 60) {
  log.fatal('--history-minutes must be a number of minutes, above 0 and at most a week');
  process.exit(2);
}

// Spec §8 "Operator identity": each operator signs in with their own Kubernetes identity.
const auth = values.auth ?? process.env.MGPU_AUTH;
if (auth !== undefined && auth !== 'kubernetes' && auth !== 'oidc') {
  log.fatal(`--auth must be kubernetes or oidc, not ${auth}`);
  process.exit(2);
}
// `--auth oidc`: the issuer kube-apiserver trusts too (its --oidc-issuer-url, --oidc-client-id).
const oidcIssuer = values['oidc-issuer'] ?? process.env.MGPU_OIDC_ISSUER;
const oidcClientId = values['oidc-client-id'] ?? process.env.MGPU_OIDC_CLIENT_ID;
const oidcClientSecret = values['oidc-client-secret'] ?? process.env.MGPU_OIDC_CLIENT_SECRET;
const oidcCaFile = values['oidc-ca-file'] ?? process.env.MGPU_OIDC_CA_FILE;
const oidcScopes = values['oidc-scopes'] ?? process.env.MGPU_OIDC_SCOPES;
if (auth === 'oidc' && (!oidcIssuer || !oidcClientId)) {
  log.fatal('--auth oidc needs --oidc-issuer URL and --oidc-client-id ID');
  process.exit(2);
}
// An empty `--token=` (or a Secret whose key is empty) must never start a console without sign-in.
const token = values.token ?? process.env.MGPU_CONSOLE_TOKEN;
const tokenProblem = token === undefined ? undefined : consoleTokenProblem(token);
if (tokenProblem !== undefined) {
  log.fatal(`--token (or MGPU_CONSOLE_TOKEN) ${tokenProblem}`);
  process.exit(2);
}
// Whose X-Forwarded-* headers are believed: none unless named (the chart names its Ingress).
const trustProxyText = values['trust-proxy'] ?? process.env.MGPU_TRUST_PROXY;
let trustProxy: TrustProxy | undefined;
try {
  trustProxy = trustProxyText ? parseTrustProxy(trustProxyText) : undefined;
} catch (error) {
  log.fatal(error instanceof Error ? error.message : String(error));
  process.exit(2);
}
if (auth !== undefined && token !== undefined) {
  log.fatal(
    '--auth and --token exclude each other: with --auth each operator brings their own token',
  );
  process.exit(2);
}
/** A positive number (minutes, seconds: the flag says) from a flag or its variable, or the default. */
function positiveNumberOf(
  flag: string,
  text: string | undefined,
  fallback: number,
  unit = 1,
): number {
  const value = text === undefined ? fallback : Number(text) * unit;
  if (!Number.isFinite(value) || value <= 0) {
    log.fatal(`--${flag} must be a number above 0, not ${text}`);
    process.exit(2);
  }
  return value;
}
const sessionLimits = {
  idleSeconds:
    60 *
    positiveNumberOf(
      'session-idle-minutes',
      values['session-idle-minutes'] ?? process.env.MGPU_SESSION_IDLE_MINUTES,
      30,
    ),
  absoluteSeconds:
    60 *
    positiveNumberOf(
      'session-max-hours',
      values['session-max-hours'] ?? process.env.MGPU_SESSION_MAX_HOURS,
      12 * 60,
      60,
    ),
};
// How long an operator's RBAC answers are kept (seconds): a revoked binding's delay on streams.
const accessReviewTtlText = values['access-review-ttl'] ?? process.env.MGPU_ACCESS_REVIEW_TTL;
const accessReviewTtlMs =
  accessReviewTtlText === undefined
    ? undefined
    : 1000 * positiveNumberOf('access-review-ttl', accessReviewTtlText, 0);

// Issue 30: replicas that share the session key accept each other's sessions.
const sessionKeyFile = values['session-key-file'] ?? process.env.MGPU_SESSION_KEY_FILE;
let sessionSeal: SessionSeal | undefined;
try {
  sessionSeal = sessionKeyFile ? SessionSeal.fromFile(sessionKeyFile) : undefined;
} catch (error) {
  log.fatal(
    `--session-key-file ${sessionKeyFile}: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(2);
}
const consoleNamespace = values['console-namespace'] ?? process.env.MGPU_CONSOLE_NAMESPACE;
const instanceName = values['instance-name'] ?? process.env.MGPU_INSTANCE_NAME;
// A DNS label: the namespace itself, and the instance before `-revoked-sessions` (≤ 63).
for (const [flag, name] of [
  ['console-namespace', consoleNamespace],
  ['instance-name', instanceName],
] as const)
  if (name !== undefined && !/^[a-z0-9]([-a-z0-9]{0,40}[a-z0-9])?$/.test(name)) {
    log.fatal(`--${flag} must be a DNS label of at most 42 characters, not ${name}`);
    process.exit(2);
  }
const signInAttemptsText = values['sign-in-attempts'] ?? process.env.MGPU_SIGN_IN_ATTEMPTS;
const signInAttempts = signInAttemptsText === undefined ? undefined : Number(signInAttemptsText);
if (signInAttempts !== undefined && (!Number.isInteger(signInAttempts) || signInAttempts < 1)) {
  log.fatal(`--sign-in-attempts must be a whole number above 0, not ${signInAttemptsText}`);
  process.exit(2);
}

// Issue 28: usage through Prometheus when named, and the idle settings; a wrong URL, file,
// query file or idle setting stops the start.
let prometheusSource: ReturnType<typeof prometheusSourceOf>;
let idleSettings: ReturnType<typeof idleFlagsOf>;
try {
  // Why usage figures are unknown, in the log: the page can only say that they are.
  prometheusSource = prometheusSourceOf(prometheusFlagsOf(values, process.env), (problem) =>
    problem === null
      ? log.info('usage: Prometheus answers again')
      : log.warn(`usage figures unknown: ${problem}`),
  );
  idleSettings = idleFlagsOf(values, process.env);
} catch (error) {
  log.fatal(error instanceof Error ? error.message : String(error));
  process.exit(2);
}

/**
 * Sign-outs live in a Secret of the cluster; an embedded one without a state file starts empty
 * each time while the key still opens the cookies, so a restart would undo every sign-out.
 * Without --token or --auth there are no sessions, and nothing to forget.
 */
function refuseForgottenSignOuts(embedded: boolean): void {
  if (!embedded || !sessionSeal || !(auth || token) || values['state-file']) return;
  log.fatal(
    '--session-key-file with the embedded cluster needs --state-file: sign-outs are kept in the cluster, and one that keeps no state would forget them at a restart while the key still opens their cookies',
  );
  process.exit(2);
}
// Before anything starts when --embedded says so.
refuseForgottenSignOuts(values.embedded ?? false);

try {
  const connection = await connectCluster({
    ...(values.kubeconfig ? { kubeconfig: values.kubeconfig } : {}),
    ...(values.context ? { context: values.context } : {}),
    embedded: values.embedded ?? false,
    embeddedOptions: {
      ...(values.topology ? { topology: values.topology } : {}),
      ...(values['state-file'] ? { stateFile: values['state-file'] } : {}),
      ...(gpuMetricsPort !== undefined ? { gpuMetricsPort } : {}),
    },
    // Imported only here and only when started: a console on a real cluster never loads the simulator.
    startEmbedded: async (options) =>
      (await import('@mgpu/cluster-sim')).startEmbeddedCluster(options),
    announce: (source) => log.info({ cluster: source }, describeSource(source)),
    log: (message) => log.info({ component: 'embedded-cluster' }, message),
  });
  if (connection.source.kind === 'embedded')
    log.info({ cluster: connection.source }, describeSource(connection.source));
  else if (gpuMetricsPort !== undefined)
    log.warn(
      "--gpu-metrics-port serves the embedded cluster's GPU exporter; this cluster has its own exporters, so it is ignored",
    );
  // Embedded because no other cluster was configured: only known now.
  refuseForgottenSignOuts(connection.source.kind === 'embedded');
  // The embedded API has one token of its own and no token reviews or RBAC: nobody could sign in.
  if (auth && connection.source.kind === 'embedded')
    log.warn(
      `--auth ${auth} needs a real cluster (its API server reviews the tokens); the embedded one cannot, so no sign-in will succeed`,
    );
  const modelLabel = values['model-label'] ?? process.env.MGPU_MODEL_LABEL;
  // Passed as CheckOptions.reservedNamespaces; unset, the rule keeps its own defaults.
  const reservedNamespaces = [
    ...(values['reserved-namespace'] ?? []),
    ...(process.env.MGPU_RESERVED_NAMESPACES?.split(',')
      .map((namespace) => namespace.trim())
      .filter(Boolean) ?? []),
  ];
  if (sessionSeal)
    log.info(
      `sessions are sealed with --session-key-file: consoles sharing it accept them, and they outlive a restart`,
    );
  else if (auth || token)
    log.warn(
      'no --session-key-file: sessions end with this process, and another replica does not accept them',
    );
  const bff = await startBff({
    connection,
    port: Number(values.port ?? process.env.PORT ?? 8080),
    host: values.host ?? process.env.HOST ?? '127.0.0.1',
    cardPolicy,
    // Extra names the console answers as (a proxy, `vite dev`); its own loopback ones always work.
    allowedOrigins: [
      ...(values['allowed-origin'] ?? []),
      ...(process.env.MGPU_ALLOWED_ORIGINS?.split(',').filter(Boolean) ?? []),
    ],
    ...(token !== undefined ? { token } : {}),
    ...(trustProxy !== undefined ? { trustProxy } : {}),
    ...(auth !== undefined ? { auth, sessionLimits } : {}),
    ...(accessReviewTtlMs !== undefined ? { accessReviewTtlMs } : {}),
    ...(sessionSeal ? { sessionSeal } : {}),
    ...(consoleNamespace ? { consoleNamespace } : {}),
    ...(instanceName ? { instanceName } : {}),
    ...(signInAttempts !== undefined ? { signInAttemptsPerMinute: signInAttempts } : {}),
    ...(auth === 'oidc' && oidcIssuer && oidcClientId
      ? {
          oidc: {
            issuer: oidcIssuer,
            clientId: oidcClientId,
            ...(oidcClientSecret ? { clientSecret: oidcClientSecret } : {}),
            ...(oidcCaFile ? { caFile: oidcCaFile } : {}),
            ...(oidcScopes ? { scopes: oidcScopes } : {}),
          },
        }
      : {}),
    ...(modelLabel ? { modelLabel } : {}),
    ...(reservedNamespaces.length > 0 ? { reservedNamespaces } : {}),
    ...(metricsPort !== undefined ? { metricsPort } : {}),
    // Loopback unless opened (e.g. 0.0.0.0 for a Prometheus in the cluster): not `--host`.
    ...(metricsHost ? { metricsHost } : {}),
    history: { retentionMs: historyMinutes * 60_000 },
    usage: { ...(prometheusSource ? { source: prometheusSource } : {}), ...idleSettings },
    logger: { level: process.env.LOG_LEVEL ?? 'info' },
  });
  log.info(`console ready at ${bff.url}${auth ? ` (sign-in: --auth ${auth})` : ''}`);
  if (bff.metricsUrl) log.info(`metrics at ${bff.metricsUrl}`);
  if (prometheusSource) {
    log.info(`usage from Prometheus at ${prometheusSource.url}`);
    // Not fatal: Prometheus may come up later; until then the figures are unknown, never 0.
    prometheusSource
      .probe()
      .catch((error: unknown) =>
        log.warn(`usage: ${error instanceof Error ? error.message : String(error)}`),
      );
  }
  const stop = async (signal: string) => {
    log.info(`${signal}: stopping`);
    // A stop must not wait on a busy cluster or a stuck connection (issue 14: under load SIGTERM
    // no longer stopped the console): past a short grace, exit regardless.
    setTimeout(() => {
      log.error(`${signal}: stop took longer than 5 s, exiting`);
      process.exit(1);
    }, 5000).unref();
    await bff.close();
    await connection.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
} catch (error) {
  log.fatal(
    { err: error },
    `the console could not start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}
