import type { AllocationFeed, ClusterViews } from '@mgpu/api';
import {
  type AllocationRecord,
  NO_POOL,
  type NodeState,
  pendingPodsPerPool,
  sameItems,
  type WorkloadUsage,
} from '@mgpu/shared';
import type { AnyTRPCRouter } from '@trpc/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { SseTransport } from '../trpc/sse-transport.js';
import {
  labelsText,
  SeriesBlocks,
  type SeriesFamily,
  SeriesLines,
  type SeriesPart,
} from './series-text.js';
import { registerUsageMetrics } from './usage-metrics.js';

/** What the figures are read from at scrape time: the dashboard's own model, nothing else. */
export interface MetricsSources {
  /** The console's shared views (node states, pools, pending pods). */
  views: ClusterViews;
  /** The allocation records, for `mgpu_instance_*`. */
  allocations: AllocationFeed;
  /** Open SSE streams (every subscription: dashboards, result pages, pending lists). */
  sseSubscribers(): number;
  /** The router, so HTTP metrics name tRPC procedures (a bounded set) rather than raw paths. */
  router: AnyTRPCRouter;
  /** `usage.workloads`' rows, for `mgpu_workload_*` (issue 28); unset: no such series. */
  workloadUsage?: () => Promise<readonly WorkloadUsage[]>;
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
 * the same shared model the dashboard shows — `ClusterViews`' node states (cards as the
 * scheduler books them), pools (`poolSummaries`: stranded capacity, largest fit) and pending
 * pods, and the allocation records for `mgpu_instance_*` — so /metrics and
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
    const { views } = sources;
    const pools = () => views.pools();

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

    new Gauge({
      name: 'mgpu_pending_pods',
      help: `GPU pods no node holds yet, per pool that lacks only room for them (or would take them now); pool="${NO_POOL}": no pool could take them at all.`,
      labelNames: ['pool'],
      registers,
      // Waits for the pending view's current state, so a scrape never reads one behind; should
      // that computation fail, the last state rather than no metrics at all.
      async collect() {
        const pending = await views.pending.current().catch(() => views.pending.latest());
        const counts = pendingPodsPerPool(pending.groups);
        this.reset();
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
    if (sources.workloadUsage) registerUsageMetrics(this.registry, sources.workloadUsage);
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

  /** Cards as the scheduler books them (`ClusterViews.nodeStates`, the dashboard's and preview's view). */
  private cardBlocks(): Buffer[] {
    const states = this.sources.views.nodeStates();
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
    const feed = this.sources.allocations;
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

type PoolFigures = ReturnType<ClusterViews['pools']>[number];
