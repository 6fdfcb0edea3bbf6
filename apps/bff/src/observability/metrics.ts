import { createServer, type Server } from 'node:http';
import { isIP } from 'node:net';
import {
  type AllocationRecord,
  NO_POOL,
  type NodeState,
  pendingPodsPerPool,
  sameItems,
} from '@mgpu/shared';
import type { AnyTRPCRouter } from '@trpc/server';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { currentNodeStates, currentPools } from '../cluster/inventory.js';
import { currentPendingPods } from '../live/pending-pods.js';
import type { BffContext } from '../trpc/context.js';
import { SseTransport } from '../trpc/sse-transport.js';
import {
  labelsText,
  SeriesBlocks,
  type SeriesFamily,
  SeriesLines,
  type SeriesPart,
} from './series-text.js';

/** What the figures are read from at scrape time: the dashboard's own model, nothing else. */
export interface MetricsSources {
  context: BffContext;
  /** Open SSE streams (every subscription: dashboards, result pages, pending lists). */
  sseSubscribers(): number;
  /** The router, so HTTP metrics name tRPC procedures (a bounded set) rather than raw paths. */
  router: AnyTRPCRouter;
}

const CARD_LABELS = ['node', 'card', 'model', 'policy'] as const;
const INSTANCE_LABELS = ['namespace', 'pod', 'container', 'node', 'card'] as const;

/** One series per GPU card, written by `SeriesLines` (see there why not prom-client gauges). */
const CARD_FAMILIES: readonly SeriesFamily[] = [
  {
    name: 'mgpu_card_compute_allocated_percent',
    help: 'Compute of the card given out, in percent of one card (100 = the whole card).',
    labels: CARD_LABELS,
  },
  {
    name: 'mgpu_card_memory_allocated_mib',
    help: 'GPU memory of the card given out, in MiB.',
    labels: CARD_LABELS,
  },
  {
    name: 'mgpu_card_instances',
    help: 'mGPU instances on the card (the public scheduler allows 16).',
    labels: ['node', 'card'],
  },
];

const CARD_BLOCKS = new SeriesBlocks(CARD_FAMILIES);

/** One series per mGPU instance (a container on a card): at most 16 per card. */
const INSTANCE_FAMILIES: readonly SeriesFamily[] = [
  {
    name: 'mgpu_instance_compute_percent',
    help: 'Compute one mGPU instance (a container on a card) asked for, in percent of the card.',
    labels: INSTANCE_LABELS,
  },
  {
    name: 'mgpu_instance_memory_mib',
    help: 'GPU memory one mGPU instance asked for on its card, in MiB (none for whole cards).',
    labels: INSTANCE_LABELS,
  },
];
const INSTANCE_BLOCKS = new SeriesBlocks(INSTANCE_FAMILIES);

/**
 * The console's Prometheus metrics (spec §8). Every cluster figure is read, when scraped, from
 * the same shared model the dashboard shows — `currentNodeStates` (cards as the scheduler books
 * them), `currentPools` (`poolSummaries`: stranded capacity, largest fit) and
 * `currentPendingPods`, and the allocation records for `mgpu_instance_*` — so /metrics and
 * /allocations cannot disagree. Cardinality: one series per GPU card for `mgpu_card_*`, one per
 * pool for `mgpu_pool_*` and `mgpu_pending_pods`, one per mGPU instance for `mgpu_instance_*`
 * (at most 16 per card, the scheduler's limit); nothing else per pod (README, "Metrics").
 */
export class ConsoleMetrics {
  readonly registry = new Registry();
  private readonly httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  private readonly procedures: Set<string>;
  private readonly subscriptions: Set<string>;
  /** Each node state's card lines, kept while it is the same object at the same version. */
  private readonly cardLines = new WeakMap<NodeState, { version: number; part: SeriesPart }>();
  /** The card and instance families, kept while the node states / records they came from are. */
  private cards: { states: readonly NodeState[]; blocks: Buffer[] } | undefined;
  private instances:
    | { feedId: string; nodes: Map<string, InstanceLines>; blocks: Buffer[] }
    | undefined;

