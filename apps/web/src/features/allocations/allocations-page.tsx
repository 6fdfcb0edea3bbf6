import type { PoolSummary } from '@mgpu/shared';
import { useQuery } from '@tanstack/react-query';
import { Alert } from 'antd';
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { useSearchParams } from 'react-router';
import { useTRPC } from '../../app/trpc.js';
import { AllocationModel } from './allocation-model.js';
import {
  type DashboardState,
  filtersOf,
  readDashboardState,
  writeDashboardState,
} from './dashboard-filters.js';
import { FilterBar } from './filter-bar.js';
import { useDashboardI18n } from './i18n/dashboard-i18n.js';
import { InstanceDetail } from './instance-detail.js';
import { InstanceList } from './instance-list.js';
import { NodeList } from './node-list.js';
import { NodeView } from './node-view.js';
import { PoolOverview } from './pool-overview.js';
import { StreamBanner, StreamFreshness } from './stream-status.js';
import { useAllocationStream } from './use-allocation-stream.js';
import { UtilisationChart } from './utilisation-chart.js';
import './allocations.css';

/** The node layout changes rarely (nodes join, get cordoned); re-read it now and then. */
const LAYOUT_REFRESH_MS = 30_000;
/** At most this often when records name a node the layout does not have yet. */
const UNKNOWN_NODE_REFETCH_MS = 3_000;

/**
 * `/allocations`: the live per-card dashboard (issue 8). Pools, the card utilisation chart, the
 * mGPU instances with their shares, the nodes and their card grids, and one instance's node-side
 * fields — all from one `allocations.watch` stream applied once per frame, plus the node layout
 * from `cluster.nodes`. Filters, search and what is open live in the URL.
 */
export function AllocationsPage() {
  const { t } = useDashboardI18n();
  const trpc = useTRPC();
  const [model] = useState(() => new AllocationModel());
  useSyncExternalStore(model.subscribe, model.getVersion);
  const { stream, refresh: restartStream } = useAllocationStream(model);

  const layout = useQuery({
    ...trpc.cluster.nodes.queryOptions(),
    refetchInterval: LAYOUT_REFRESH_MS,
    staleTime: 0,
    // A thousand nodes: comparing old and new trees costs more than it saves.
    structuralSharing: false,
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
  const unknownNodes = model.unknownNodes.length;
  useEffect(() => {
    if (unknownNodes === 0 || !model.hasSnapshot || layout.isFetching) return;
    if (Date.now() - lastUnknownFetch.current < UNKNOWN_NODE_REFETCH_MS) return;
    lastUnknownFetch.current = Date.now();
    void refetchLayout();
  }, [unknownNodes, model, layout.isFetching, refetchLayout]);

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

  const pools = model.pools(filters);
  const instances = model.instances(filters);
  const nodes = model.nodes(filters);
  const loading = !model.hasSnapshot || layout.data === undefined;

  return (
    <section className="alloc-page">
      <div className="alloc-head">
        <h1 className="page-title">{t('allocations.title')}</h1>
        <StreamFreshness stream={stream} lastChangeAt={model.getLastChangeAt} onRefresh={refresh} />
      </div>
      <StreamBanner stream={stream} />
      {layout.error ? (
        <Alert
          type="error"
          showIcon
          title={t('allocations.layoutError', { message: layout.error.message })}
        />
      ) : null}
      <FilterBar state={state} options={model.options()} onChange={change} />
      {loading ? (
        <p className="loading">{t('allocations.loading')}</p>
      ) : (
        <p className="muted alloc-small" data-testid="alloc-totals">
          {t('allocations.totals', {
            nodes: model.nodeCount,
            instances: model.recordCount,
          })}
        </p>
      )}

      <div className="alloc-overview">
        <section className="alloc-panel" aria-labelledby="alloc-pools-title">
          <h2 id="alloc-pools-title" className="section-title">
            {t('allocations.pools.title')}
          </h2>
          <PoolOverview pools={pools} onPick={pickPool} />
        </section>
        <section
          className="alloc-panel alloc-chart-panel"
          aria-label={t('allocations.chart.title')}
        >
          <UtilisationChart buckets={model.utilisation(filters)} />
        </section>
      </div>

      {state.instance ? (
        <InstanceDetail id={state.instance} record={model.record(state.instance)} linkTo={linkTo} />
      ) : null}

      <section className="alloc-panel" aria-labelledby="alloc-instances-title">
        <h2 id="alloc-instances-title" className="section-title">
          {t('allocations.instances.title')}
        </h2>
        <InstanceList records={instances} total={model.recordCount} linkTo={linkTo} />
      </section>

      {state.node ? (
        <NodeView name={state.node} node={model.node(state.node)} linkTo={linkTo} />
      ) : null}

      <section className="alloc-panel" aria-labelledby="alloc-nodes-title">
        <h2 id="alloc-nodes-title" className="section-title">
          {t('allocations.nodes.title')}
        </h2>
        <NodeList nodes={nodes} linkTo={linkTo} />
      </section>
    </section>
  );
}
