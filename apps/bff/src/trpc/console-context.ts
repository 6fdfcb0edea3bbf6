import type { BffContext, HistoryStore, Operator } from '@mgpu/api';
import {
  AccessReviews,
  AllocationFeed,
  ClusterClient,
  ClusterViews,
  PoolHistory,
  PrometheusHistory,
  PrometheusSource,
  readCardUse,
  readCardUseBefore,
  usageContextFor,
} from '@mgpu/api';
import type { Leadership } from '@mgpu/kube-client';
import { SNAPSHOT_PART_SIZE, VKE } from '@mgpu/shared';
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { BffOptions } from '../bff-options.js';

/**
 * The console's context, built once at start (create-t3-turbo's `createTRPCContext` shape): the
 * cluster client with its informers, the shared views, the allocation feed and the history —
 * every operator's context is this one with their own client and identity (`contextOfRequest`).
 * With `replicas` (consoles sharing a Lease) only the leader samples the pool history, and it
 * publishes it to `store` (the `<instance>-pool-history` ConfigMap) for the others.
 */
export function createConsoleContext(
  options: BffOptions,
  log: Pick<FastifyBaseLogger, 'info' | 'error'>,
  replicas?: { leadership: Leadership; store: HistoryStore; replica: string },
): BffContext {
  const modelLabel = options.modelLabel ?? VKE.defaultModelLabel;
  const cardPolicy = options.cardPolicy ?? 'binpack';
  const cluster = new ClusterClient(options.connection.kubeConfig, { modelLabel });
  const views = new ClusterViews(cluster, { modelLabel, cardPolicy });
  const usage = usageContextFor(options.connection, options.usage);
  return {
    cluster,
    source: options.connection.source,
    allocations: new AllocationFeed(cluster, {
      onInvalidRecord: (id, error) =>
        log.error({ record: id, issues: error.issues }, 'allocation record left out: invalid'),
    }),
    views,
    snapshotPartSize: options.snapshotPartSize ?? SNAPSHOT_PART_SIZE,
    // The pools' used compute beside their allocated, from the same source as the usage pages.
    // Through Prometheus the used compute reaches back before the start (one range query).
    history: new PoolHistory(views, {
      log: (message) => log.error(message),
      ...replicas,
      ...options.history,
      cardUse: () => readCardUse(usage),
      cardUseBefore: (range) => readCardUseBefore(usage, range),
    }),
    // The Prometheus the usage is read from also keeps the console's own series when it scrapes
    // --metrics-port: the history then reads them there (issue 30).
    ...(usage.source instanceof PrometheusSource
      ? { prometheusHistory: new PrometheusHistory({ prometheus: usage.source.http }) }
      : {}),
    usage,
    cardPolicy,
    accessReviews: new AccessReviews(
      options.accessReviewTtlMs !== undefined ? { ttlMs: options.accessReviewTtlMs } : {},
    ),
    modelLabel,
    ...(options.reservedNamespaces ? { reservedNamespaces: options.reservedNamespaces } : {}),
    // One JSON line per mutation, sign-in and sign-out (spec §8), as `{ audit: … }`.
    audit: (entry) => log.info({ audit: entry }, 'audit'),
  };
}

/**
 * A request's context: the console's own, or with per-user auth the operator the guard admitted
 * (`operators`) with a cluster client of their own — one per operator (per session), not per
 * request, so its keep-alive connections are reused; its informers are the console's.
 */
export function contextOfRequest(
  context: BffContext,
  operators: WeakMap<FastifyRequest, Operator>,
): (request: FastifyRequest) => BffContext {
  const operatorClients = new WeakMap<Operator, ClusterClient>();
  return (request) => {
    const operator = operators.get(request);
    if (operator === undefined) return context;
    let client = operatorClients.get(operator);
    if (client === undefined) {
      client = context.cluster.forOperator(operator.kubeConfig);
      operatorClients.set(operator, client);
    }
    return { ...context, cluster: client, operator };
  };
}
