import type { PoolSummary } from '@mgpu/shared';
import { useQuery } from '@tanstack/react-query';
import { Alert } from 'antd';
import {
  memo,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import { useSearchParams } from 'react-router';
import { useTRPC } from '../../app/trpc.js';
import { NamespaceUsageSection } from '../usage/namespace-usage-table.js';
import { AllocPanel } from './alloc-panel.js';
import { AllocationModel } from './allocation-model.js';
import { isClusterWideForbidden } from './cluster-wide-access.js';
import {
  type DashboardFilters,
  type DashboardState,
  filtersOf,
  readDashboardState,
  writeDashboardState,
} from './dashboard-filters.js';
import { DetailPanel, type OpenParts, usePanelBeside, usePanelFocus } from './detail-panel.js';
import { FilterBar } from './filter-bar.js';
import { useDashboardI18n } from './i18n/dashboard-i18n.js';
import { InstanceDetail } from './instance-detail.js';
import { InstanceList } from './instance-list.js';
import { NodeList } from './node-list.js';
import { NodeView } from './node-view.js';
import { PendingCount, PendingPods } from './pending-pods.js';
import { PoolHistorySection } from './pool-history.js';
import { PoolOverview } from './pool-overview.js';
import { QuotaOverview } from './quota-overview.js';
import { StreamBanner, StreamFreshness } from './stream-status.js';
import { useAllocationStream } from './use-allocation-stream.js';
import { useModelVersion, useThrottledModelVersion } from './use-model-version.js';
import { UtilisationChart } from './utilisation-chart.js';
import './allocations.css';

/** The node layout changes rarely (nodes join, get cordoned); re-read it now and then. */
const LAYOUT_REFRESH_MS = 30_000;
/** At most this often when records name a node the layout does not have yet. */
const UNKNOWN_NODE_REFETCH_MS = 3_000;
/**
 * The cluster-wide summary (totals, pools, utilisation chart) redraws at most this often. At
 * 100 changes a second every batch moves some pool's figures and the chart's bars; redrawing them
 * every frame cost as much as the rows. The rows, the open node and the open instance still
 * follow every batch; the summary lags a change by at most this (plus a frame).
 */
const SUMMARY_INTERVAL_MS = 100;

type LinkTo = (change: Partial<DashboardState>) => string;

/**
 * Each part of the page reads the model itself, so a batch re-renders only the parts that show
 * it (and the summary only at its own pace), never the page with its filter bar and layout query.
 */
const Totals = memo(function Totals({
  model,
  filters,
  loading,
}: {
  model: AllocationModel;
  filters: DashboardFilters;
  loading: boolean;
}) {
  const { t } = useDashboardI18n();
  useThrottledModelVersion(model, SUMMARY_INTERVAL_MS);
  if (loading) return <p className="loading">{t('allocations.loading')}</p>;
  // What the filters keep, beside the cluster's whole when they keep less.
  const nodes = model.nodes(filters).length;
  const instances = model.instances(filters).length;
  const filtered = nodes !== model.nodeCount || instances !== model.recordCount;
  return (
    <p className="muted alloc-small" data-testid="alloc-totals">
      {filtered
        ? t('allocations.totals.filtered', {
            nodes,
            allNodes: model.nodeCount,
            instances,
            allInstances: model.recordCount,
          })
        : t('allocations.totals', { nodes, instances })}
    </p>
  );
});

const LivePools = memo(function LivePools({
  model,
  filters,
  onPick,
}: {
  model: AllocationModel;
  filters: DashboardFilters;
  onPick(pool: PoolSummary): void;
}) {
  useThrottledModelVersion(model, SUMMARY_INTERVAL_MS);
  return <PoolOverview pools={model.pools(filters)} onPick={onPick} />;
});

const LiveChart = memo(function LiveChart({
  model,
  filters,
}: {
  model: AllocationModel;
  filters: DashboardFilters;
}) {
  // Half an interval after the pools: each redraw costs a few ms, and both with a batch in one
  // frame overran it (p99 frame 33 ms; staggered, 16.8 ms).
  useThrottledModelVersion(model, SUMMARY_INTERVAL_MS, SUMMARY_INTERVAL_MS / 2);
  return <UtilisationChart buckets={model.utilisation(filters)} />;
});

/** What a live list needs: the model, the URL's filters, and links that keep the URL's state. */
interface LiveListProps {
  model: AllocationModel;
  filters: DashboardFilters;
  linkTo: LinkTo;
}

const LiveInstances = memo(function LiveInstances({ model, filters, linkTo }: LiveListProps) {
  useModelVersion(model);
  return (
    <InstanceList records={model.instances(filters)} total={model.recordCount} linkTo={linkTo} />
  );
});

const LiveNodes = memo(function LiveNodes({ model, filters, linkTo }: LiveListProps) {
  useModelVersion(model);
  return <NodeList nodes={model.nodes(filters)} total={model.nodeCount} linkTo={linkTo} />;
});

const LiveNodeView = memo(function LiveNodeView({
  model,
  name,
  linkTo,
}: {
  model: AllocationModel;
  name: string;
  linkTo: LinkTo;
}) {
  useModelVersion(model);
  return <NodeView name={name} node={model.node(name)} linkTo={linkTo} />;
});

const LiveInstanceDetail = memo(function LiveInstanceDetail({
  model,
  id,
  linkTo,
}: {
  model: AllocationModel;
  id: string;
  linkTo: LinkTo;
}) {
  useModelVersion(model);
  return <InstanceDetail id={id} record={model.record(id)} linkTo={linkTo} />;
});

/**
 * `/allocations`: the live per-card dashboard (issue 8). Pools, the card utilisation chart, the
 * mGPU instances with their shares, the nodes and their card grids, and one instance's node-side
 * fields — all from one `allocations.watch` stream applied once per frame, plus the node layout
 * from `cluster.layout` and the pods still waiting for a node from `cluster.pendingWatch`. Filters, search and what is open live in the URL.
 */
export function AllocationsPage() {
  const { t } = useDashboardI18n();
  const trpc = useTRPC();
  const [model] = useState(() => new AllocationModel());
  // The page itself re-renders only when these change, not on every batch.
  const hasSnapshot = useSyncExternalStore(model.subscribe, () => model.hasSnapshot);
  const unknownNodes = useSyncExternalStore(model.subscribe, () => model.unknownNodes.length);
  const options = useSyncExternalStore(model.subscribe, () => model.options());
  const { stream, refresh: restartStream } = useAllocationStream(model);

  const layout = useQuery({
    ...trpc.cluster.layout.queryOptions(),
    refetchInterval: LAYOUT_REFRESH_MS,
    staleTime: 0,
    // Ten thousand nodes: comparing old and new trees costs more than it saves; the model keeps
    // every node whose shape is unchanged itself.
    structuralSharing: false,
    // No `list nodes`: asking again does not change the answer until the RBAC does.
    retry: (count, error) => !isClusterWideForbidden(error) && count < 3,
  });
  const { refetch: refetchLayout } = layout;
  useEffect(() => {
    if (layout.data) model.setLayout(layout.data);
  }, [layout.data, model]);
  // After a reconnect the cluster may have changed under us (a restarted BFF, new nodes).
  useEffect(() => {
    if (stream.liveCount > 1) void refetchLayout();
  }, [stream.liveCount, refetchLayout]);
  const lastUnknownFetch = useRef(0);
  useEffect(() => {
    if (unknownNodes === 0 || !hasSnapshot || layout.isFetching) return;
    if (Date.now() - lastUnknownFetch.current < UNKNOWN_NODE_REFETCH_MS) return;
    lastUnknownFetch.current = Date.now();
    void refetchLayout();
  }, [unknownNodes, hasSnapshot, layout.isFetching, refetchLayout]);

  const [params, setParams] = useSearchParams();
  // One object per URL, so the memoised parts (filter boxes, lists) skip frames that only bring data.
  const query = params.toString();
  const state = useMemo(() => readDashboardState(new URLSearchParams(query)), [query]);
  const filters = useMemo(() => filtersOf(state), [state]);
  const change = useCallback(
    (next: Partial<DashboardState>) =>
      setParams((previous) => writeDashboardState(previous, next), { replace: true }),
    [setParams],
  );
  const linkTo = useCallback(
    (next: Partial<DashboardState>) =>
      `?${writeDashboardState(new URLSearchParams(query), next).toString()}`,
    [query],
  );
  const pickPool = useCallback(
    (pool: PoolSummary) => change({ model: pool.model, policy: pool.policy }),
    [change],
  );
  const refresh = useCallback(() => {
    restartStream();
    void refetchLayout();
  }, [restartStream, refetchLayout]);

  // The node filter names the open node too: the panel opens once the node is known, so a name
  // half typed into the filter box does not open an empty panel over the page.
  const nodeKnown = useSyncExternalStore(
    model.subscribe,
    () => state.node !== '' && model.node(state.node) !== undefined,
  );
  const open: OpenParts = useMemo(
    () => ({ node: nodeKnown ? state.node : '', instance: state.instance }),
    [nodeKnown, state.node, state.instance],
  );
  const panelOpen = Boolean(open.node || open.instance);
  const beside = usePanelBeside();
  const panelRef = useRef<HTMLDivElement>(null);
  usePanelFocus(panelRef, open);
  const closePart = useCallback((part: keyof OpenParts) => change({ [part]: '' }), [change]);

  // Without `list nodes` the layout never comes: the operator's own records are all there is.
  const loading =
    !hasSnapshot || (layout.data === undefined && !isClusterWideForbidden(layout.error));

  return (
    <section className={panelOpen ? 'alloc-page alloc-page-open' : 'alloc-page'}>
      {/* Under a drawer (a narrow screen) the page is out of reach until the drawer closes. */}
      <div className="alloc-main" inert={panelOpen && !beside}>
        <div className="alloc-head">
          <h1 className="page-title">{t('allocations.title')}</h1>
          <PendingCount />
          <StreamFreshness
            stream={stream}
            lastChangeAt={model.getLastChangeAt}
            onRefresh={refresh}
          />
        </div>
        <StreamBanner stream={stream} />
        {isClusterWideForbidden(layout.error) ? (
          <Alert type="info" showIcon title={t('allocations.clusterWideForbidden')} />
        ) : layout.error ? (
          <Alert
            type="error"
            showIcon
            title={t('allocations.layoutError', { message: layout.error.message })}
          />
        ) : null}
        <FilterBar state={state} options={options} onChange={change} />
        <Totals model={model} filters={filters} loading={loading} />

        <div className="alloc-overview">
          <AllocPanel id="alloc-pools-title" title={t('allocations.pools.title')}>
            <LivePools model={model} filters={filters} onPick={pickPool} />
          </AllocPanel>
          <section
            className="alloc-panel alloc-chart-panel"
            aria-label={t('allocations.chart.title')}
          >
            <LiveChart model={model} filters={filters} />
          </section>
        </div>

        <PendingPods />

        <AllocPanel id="alloc-quotas-title" title={t('allocations.quotas.title')}>
          <QuotaOverview namespace={filters.namespace} />
        </AllocPanel>

        <NamespaceUsageSection />

        <PoolHistorySection />

        <AllocPanel id="alloc-instances-title" title={t('allocations.instances.title')}>
          <LiveInstances model={model} filters={filters} linkTo={linkTo} />
        </AllocPanel>

        <AllocPanel id="alloc-nodes-title" title={t('allocations.nodes.title')}>
          <LiveNodes model={model} filters={filters} linkTo={linkTo} />
        </AllocPanel>
      </div>
      {panelOpen ? (
        <DetailPanel panelRef={panelRef} open={open} onClose={closePart}>
          {open.instance ? (
            <LiveInstanceDetail model={model} id={open.instance} linkTo={linkTo} />
          ) : null}
          {open.node ? <LiveNodeView model={model} name={open.node} linkTo={linkTo} /> : null}
        </DetailPanel>
      ) : null}
    </section>
  );
}