  constructor(private readonly sources: MetricsSources) {
    const registers = [this.registry];
    // At run time `_def.procedures` is flat (`'cluster.pending'`), whatever its declared type.
    this.procedures = new Set(Object.keys(sources.router._def.procedures as object));
    this.subscriptions = SseTransport.subscriptionPaths(sources.router);
    const pools = () => currentPools(this.sources.context);

    const perPool = (name: string, help: string, value: (pool: PoolFigures) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['pool'],
        registers,
        collect() {
          this.reset();
          for (const pool of pools()) this.set({ pool: pool.pool }, value(pool));
        },
      });
    perPool(
      'mgpu_pool_stranded_memory_mib',
      'Free GPU memory no request can use now (its card has no compute or instance slot left).',
      (pool) => pool.stranded.memoryMiB,
    );
    perPool(
      'mgpu_pool_stranded_compute_percent',
      'Free compute no request can use now (its card has under 1 GiB or no instance slot left).',
      (pool) => pool.stranded.computePercent,
    );
    perPool(
      'mgpu_pool_largest_fit_compute_percent',
      'The most compute one container can still get on one node of the pool, in percent of a card.',
      (pool) => pool.largestFit.computePercent,
    );
    perPool(
      'mgpu_pool_largest_fit_memory_mib',
      'The most GPU memory one container can still get on one node of the pool, in MiB.',
      (pool) => pool.largestFit.memoryMiB,
    );
    perPool(
      'mgpu_pool_compute_allocatable_percent',
      'Compute of the pool, in percent of one card (100 per card).',
      (pool) => pool.compute.allocatable,
    );
    perPool(
      'mgpu_pool_compute_allocated_percent',
      'Compute of the pool given out, in percent of one card.',
      (pool) => pool.compute.allocated,
    );
    perPool(
      'mgpu_pool_memory_allocatable_mib',
      'GPU memory of the pool, in MiB.',
      (pool) => pool.memoryMiB.allocatable,
    );
    perPool(
      'mgpu_pool_memory_allocated_mib',
      'GPU memory of the pool given out, in MiB.',
      (pool) => pool.memoryMiB.allocated,
    );

    const context = () => this.sources.context;
    new Gauge({
      name: 'mgpu_pending_pods',
      help: `GPU pods no node holds yet, per pool that lacks only room for them (or would take them now); pool="${NO_POOL}": no pool could take them at all.`,
      labelNames: ['pool'],
      registers,
      collect() {
        this.reset();
        const counts = pendingPodsPerPool(currentPendingPods(context()));
        // Every pool (and NO_POOL) has a series, 0 when nothing waits, so a panel shows no gaps.
        const known = new Set([...pools().map((pool) => pool.pool), NO_POOL]);
        for (const pool of known) this.set({ pool }, counts.get(pool) ?? 0);
        for (const [pool, count] of counts) if (!known.has(pool)) this.set({ pool }, count);
      },
    });

