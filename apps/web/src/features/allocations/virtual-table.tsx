import { type ReactNode, type UIEvent, useCallback, useState } from 'react';
import { flushSync } from 'react-dom';

/** Up to this many rows every row is in the page (find-in-page works); beyond it, only the visible ones. */
const RENDER_ALL_BELOW = 100;
/**
 * Rows drawn beyond each edge of the box. A scroll re-renders before the frame paints (see
 * `onScroll`), so these cover only the sticky header's height (rows are counted from the top of
 * the table) and a fast wheel; every extra row is one more for React to compare on each frame.
 */
const OVERSCAN = 4;

/**
 * A long table (a thousand nodes, thousands of instances) in a scroll box of bounded height:
 * only rows in view are drawn, with one spacer row above and below standing for the rest, so a
 * frame costs the same at any cluster size. Rows have one fixed height, so the rows in view
 * follow from the scroll offset alone: nothing is measured, and a list that changes every frame
 * costs nothing beyond the rows drawn. It stays a real `<table>`: screen readers get the whole
 * count from `aria-rowcount` and each row's place from `aria-rowindex` (header = 1).
 */
export function VirtualTable<T>({
  caption,
  columns,
  header,
  items,
  rowHeight,
  maxRows,
  renderRow,
  className,
  testId,
}: {
  caption: string;
  /** Column widths for `table-layout: fixed` (CSS lengths). */
  columns: readonly string[];
  header: ReactNode;
  items: readonly T[];
  /** Every row's height in px (rows set it themselves). */
  rowHeight: number;
  maxRows: number;
  /** One row, with its own `key`. */
  renderRow(item: T, ariaRowIndex: number): ReactNode;
  className: string;
  testId: string;
}) {
  /** The first row at the top of the box, in whole rows. */
  const [topRow, setTopRow] = useState(0);
  const onScroll = useCallback(
    (event: UIEvent<HTMLDivElement>) => {
      const next = Math.floor(event.currentTarget.scrollTop / rowHeight);
      // Drawn before this frame paints, as a scroll box of static rows would be: no blank rows.
      flushSync(() => setTopRow(next));
    },
    [rowHeight],
  );
  const renderAll = items.length <= RENDER_ALL_BELOW;
  // A list that shrank under the box (a filter, deletes) shows its end until the browser's own
  // scroll event brings the offset back into range.
  const top = Math.min(topRow, Math.max(0, items.length - maxRows));
  const start = renderAll ? 0 : Math.max(0, top - OVERSCAN);
  const end = renderAll ? items.length : Math.min(items.length, top + maxRows + 1 + OVERSCAN);
  const spacer = (rows: number, key: string) =>
    rows > 0 ? (
      <tr key={key} className="alloc-spacer">
        <td colSpan={columns.length} style={{ height: rows * rowHeight }} />
      </tr>
    ) : null;
  const boxHeight = rowHeight * (maxRows + 1);
  // More rows than the box shows: the box is as high as it gets, whatever the rows do.
  const full = items.length > maxRows;
  const rows: ReactNode[] = [];
  for (let index = start; index < end; index++) {
    const item = items[index];
    if (item !== undefined) rows.push(renderRow(item, index + 2));
  }
  return (
    <div
      className={full ? 'alloc-virtual alloc-virtual-full' : 'alloc-virtual'}
      style={full ? { height: boxHeight } : { maxHeight: boxHeight }}
      data-testid={testId}
      onScroll={onScroll}
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
          {spacer(start, 'before')}
          {rows}
          {spacer(items.length - end, 'after')}
        </tbody>
      </table>
    </div>
  );
}
