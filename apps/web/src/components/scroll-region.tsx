import type { ReactNode } from 'react';

interface ScrollRegionProps {
  /** The region's name, read by screen readers (a table's or a listing's title). */
  label?: string | undefined;
  /** Or the id of the heading that names it. */
  labelledBy?: string | undefined;
  className?: string | undefined;
  children: ReactNode;
}

/**
 * A box that scrolls sideways when its content (a wide table, a long YAML line) is wider than the
 * screen, so the page itself never does. It is a named region in the tab order: a keyboard can
 * reach it and scroll it with the arrow keys (WCAG 2.1.1; axe's scrollable-region-focusable).
 */
export function ScrollRegion({ label, labelledBy, className, children }: ScrollRegionProps) {
  return (
    <section
      className={className ? `scroll-region ${className}` : 'scroll-region'}
      aria-label={label}
      aria-labelledby={labelledBy}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box is read by keyboard too
      tabIndex={0}
    >
      {children}
    </section>
  );
}