    const subscribers = () => this.sources.sseSubscribers();
    new Gauge({
      name: 'mgpu_console_sse_subscribers',
      help: 'Open SSE streams of the console (subscriptions: dashboards, result pages, pending lists).',
      registers,
      collect() {
        this.set(subscribers());
      },
    });
    this.httpDuration = new Histogram({
      name: 'mgpu_console_http_request_duration_seconds',
      help: 'Time to answer an HTTP request of the console (SSE streams are not counted: they last).',
      labelNames: ['method', 'route', 'status_code'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    collectDefaultMetrics({ register: this.registry });
  }

  /**
   * A bounded route name: `/trpc/<procedure>` for a procedure of the router, the route pattern
   * otherwise, `not-found` for anything unrouted — never the raw URL (unbounded cardinality).
   */
  private routeOf(request: FastifyRequest): string {
    const pattern = request.routeOptions.url;
    if (pattern === undefined) return 'not-found';
    const path = (request.params as { path?: string } | undefined)?.path;
    if (pattern.startsWith('/trpc') && path !== undefined)
      return this.procedures.has(path)
        ? `/trpc/${path}`
        : path.includes(',')
          ? '/trpc/batch'
          : '/trpc/unknown';
    return pattern;
  }

  /** A Fastify `onResponse` hook: one observation per answered request. */
  readonly onResponse = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    // A subscription's answer is a stream that lasts as long as its page: not a duration.
    const path = (request.params as { path?: string } | undefined)?.path;
    if (path !== undefined && this.subscriptions.has(path)) return;
    this.httpDuration.observe(
      {
        method: request.method,
        route: this.routeOf(request),
        status_code: String(reply.statusCode),
      },
      reply.elapsedTime / 1000,
    );
  };

  /** Every metric name the console exports (what the Grafana dashboard may reference). */
  names(): string[] {
    return [
      ...this.registry.getMetricsAsArray().map((metric) => metric.name),
      ...CARD_FAMILIES.map((family) => family.name),
      ...INSTANCE_FAMILIES.map((family) => family.name),
    ];
  }

  /**
   * The whole `/metrics` answer as encoded chunks, in order: prom-client's registry, then the
   * per-card and per-instance families. Written to the socket as they are (`serveMetrics`), so
   * a scrape after a change encodes only the nodes that changed, not 3.6 MiB of text.
   */
  async answer(): Promise<Buffer[]> {
    const registered = await this.registry.metrics();
    return [
      Buffer.from(registered.endsWith('\n') ? registered : `${registered}\n`),
      ...this.cardBlocks(),
      ...this.instanceBlocks(),
    ];
  }

  /** Cards as the scheduler books them (`currentNodeStates`, the dashboard's and preview's view). */
  private cardBlocks(): Buffer[] {
    const states = currentNodeStates(this.sources.context);
    if (this.cards?.states === states) return this.cards.blocks;
    const parts: SeriesPart[] = [];
    for (const state of states) {
      if (state.resourceType === undefined) continue;
      // `NodeStatesBuilder` hands out the same state object while its node is unchanged.
      let kept = this.cardLines.get(state);
      if (kept?.version !== state.version) {
        kept = { version: state.version, part: cardLinesOf(state) };
        this.cardLines.set(state, kept);
      }
      parts.push(kept.part);
    }
    this.cards = { states, blocks: CARD_BLOCKS.of(parts) };
    return this.cards.blocks;
  }

  /** Each mGPU instance's own ask, from the allocation records the dashboard lists, per node. */
  private instanceBlocks(): Buffer[] {
    const feed = this.sources.context.allocations;
    const feedId = feed.currentId;
    if (this.instances?.feedId === feedId) return this.instances.blocks;
    const onNode = new Map<string, AllocationRecord[]>();
    for (const record of feed.snapshot()) {
      const records = onNode.get(record.node);
      if (records === undefined) onNode.set(record.node, [record]);
      else records.push(record);
    }
    // The feed replaces a record object only when its pod or node report changed.
    const known = this.instances?.nodes;
    const nodes = new Map<string, InstanceLines>();
    for (const [node, records] of onNode) {
      const kept = known?.get(node);
      nodes.set(
        node,
        kept !== undefined && sameItems(kept.records, records)
          ? kept
          : { records, part: instanceLinesOf(records) },
      );
    }
    const blocks = INSTANCE_BLOCKS.of([...nodes.values()].map((lines) => lines.part));
    this.instances = { feedId, nodes, blocks };
    return blocks;
  }
}

/** One node's lines of the card families. */
function cardLinesOf(state: NodeState): SeriesPart {
  const lines = new SeriesLines(CARD_FAMILIES);
  const node = labelsText(['node'], [state.name]);
  // model and policy are the same for every card of the node: escaped once.
  const pool = labelsText(
    ['model', 'policy'],
    [state.model ?? '', state.resourceType === 'nvidia' ? 'nvidia' : state.policy],
  );
  for (const card of state.cards) {
    const nodeCard = `${node},card="${card.index}"`;
    const full = `${nodeCard},${pool}`;
    lines.add(0, full, card.usedCompute);
    lines.add(1, full, card.usedMemoryMiB);
    lines.add(2, nodeCard, card.instances);
  }
  return lines.encode();
}

/** One node's lines of the instance families. */
function instanceLinesOf(records: readonly AllocationRecord[]): SeriesPart {
  const lines = new SeriesLines(INSTANCE_FAMILIES);
  for (const record of records) {
    const labels = labelsText(INSTANCE_LABELS, [
      record.namespace,
      record.pod,
      record.container,
      record.node,
      String(record.card),
    ]);
    lines.add(0, labels, record.requested.computePercent);
    if (record.requested.memoryMiB !== null) lines.add(1, labels, record.requested.memoryMiB);
  }
  return lines.encode();
}

interface InstanceLines {
  records: readonly AllocationRecord[];
  part: SeriesPart;
}

type PoolFigures = ReturnType<typeof currentPools>[number];

/** What `/metrics` answers from: the answer's chunks and the registry's content type. */
export type MetricsAnswer = Pick<ConsoleMetrics, 'answer' | 'registry'>;

export interface MetricsServerOptions {
  /** 0: any free port. */
  port: number;
  /** The address to bind (`--metrics-host`, default loopback: a scrape target is no public page). */
  host: string;
  /**
   * The `Host` values this server answers to once bound on `port`: the console's own allowlist
   * (`allowedOrigins`), so a DNS-rebinding page cannot read the cluster's figures either.
   */
  allowedHosts(port: number): ReadonlySet<string>;
  /** The console's logger: a failed scrape is logged here, never echoed to the scraper. */
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>;
}

/**
 * A `Host` that is an IP literal (`10.1.2.3:9464`, `[fd00::1]:9464`): Prometheus in a cluster
 * scrapes pod addresses it cannot know in advance, and a rebinding page always sends a DNS name,
 * so an address typed as such needs no allowlist entry.
 */
function isAddressHost(host: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(host);
  if (bracketed) return isIP(bracketed[1] ?? '') === 6;
  return isIP(host.replace(/:\d{1,5}$/, '')) === 4;
}

/**
 * `/metrics` on a port of its own (spec §8 `--metrics-port`): a plain node server, so a scrape
 * never passes the console's auth, CSP or Origin checks, and the API port exposes nothing new.
 * It binds to `--metrics-host` (loopback unless the operator opens it) and checks `Host`.
 */
export async function serveMetrics(
  metrics: MetricsAnswer,
  options: MetricsServerOptions,
): Promise<{ url: string; close(): Promise<void> }> {
  const { host, log } = options;
  let hosts: ReadonlySet<string> = new Set();
  const server: Server = createServer((request, response) => {
    const given = request.headers.host ?? '';
    if (!hosts.has(given) && !isAddressHost(given)) {
      log.warn({ host: given }, 'metrics scrape refused: Host not allowed');
      response
        .writeHead(421, { 'content-type': 'text/plain' })
        .end('this metrics server does not answer under that name\n');
      return;
    }
    const path = (request.url ?? '/').split('?', 1)[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n');
      return;
    }
    metrics.answer().then(
      (chunks) => {
        let length = 0;
        for (const chunk of chunks) length += chunk.length;
        response.writeHead(200, {
          'content-type': metrics.registry.contentType,
          'content-length': length,
        });
        // One writev to the socket: the chunks are sent as they are, never joined or encoded.
        response.cork();
        for (const chunk of chunks) response.write(chunk);
        response.uncork();
        response.end();
      },
      (error: unknown) => {
        // The message may name internals (a path, a cluster address): the log gets it, not the scraper.
        log.error({ err: error }, 'metrics scrape failed');
        response
          .writeHead(500, { 'content-type': 'text/plain' })
          .end('metrics failed; see the console log\n');
      },
    );
  });
  // Prometheus keeps its connection between scrapes (every 15–60 s): Node's 5 s idle timeout
  // closed it under each next scrape, a race the scraper sees as a failed scrape.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => resolve());
  });
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : options.port;
  hosts = options.allowedHosts(bound);
  const shown = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
