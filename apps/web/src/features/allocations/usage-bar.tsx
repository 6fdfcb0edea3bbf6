import { FigureText } from '../../components/figure-text.js';

/**
 * A horizontal bar: `used` of `total`, with an optional stranded part drawn after it. The text
 * beside it says the same in words, so the bar is decoration for screen readers.
 */
export function UsageBar({
  used,
  total,
  stranded = 0,
  label,
}: {
  used: number;
  total: number;
  stranded?: number;
  label: string;
}) {
  const percentOf = (value: number) =>
    total > 0 ? Math.max(0, Math.min(100, (value / total) * 100)) : 0;
  const usedPercent = percentOf(used);
  const strandedPercent = Math.min(100 - usedPercent, percentOf(stranded));
  return (
    <span className="usage">
      <span className="usage-track" aria-hidden="true">
        <span
          className={usedPercent >= 100 ? 'usage-fill usage-full' : 'usage-fill'}
          style={{ width: `${usedPercent}%` }}
        />
        {strandedPercent > 0 ? (
          <span className="usage-stranded" style={{ width: `${strandedPercent}%` }} />
        ) : null}
      </span>
      <span className="usage-text">
        <FigureText>{label}</FigureText>
      </span>
    </span>
  );
}
