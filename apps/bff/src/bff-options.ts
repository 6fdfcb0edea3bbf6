import type { BffContext, ClusterConnection, PoolHistoryOptions, UsageOptions } from '@mgpu/api';
import type { LeaderElectionOptions, Leadership } from '@mgpu/kube-client';
import type { CardPolicy } from '@mgpu/shared';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { TrustProxy } from './http/trust-proxy.js';
import type { BrowserSessions } from './identity/browser-sessions.js';
import type { AuthMode } from './identity/console-token.js';
import type { OidcSettings } from './identity/oidc-sign-in.js';
import type { SessionSeal } from './identity/session-seal.js';
import type { SessionLimits } from './identity/sessions.js';

export interface BffOptions {
  connection: ClusterConnection;
  port?: number;
  host?: string;
  /**
   * When set, every `/trpc` request needs `Authorization: Bearer <token>`; at least
   * `MIN_CONSOLE_TOKEN_LENGTH` characters (a shorter or empty one is refused at start).
   */
  token?: string;
  /**
   * `kubernetes`: every operator signs in with their own Kubernetes bearer token and every
   * Kubernetes call made for them uses it (spec §8 "Operator identity"); `oidc`: the same, with
   * the ID token of a sign-in through the issuer as that token. Unset: no per-user auth.
   */
  auth?: AuthMode;
  /** `--auth oidc`: the issuer and the console's client there (required with it). */
  oidc?: OidcSettings;
  /** `--auth` sessions: idle and absolute lifetime (defaults 30 min and 12 h). */
  sessionLimits?: Partial<SessionLimits>;
  /**
   * The session key (`--session-key-file`): consoles that share it accept each other's sessions,
   * a session outlives a restart, sign-outs are shared through the cluster, and work that must
   * happen once per cluster runs on the leader of a Lease. Unset: a key of this process alone.
   */
  sessionSeal?: SessionSeal;
  /**
   * Where the console keeps its own objects (the leader Lease, the signed-out sessions, the
   * published history): `--console-namespace`; unset, the kubeconfig context's (in a pod, its
   * own), else `default`.
   */
  consoleNamespace?: string;
  /** The prefix of those objects' names (default `mgpu-console`); the chart's release name. */
  instanceName?: string;
  /** How often the signed-out sessions are read from the cluster (default 2 s; tests: less). */
  revocationPollMs?: number;
  /** The leader Lease's timings (client-go's defaults: 15 s, 10 s, 2 s); tests shorten them. */
  leaderElection?: Pick<
    LeaderElectionOptions,
    'leaseDurationSeconds' | 'renewDeadlineMs' | 'retryPeriodMs'
  >;
  /** The built web app; its index.html answers every unknown GET (SPA routes). */
  webRoot?: string;
  cardPolicy?: CardPolicy;
  /** The node label naming the GPU model (default: VKE's). */
  modelLabel?: string;
  /** Namespaces preview and create refuse (rule namespace-reserved); unset: the rule's defaults. */
  reservedNamespaces?: readonly string[];
  /**
   * Origins besides the console's own loopback address that may call it (e.g.
   * `https://gpu-console.example.com` behind a proxy); their hosts are accepted too.
   */
  allowedOrigins?: string[];
  /** The proxies whose forwarded headers are believed (`--trust-proxy`); unset: none. */
  trustProxy?: TrustProxy;
  /** Largest request body in bytes (413 above it). */
  bodyLimit?: number;
  /**
   * Unread SSE bytes after which a subscriber's stream waits for it to read before sending more
   * (default 8 MiB); one that then reads nothing for 30 s is cut off (it resumes by
   * `Last-Event-ID`).
   */
  maxBufferedEventBytes?: number;
  /** Items per part of a subscription's snapshot (default `SNAPSHOT_PART_SIZE`, 2,000). */
  snapshotPartSize?: number;
  logger?: FastifyServerOptions['logger'];
  /** How long a browser session lasts (default 12 h); an older cookie is refused. */
  sessionMaxAgeSeconds?: number;
  /** Wrong credentials per client address per minute, any way presented, before 429 (default 10). */
  signInAttemptsPerMinute?: number;
  /**
   * Time to receive a whole request (default 30 s) and its headers (default 10 s): a client
   * that trickles a body cannot hold a connection. A response, an SSE stream, is not limited.
   */
  timeouts?: { requestMs?: number; headersMs?: number };
  /** Serve Prometheus `/metrics` on this port (0: any free one) of `metricsHost`; unset: no metrics. */
  metricsPort?: number;
  /** Where `/metrics` listens (default 127.0.0.1): not the console's `host`, so it is opened on purpose. */
  metricsHost?: string;
  /** Per-pool history: sampling interval (default 10 s) and how long it reaches (default 1 h). */
  history?: PoolHistoryOptions;
  /**
   * GPU usage (issue 28): the source (`--prometheus-url`'s; unset: the embedded cluster's
   * exporter, else none) and `--idle-threshold` / `--idle-after`.
   */
  usage?: UsageOptions;
  /** How long an operator's RBAC decisions are cached (default 5 s): a revocation's delay. */
  accessReviewTtlMs?: number;
  /**
   * How long a script's reviewed bearer token is trusted before the API server is asked again,
   * on new requests and open streams alike (default `BEARER_REVIEW_SECONDS`, a minute).
   */
  bearerReviewSeconds?: number;
}

export interface RunningBff {
  app: FastifyInstance;
  url: string;
  context: BffContext;
  /** With `auth`: the operators' sessions (`--auth oidc` creates them after its code exchange). */
  sessions?: BrowserSessions;
  /** Whether this replica holds the console's Lease (always, without a session key file). */
  leadership: Leadership;
  /** `http://<host>:<port>/metrics` when `metricsPort` was given. */
  metricsUrl?: string;
  close(): Promise<void>;
}
