import { memo } from 'react';
import { formatNumber } from '../../i18n/format.js';
import { UTILISATION_BUCKETS, type UtilisationBuckets } from './allocation-model.js';
import { useDashboardI18n } from './i18n/dashboard-i18n.js';

const WIDTH = 360;
const HEIGHT = 150;
const AXIS = 20;

/**
 * How full the cards are: mGPU cards per usage bucket, compute and memory side by side. An
 * operator sees at a glance whether the cluster is fragmented (many partly used cards) or full.
 * Plain SVG; the same numbers are in the table below it for screen readers.
 */
export const UtilisationChart = memo(function UtilisationChart({
  buckets,
}: {
  buckets: UtilisationBuckets;
}) {
  const { t, lang } = useDashboardI18n();
  const max = Math.max(1, ...buckets.compute, ...buckets.memory);
  const slot = WIDTH / UTILISATION_BUCKETS.length;
  const barWidth = slot / 2 - 4;
  const height = (value: number) => ((HEIGHT - AXIS - 14) * value) / max;
  return (
    <figure className="alloc-chart">
      <figcaption>{t('allocations.chart.title')}</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby="alloc-chart-desc">
        <desc id="alloc-chart-desc">{t('allocations.chart.desc')}</desc>
        {UTILISATION_BUCKETS.map((bucket, index) => {
          const compute = buckets.compute[index] ?? 0;
          const memory = buckets.memory[index] ?? 0;
          const x = index * slot + 4;
          return (
            <g key={bucket}>
              <rect
                className="chart-compute"
                x={x}
                y={HEIGHT - AXIS - height(compute)}
                width={barWidth}
                height={height(compute)}
              />
              <rect
                className="chart-memory"
                x={x + barWidth + 2}
                y={HEIGHT - AXIS - height(memory)}
                width={barWidth}
                height={height(memory)}
              />
              <text x={x + barWidth} y={HEIGHT - 6} textAnchor="middle" className="chart-axis">
                {`${bucket}%`}
              </text>
            </g>
          );
        })}
      </svg>
      <div className="alloc-legend">
        <span className="legend-compute">{t('allocations.chart.compute')}</span>
        <span className="legend-memory">{t('allocations.chart.memory')}</span>
      </div>
      <table className="visually-hidden">
        <caption>{t('allocations.chart.title')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('allocations.chart.bucket')}</th>
            <th scope="col">{t('allocations.chart.compute')}</th>
            <th scope="col">{t('allocations.chart.memory')}</th>
          </tr>
        </thead>
        <tbody>
          {UTILISATION_BUCKETS.map((bucket, index) => (
            <tr key={bucket}>
              <th scope="row">{`${bucket}%`}</th>
              <td>{formatNumber(lang, buckets.compute[index] ?? 0)}</td>
              <td>{formatNumber(lang, buckets.memory[index] ?? 0)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </figure>
  );
});
