import { memo, useId } from 'react';
import { NativeSelect } from '../../components/native-select.js';
import { TextInput } from '../../components/text-input.js';
import type { FilterOptions } from './allocation-model.js';
import { type DashboardState, nodeSuggestions } from './dashboard-filters.js';
import { useDashboardI18n } from './i18n/dashboard-i18n.js';

/** Model, policy, node, namespace and workload filters plus the search box; all live in the URL. */
export const FilterBar = memo(function FilterBar({
  state,
  options,
  onChange,
}: {
  state: DashboardState;
  options: FilterOptions;
  onChange(change: Partial<DashboardState>): void;
}) {
  const { t } = useDashboardI18n();
  const id = useId();
  const any = t('allocations.filter.any');
  const choices = (values: string[], current: string) => [
    { value: '', label: any },
    // A value from a deep link that the cluster does not have (yet) stays selectable.
    ...(current && !values.includes(current) ? [current] : []).map((value) => ({
      value,
      label: value,
    })),
    ...values.map((value) => ({ value, label: value })),
  ];
  const select = (key: 'model' | 'policy' | 'namespace' | 'workload', values: string[]) => (
    <div className="alloc-filter">
      <label className="field-label" htmlFor={`${id}-${key}`}>
        {t(`allocations.filter.${key}`)}
      </label>
      <NativeSelect
        id={`${id}-${key}`}
        value={state[key]}
        options={choices(values, state[key])}
        onValueChange={(value) => onChange({ [key]: value, instance: '' })}
      />
    </div>
  );
  const hasFilter = Boolean(
    state.model || state.policy || state.node || state.namespace || state.workload || state.search,
  );
  return (
    <search className="alloc-filters" aria-label={t('allocations.filter.title')}>
      {select('model', options.models)}
      {select('policy', options.policies)}
      <div className="alloc-filter">
        <label className="field-label" htmlFor={`${id}-node`}>
          {t('allocations.filter.node')}
        </label>
        <TextInput
          id={`${id}-node`}
          value={state.node}
          list={`${id}-nodes`}
          placeholder={any}
          onValueChange={(value) => onChange({ node: value })}
        />
        <datalist id={`${id}-nodes`}>
          {nodeSuggestions(options.nodes, state.node).map((node) => (
            <option key={node} value={node} />
          ))}
        </datalist>
      </div>
      {select('namespace', options.namespaces)}
      {select('workload', options.workloads)}
      <div className="alloc-filter alloc-search">
        <label className="field-label" htmlFor={`${id}-search`}>
          {t('allocations.filter.search')}
        </label>
        <TextInput
          id={`${id}-search`}
          type="search"
          value={state.search}
          placeholder={t('allocations.filter.searchHint')}
          onValueChange={(value) => onChange({ search: value })}
        />
      </div>
      {hasFilter ? (
        <button
          type="button"
          className="alloc-clear"
          onClick={() =>
            onChange({
              model: '',
              policy: '',
              node: '',
              namespace: '',
              workload: '',
              search: '',
              instance: '',
            })
          }
        >
          {t('allocations.filter.clear')}
        </button>
      ) : null}
    </search>
  );
});
