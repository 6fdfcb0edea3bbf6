import type { V1Deployment } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { InformerIndex } from './informer.js';

const deployment = (name: string, request?: string, namespace = 'default'): V1Deployment => ({
  metadata: {
    name,
    namespace,
    ...(request === undefined ? {} : { annotations: { request } }),
  },
});
const names = (objects: V1Deployment[]) => objects.map((object) => object.metadata?.name).sort();

describe('an informer index', () => {
  const byRequest = () =>
    new InformerIndex<V1Deployment>((object) => object.metadata?.annotations?.request);

  it('finds objects by key as events arrive, and leaves out objects without one', () => {
    const index = byRequest();
    index.rebuild([deployment('a', 'r1'), deployment('b'), deployment('c', 'r1', 'other')]);
    expect(names(index.get('r1'))).toEqual(['a', 'c']);
    index.apply({ type: 'upsert', object: deployment('d', 'r2') }, () => []);
    expect(names(index.get('r2'))).toEqual(['d']);
    expect(index.get('missing')).toEqual([]);
  });

  it('moves an object whose key changed and drops a deleted one', () => {
    const index = byRequest();
    index.rebuild([deployment('a', 'r1')]);
    index.apply({ type: 'upsert', object: deployment('a', 'r2') }, () => []);
    expect(index.get('r1')).toEqual([]);
    expect(names(index.get('r2'))).toEqual(['a']);
    index.apply({ type: 'upsert', object: deployment('a') }, () => []);
    expect(index.get('r2')).toEqual([]);
    index.apply({ type: 'upsert', object: deployment('a', 'r3') }, () => []);
    index.apply({ type: 'delete', object: deployment('a', 'r3') }, () => []);
    expect(index.get('r3')).toEqual([]);
  });

  it('rebuilds from the cache on a re-list', () => {
    const index = byRequest();
    index.rebuild([deployment('a', 'r1')]);
    index.apply({ type: 'resync' }, () => [deployment('b', 'r1')]);
    expect(names(index.get('r1'))).toEqual(['b']);
  });
});
