import { useVirtualizer } from '@tanstack/react-virtual';
import { memo, type ReactNode, useRef } from 'react';

/** Up to this many rows every row is in the page (find-in-page works); beyond it, only the visible ones. */
const RENDER_ALL_BELOW = 100;
/**
 * Rows drawn beyond each edge of the box. The virtualizer re-renders synchronously on scroll, so
 * these cover only the sticky header's height and a fast wheel; every extra row is one more for
 * React to compare on each frame.
 */
const OVERSCAN = 4;

/**
 * A long table (a thousand nodes, thousands of instances) in a scroll box of bounded height:
 * only rows in view are drawn (`@tanstack/react-virtual`), with one spacer row above and below
 * standing for the rest, so a frame costs the same at any cluster size. Rows have one fixed
 * height and the virtualizer keys its measurements by position, not by item: a list whose items
 * change every frame does not make it rebuild them, only a change of length does. It stays a real
 * `<table>`: screen readers get the whole count from `aria-rowcount` and each row's place from
 * `aria-rowindex` (header = 1).
 */
/**
 * The column headings, compared by their text: the lists re-render every frame, and an unchanged
 * header is then skipped instead of compared cell by cell.
 */
const HeaderRow = memo(
  function HeaderRow({ headings }: { headings: readonly string[] }) {
    return (
      <tr aria-rowindex={1}>
        {headings.map((heading) => (
          <th key={heading} scope="col">
            {heading}
          </th>
        ))}
      </tr>
    );
  },
  (before, after) =>
    before.headings.length === after.headings.length &&
    before.headings.every((heading, index) => heading === after.headings[index]),
);

export function VirtualTable<T>({
  caption,
  regionLabel,
  columns,
  headings,
  items,
  rowHeight,
  maxRows,
  renderRow,
  className,
  testId,
}: {
  caption: string;
  /** The scroll box's name, other than the section's heading (landmarks' names are unique). */
  regionLabel: string;
  /** Column widths for `table-layout: fixed` (CSS lengths). */
  columns: readonly string[];
  /** One per column, in the operator's language. */
  headings: readonly string[];
  items: readonly T[];
  /** Every row's height in px (rows set it themselves). */
  rowHeight: number;
  maxRows: number;
  /** One row, with its own `key`. */
  renderRow(item: T, ariaRowIndex: number): ReactNode;
  className: string;
  testId: string;
}) {
  const scrollRef = useRef<HTMLElement>(null);
  const renderAll = items.length <= RENDER_ALL_BELOW;
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: renderAll ? RENDER_ALL_BELOW : OVERSCAN,
  });
  const virtualRows = virtualizer.getVirtualItems();
  const start = virtualRows[0]?.index ?? 0;
  const end = (virtualRows[virtualRows.length - 1]?.index ?? -1) + 1;
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
  for (const row of virtualRows) {
    const item = items[row.index];
    if (item !== undefined) rows.push(renderRow(item, row.index + 2));
  }
  return (
    // A named region in the tab order: the box scrolls (down, and sideways on a narrow screen),
    // so a keyboard must reach it even when no row holds a link (axe scrollable-region-focusable).
    <section
      ref={scrollRef}
      aria-label={regionLabel}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box is read by keyboard too
      tabIndex={0}
      className={full ? 'alloc-virtual alloc-virtual-full' : 'alloc-virtual'}
      style={full ? { height: boxHeight } : { maxHeight: boxHeight }}
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
          <HeaderRow headings={headings} />
        </thead>
        <tbody>
          {spacer(start, 'before')}
          {rows}
          {spacer(items.length - end, 'after')}
        </tbody>
      </table>
    </section>
  );
}
