import { type KeyboardEvent, type ReactNode, useId, useState } from 'react';

export interface TabItem {
  key: string;
  label: string;
  /** Rendered on first visit and kept mounted (hidden) afterwards, so lazy panes load once. */
  render(): ReactNode;
}

/**
 * WAI-ARIA tabs (arrow keys move between tabs). Hand-written instead of antd Tabs, whose overflow
 * menu and dropdown would add ~15 KB gzip to the form's first bundle.
 */
export function TabStrip({ items, label }: { items: readonly TabItem[]; label: string }) {
  const id = useId();
  const [active, setActive] = useState(items[0]?.key ?? '');
  const [visited, setVisited] = useState<ReadonlySet<string>>(() => new Set([active]));
  const select = (key: string) => {
    setActive(key);
    setVisited((before) => (before.has(key) ? before : new Set(before).add(key)));
  };
  const onKeyDown = (event: KeyboardEvent<HTMLButtonElement>, index: number) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = items[(index + step + items.length) % items.length];
    if (!next) return;
    select(next.key);
    document.getElementById(`${id}-tab-${next.key}`)?.focus();
  };
  return (
    <div className="tab-strip">
      <div role="tablist" aria-label={label} className="tab-list">
        {items.map((item, index) => (
          <button
            key={item.key}
            type="button"
            role="tab"
            id={`${id}-tab-${item.key}`}
            aria-selected={item.key === active}
            aria-controls={`${id}-panel-${item.key}`}
            tabIndex={item.key === active ? 0 : -1}
            className={item.key === active ? 'tab tab-active' : 'tab'}
            onClick={() => select(item.key)}
            onKeyDown={(event) => onKeyDown(event, index)}
          >
            {item.label}
          </button>
        ))}
      </div>
      {items.map((item) =>
        visited.has(item.key) ? (
          <div
            key={item.key}
            role="tabpanel"
            id={`${id}-panel-${item.key}`}
            aria-labelledby={`${id}-tab-${item.key}`}
            hidden={item.key !== active}
            className="tab-panel"
          >
            {item.render()}
          </div>
        ) : null,
      )}
    </div>
  );
}
