import type { ReactNode } from 'react';

/**
 * One panel of the dashboard: a section named by its heading (screen readers list it by that
 * name), the heading's look shared. The detail panels (a node, an instance) have a head of
 * their own, with focus and a close link.
 */
export function AllocPanel({
  id,
  title,
  testId,
  children,
}: {
  /** The heading's id: `aria-labelledby` points at it. */
  id: string;
  title: ReactNode;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <section className="alloc-panel" aria-labelledby={id} data-testid={testId}>
      <h2 id={id} className="section-title">
        {title}
      </h2>
      {children}
    </section>
  );
}
