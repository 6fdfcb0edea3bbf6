import { type KeyboardEvent, type ReactNode, useId, useState } from 'react';

export interface TabItem {
  key: string;
  label: string;
  /** Rendered only while its tab is selected: a hidden YAML pane would re-serialise on every keystroke. */
  render(): ReactNode;
}

/**
 * WAI-ARIA tabs (arrow keys move between tabs). Hand-written instead of antd Tabs, whose overflow
 * menu and dropdown would add ~15 KB gzip to the form's first bundle.
 */
export function TabStrip({ items, label }: { items: readonly TabItem[]; label: string }) {
  const id = useId();
  const [active, setActive] = useState(items[0]?.key ?? '');
  const select = setActive;
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
            aria-controls={item.key === active ? `${id}-panel-${item.key}` : undefined}
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
        item.key === active ? (
          <div
            key={item.key}
            role="tabpanel"
            id={`${id}-panel-${item.key}`}
            aria-labelledby={`${id}-tab-${item.key}`}
            className="tab-panel"
          >
            {item.render()}
          </div>
        ) : null,
      )}
    </div>
  );
}
