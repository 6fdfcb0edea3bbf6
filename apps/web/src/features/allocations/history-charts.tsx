import type { ClusterHistory, Lang, PoolSample, PoolUsedBefore } from '@mgpu/shared';
import { memo, useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './history-charts.css';
import { ScrollRegion } from '../../components/scroll-region.js';
import { formatDate, formatDateTime, formatNumber, formatTime } from '../../i18n/format.js';
import { poolLine, valueRange } from './history-scales.js';
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

/** A figure in the UI language; an unknown one (a gap in the line) as a dash. */
const figureText = (lang: Lang, value: number | null | undefined): string =>
  value === null || value === undefined ? '—' : formatNumber(lang, value);

/**
 * The chart's text alternative: the same figures as a table, a row per sample. Built only while
 * open: an hour of samples for every pool is thousands of cells, refreshed every 10 s.
 */
function FiguresTable({
  title,
  pools,
  data,
}: {
  title: string;
  pools: readonly string[];
  data: uPlot.AlignedData;
}) {
  const { t, lang } = useDashboardI18n();
  const [open, setOpen] = useState(false);
  const [times, ...columns] = data;
  return (
    <details
      className="alloc-history-table"
      onToggle={(event) => setOpen(event.currentTarget.open)}
    >
      <summary>{t('allocations.history.asTable')}</summary>
      {open && (
        <ScrollRegion className="alloc-history-table-scroll" label={title}>
          <table>
            <caption className="visually-hidden">{title}</caption>
            <thead>
              <tr>
                <th scope="col">{t('allocations.history.time')}</th>
                {pools.map((pool) => (
                  <th key={pool} scope="col">
                    {pool}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {Array.from(times, (seconds, row) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: rows are the samples in time order; a point from before the start may share its second with the first sample.
                <tr key={row}>
                  <th scope="row">{formatDateTime(lang, seconds * 1000, true)}</th>
                  {pools.map((pool, column) => (
                    <td key={pool}>{figureText(lang, columns[column]?.[row])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      )}
    </details>
  );
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
  const { lang } = useDashboardI18n();
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const poolKey = pools.join('\n');

  // A new plot when the pools or the language change (its series and axes are fixed at creation);
  // otherwise new data only.
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
          y: { range: (_, min, max) => valueRange(min, max) },
        },
        series: [
          {},
          ...poolKey.split('\n').map((pool, index) => ({
            label: pool,
            stroke: poolLine(index).colour,
            dash: [...poolLine(index).dash],
            width: 2,
            value: (_: uPlot, value: number | null) => figureText(lang, value),
          })),
        ],
        axes: [
          {
            // Room for "6:00:30 AM" between ticks: uPlot's default spacing overlaps them on a phone.
            space: 90,
            // Ticks in the UI language: whole days as dates, seconds only below a minute apart.
            values: (_, ticks, _axis, _space, increment) =>
              ticks.map((seconds) =>
                increment >= 86_400
                  ? formatDate(lang, seconds * 1000)
                  : formatTime(lang, seconds * 1000, increment < 60),
              ),
          },
          { size: 48, values: (_, ticks) => ticks.map((value) => formatNumber(lang, value)) },
        ],
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
  }, [poolKey, lang]);
  useEffect(() => {
    plot.current?.setData(data);
  }, [data]);

  return (
    <figure className="alloc-history-chart" aria-label={title}>
      <figcaption className="alloc-small">{title}</figcaption>
      {/* The drawing repeats the table below for the eye; a screen reader reads the table. */}
      <div ref={box} aria-hidden="true" />
      <FiguresTable title={title} pools={pools} data={data} />
    </figure>
  );
});

/** A pool's line as the charts draw it, beside its name in the legend. */
function PoolLineSample({ index }: { index: number }) {
  const line = poolLine(index);
  return (
    <svg className="alloc-history-line" viewBox="0 0 24 10" aria-hidden="true">
      <line
        x1="0"
        y1="5"
        x2="24"
        y2="5"
        stroke={line.colour}
        strokeWidth="2.5"
        strokeDasharray={line.dash.join(' ') || undefined}
      />
    </svg>
  );
}

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
  const since = formatDateTime(lang, history.samples[0]?.at ?? history.startedAt);
  const firstUsed = history.usedBefore?.[0]?.at;
  // "Reaches back" only when it does by at least a sample's interval: a point in the start's own
  // second is no time before the console started.
  const usedSince =
    firstUsed === undefined ||
    Date.parse(firstUsed) > Date.parse(history.startedAt) - history.intervalMs
      ? undefined
      : formatDateTime(lang, firstUsed);
  return (
    <>
      <p className="muted alloc-small" data-testid="history-since">
        {/* From Prometheus or kept in the cluster by the leader (issue 30), or only in this
            console's memory. */}
        {t(
          history.source === 'prometheus'
            ? 'allocations.history.fromPrometheus'
            : history.sampledBy === undefined
              ? 'allocations.history.since'
              : 'allocations.history.sinceKept',
          {
            time: since,
            minutes: Math.round(history.retentionMs / 60_000),
            seconds: Math.round(history.intervalMs / 1000),
            replica: history.sampledBy ?? '',
          },
        )}
      </p>
      {usedSince !== undefined && (
        <p className="muted alloc-small" data-testid="history-used-before">
          {t('allocations.history.usedBefore', { time: usedSince })}
        </p>
      )}
      <ul className="alloc-history-legend alloc-small" aria-label={t('allocations.history.legend')}>
        {pools.map((pool, index) => (
          <li key={pool}>
            <PoolLineSample index={index} />
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
