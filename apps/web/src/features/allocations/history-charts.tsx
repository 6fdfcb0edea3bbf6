import type { ClusterHistory, PoolSample, PoolUsedBefore } from '@mgpu/shared';
import { memo, useEffect, useMemo, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { type DashboardKey, useDashboardI18n } from './i18n/dashboard-i18n.js';

/** One chart: a figure of every pool over the samples. */
interface Figure {
  title: DashboardKey;
  /** Null where the figure is unknown: a gap in the line, never a 0. */
  value(pool: PoolSample): number | null;
}

/** What the used compute chart needs of a pool: a sample's, or a point from before the start. */
type UsedPoint = PoolUsedBefore['pools'][number] | PoolSample;

/** Used compute in % of the pool, beside the allocated: unknown without a usage source. */
const usedShare = (pool: UsedPoint): number | null =>
  pool.computeUsedPercent === null ||
  pool.computeUsedPercent === undefined ||
  pool.computeAllocatablePercent === 0
    ? null
    : (100 * pool.computeUsedPercent) / pool.computeAllocatablePercent;

const COMPUTE_USED: Figure = { title: 'allocations.history.computeUsed', value: usedShare };

const FIGURES: readonly Figure[] = [
  {
    title: 'allocations.history.compute',
    value: (pool) =>
      pool.computeAllocatablePercent === 0
        ? 0
        : (100 * pool.computeAllocatedPercent) / pool.computeAllocatablePercent,
  },
  {
    title: 'allocations.history.memory',
    value: (pool) =>
      pool.memoryAllocatableMiB === 0
        ? 0
        : (100 * pool.memoryAllocatedMiB) / pool.memoryAllocatableMiB,
  },
  {
    title: 'allocations.history.strandedCompute',
    value: (pool) => pool.strandedComputePercent / 100,
  },
  { title: 'allocations.history.strandedMemory', value: (pool) => pool.strandedMemoryMiB / 1024 },
  { title: 'allocations.history.largestFit', value: (pool) => pool.largestFitComputePercent / 100 },
  { title: 'allocations.history.pending', value: (pool) => pool.pendingPods },
];

/** Distinct, colour-blind-friendlier series colours (Okabe–Ito), cycled over the pools. */
const COLOURS = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#CC79A7',
  '#56B4E9',
  '#D55E00',
  '#F0E442',
  '#000000',
];

const HEIGHT = 180;

/** uPlot's columns: times in seconds, then one column per pool (null where a pool is absent). */
function columnsOf<Pool extends { pool: string }>(
  rows: readonly { at: string; pools: readonly Pool[] }[],
  pools: readonly string[],
  figureOf: (pool: Pool) => number | null,
): uPlot.AlignedData {
  const times = rows.map((sample) => Date.parse(sample.at) / 1000);
  const columns = pools.map((pool) =>
    rows.map((sample) => {
      const found = sample.pools.find((entry) => entry.pool === pool);
      const value = found === undefined ? null : figureOf(found);
      return value === null ? null : Number(value.toFixed(2));
    }),
  );
  return [times, ...columns];
}

const HistoryChart = memo(function HistoryChart({
  title,
  pools,
  data,
}: {
  title: string;
  pools: readonly string[];
  data: uPlot.AlignedData;
}) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const poolKey = pools.join('\n');

  // A new plot when the pools change (its series are fixed at creation); otherwise new data only.
  // biome-ignore lint/correctness/useExhaustiveDependencies: data is applied by the next effect.
  useEffect(() => {
    const element = box.current;
    if (element === null) return;
    const created = new uPlot(
      {
        width: Math.max(240, element.clientWidth),
        height: HEIGHT,
        // One legend for all the charts (below), not six copies of the pool list.
        legend: { show: false },
        scales: {
          // A lone sample would otherwise span years: show the minute around it.
          x: {
            time: true,
            range: (_, min, max) => (min === max ? [min - 60, max + 10] : [min, max]),
          },
        },
        series: [
          {},
          ...poolKey.split('\n').map((pool, index) => ({
            label: pool,
            stroke: COLOURS[index % COLOURS.length] ?? '#000',
            width: 1.5,
          })),
        ],
        axes: [{}, { size: 48 }],
      },
      data,
      element,
    );
    plot.current = created;
    const resize = new ResizeObserver(() =>
      created.setSize({ width: Math.max(240, element.clientWidth), height: HEIGHT }),
    );
    resize.observe(element);
    return () => {
      resize.disconnect();
      created.destroy();
      plot.current = undefined;
    };
  }, [poolKey]);
  useEffect(() => {
    plot.current?.setData(data);
  }, [data]);

  return (
    <figure className="alloc-history-chart" aria-label={title}>
      <figcaption className="alloc-small">{title}</figcaption>
      <div ref={box} />
    </figure>
  );
});

/**
 * The per-pool history as time series (uPlot, loaded with this module only when the dashboard
 * shows the section): compute and memory allocated, stranded capacity, the largest fit and
 * pending pods of every pool, and where the history starts.
 */
export default function HistoryCharts({ history }: { history: ClusterHistory }) {
  const { t, lang } = useDashboardI18n();
  const pools = useMemo(
    () =>
      [
        ...new Set(history.samples.flatMap((sample) => sample.pools.map((pool) => pool.pool))),
      ].sort(),
    [history],
  );
  const charts = useMemo(() => {
    // Used beside allocated, once some sample has a used figure (a usage source answers); through
    // Prometheus it reaches back before the start, where the allocation is not known.
    const usedRows: { at: string; pools: readonly UsedPoint[] }[] = [
      ...(history.usedBefore ?? []),
      ...history.samples,
    ];
    const used = usedRows.some((sample) => sample.pools.some((pool) => usedShare(pool) !== null));
    const figures = used ? [FIGURES[0], COMPUTE_USED, ...FIGURES.slice(1)] : FIGURES;
    return figures.flatMap((figure) =>
      figure === COMPUTE_USED
        ? [{ figure, data: columnsOf(usedRows, pools, usedShare) }]
        : figure
          ? [{ figure, data: columnsOf(history.samples, pools, figure.value) }]
          : [],
    );
  }, [history, pools]);
  const since = new Date(history.samples[0]?.at ?? history.startedAt).toLocaleTimeString(lang);
  const firstUsed = history.usedBefore?.[0]?.at;
  // "Reaches back" only when it does by at least a sample's interval: a point in the start's own
  // second is no time before the console started.
  const usedSince =
    firstUsed === undefined ||
    Date.parse(firstUsed) > Date.parse(history.startedAt) - history.intervalMs
      ? undefined
      : new Date(firstUsed).toLocaleTimeString(lang);
  return (
    <>
      <p className="muted alloc-small" data-testid="history-since">
        {t('allocations.history.since', {
          time: since,
          minutes: Math.round(history.retentionMs / 60_000),
          seconds: Math.round(history.intervalMs / 1000),
        })}
      </p>
      {usedSince !== undefined && (
        <p className="muted alloc-small" data-testid="history-used-before">
          {t('allocations.history.usedBefore', { time: usedSince })}
        </p>
      )}
      <ul className="alloc-history-legend alloc-small">
        {pools.map((pool, index) => (
          <li key={pool}>
            <span
              className="alloc-history-swatch"
              style={{ background: COLOURS[index % COLOURS.length] }}
              aria-hidden="true"
            />
            {pool}
          </li>
        ))}
      </ul>
      <div className="alloc-history">
        {charts.map(({ figure, data }) => (
          <HistoryChart key={figure.title} title={t(figure.title)} pools={pools} data={data} />
        ))}
      </div>
    </>
  );
}
