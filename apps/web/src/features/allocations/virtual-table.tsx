import { useVirtualizer } from '@tanstack/react-virtual';
import { type ReactNode, useRef } from 'react';

/** Up to this many rows every row is in the page (find-in-page works); beyond it, only the visible ones. */
const RENDER_ALL_BELOW = 100;

/**
 * A long table (a thousand nodes, thousands of instances) in a scroll box of bounded height:
 * only rows in view are drawn, with one spacer row above and below standing for the rest, so a
 * frame costs the same at any cluster size. It stays a real `<table>`: screen readers get the
 * whole count from `aria-rowcount` and each row's place from `aria-rowindex` (header = 1).
 */
export function VirtualTable<T>({
  caption,
  columns,
  header,
  items,
  rowHeight,
  maxRows,
  getKey,
  renderRow,
  className,
  testId,
}: {
  caption: string;
  /** Column widths for `table-layout: fixed` (CSS lengths). */
  columns: readonly string[];
  header: ReactNode;
  items: readonly T[];
  rowHeight: number;
  maxRows: number;
  getKey(item: T): string;
  renderRow(item: T, ariaRowIndex: number): ReactNode;
  className: string;
  testId: string;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    getItemKey: (index) => {
      const item = items[index];
      return item === undefined ? index : getKey(item);
    },
    overscan: items.length <= RENDER_ALL_BELOW ? RENDER_ALL_BELOW : 8,
  });
  const rows = virtualizer.getVirtualItems();
  const before = rows[0]?.start ?? 0;
  const after = virtualizer.getTotalSize() - (rows[rows.length - 1]?.end ?? 0);
  const spacer = (height: number, key: string) =>
    height > 0 ? (
      <tr key={key} className="alloc-spacer">
        <td colSpan={columns.length} style={{ height }} />
      </tr>
    ) : null;
  return (
    <div
      ref={scrollRef}
      className="alloc-virtual"
      style={{ maxHeight: rowHeight * (maxRows + 1) }}
      data-testid={testId}
    >
      <table className={`alloc-table alloc-vtable ${className}`} aria-rowcount={items.length + 1}>
        <caption className="visually-hidden">{caption}</caption>
        <colgroup>
          {columns.map((width, index) => (
            // Columns have no identity beyond their place.
            // biome-ignore lint/suspicious/noArrayIndexKey: fixed column list
            <col key={index} style={{ width }} />
          ))}
        </colgroup>
        <thead>
          <tr aria-rowindex={1}>{header}</tr>
        </thead>
        <tbody>
          {spacer(before, 'before')}
          {rows.map((row) => {
            const item = items[row.index];
            return item === undefined ? null : renderRow(item, row.index + 2);
          })}
          {spacer(after, 'after')}
        </tbody>
      </table>
    </div>
  );
}
