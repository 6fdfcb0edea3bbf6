import { describe, expect, it } from 'vitest';
import {
  matchesSearch,
  nodeSuggestions,
  readDashboardState,
  writeDashboardState,
} from './dashboard-filters.js';

describe('dashboard state in the URL', () => {
  it('round-trips every filter, the search and the open instance through a deep link', () => {
    const params = writeDashboardState(new URLSearchParams('lang=en'), {
      model: 'NVIDIA-L20',
      policy: 'native-burst-share',
      node: 'l20-nbs-2',
      namespace: 'default',
      workload: 'demo',
      search: 'worker ',
      instance: 'default/demo-1/worker/0',
    });
    expect(params.get('lang')).toBe('en');
    expect(params.get('q')).toBe('worker ');
    expect(readDashboardState(new URLSearchParams(params.toString()))).toEqual({
      model: 'NVIDIA-L20',
      policy: 'native-burst-share',
      node: 'l20-nbs-2',
      namespace: 'default',
      workload: 'demo',
      search: 'worker ',
      instance: 'default/demo-1/worker/0',
    });
  });

  it('drops a parameter that is cleared and leaves the others', () => {
    const params = writeDashboardState(new URLSearchParams('node=a&namespace=b'), { node: '' });
    expect(params.toString()).toBe('namespace=b');
  });

  it('searches every word in any field, ignoring case', () => {
    expect(matchesSearch('Team-A  l20', ['team-a', 'pod-1', 'l20-nbs-0'])).toBe(true);
    expect(matchesSearch('team-a v100', ['team-a', 'pod-1', 'l20-nbs-0'])).toBe(false);
    expect(matchesSearch('  ', ['anything'])).toBe(true);
  });
});

describe('node suggestions', () => {
  const nodes = Array.from({ length: 10_000 }, (_, index) => `l20-nbs-${index}`);

  it('offers the first hundred nodes, then those that contain what is typed, in any case', () => {
    expect(nodeSuggestions(nodes, '')).toEqual(nodes.slice(0, 100));
    expect(nodeSuggestions(nodes, ' NBS-999')).toEqual(['l20-nbs-999', ...nodes.slice(9990)]);
    expect(nodeSuggestions(nodes, 'v100')).toEqual([]);
  });
});
