import type { WorkloadSummary } from '@mgpu/shared';
import type { ReactNode } from 'react';

/** One thing the list says of a workload: a column of the table, a line of a card. */
export interface WorkloadField {
  key: string;
  title: string;
  render(item: WorkloadSummary): ReactNode;
}

interface WorkloadCardsProps {
  items: readonly WorkloadSummary[];
  /** The list's name, read by screen readers. */
  label: string;
  /** The card's heading: the workload's name, a link to its result page. */
  heading(item: WorkloadSummary): ReactNode;
  /** The table's columns but the name and the actions, in the table's order. */
  fields: readonly WorkloadField[];
  /** Edit, scale and delete, under the figures. */
  actions(item: WorkloadSummary): ReactNode;
  rowKey(item: WorkloadSummary): string;
  loading: boolean;
  loadingText: string;
  emptyText: string;
}

/**
 * `/workloads` on a phone: each workload a card, its name as the heading and the table's columns
 * as labelled lines, so nothing is cut off and the page never scrolls sideways.
 */
export function WorkloadCards({
  items,
  label,
  heading,
  fields,
  actions,
  rowKey,
  loading,
  loadingText,
  emptyText,
}: WorkloadCardsProps) {
  if (items.length === 0)
    return <p className="muted workload-cards-empty">{loading ? loadingText : emptyText}</p>;
  return (
    <ul className="workload-cards" aria-label={label}>
      {items.map((item) => (
        <li key={rowKey(item)} className="workload-card">
          <h2 className="workload-card-title">{heading(item)}</h2>
          <dl className="workload-card-fields">
            {fields.map((field) => (
              <div key={field.key} className="workload-card-field">
                <dt>{field.title}</dt>
                <dd>{field.render(item)}</dd>
              </div>
            ))}
          </dl>
          <div className="workload-card-actions">{actions(item)}</div>
        </li>
      ))}
    </ul>
  );
}
