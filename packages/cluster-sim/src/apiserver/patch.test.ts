/** The patch formats on their own, including the directives kubectl apply sends. */
import { describe, expect, it } from 'vitest';
import { applyConfiguration, jsonPatch, mergePatch, strategicMerge } from './patch.js';
import { ApiError } from './status.js';

const podSpec = {
  containers: [
    { name: 'a', image: 'a:1', env: [{ name: 'X', value: '1' }], ports: [{ containerPort: 80 }] },
    { name: 'b', image: 'b:1' },
  ],
  tolerations: [{ key: 'k' }],
};

describe('strategic merge patch', () => {
  it('merges containers and env by name and replaces lists without a merge key', () => {
    const patched = strategicMerge(podSpec, {
      containers: [{ name: 'a', env: [{ name: 'Y', value: '2' }] }],
      tolerations: [{ key: 'other' }],
    });
    expect(patched).toEqual({
      containers: [
        {
          name: 'a',
          image: 'a:1',
          // As strategicpatch orders them: patched items the server lacks come first.
          env: [
            { name: 'Y', value: '2' },
            { name: 'X', value: '1' },
          ],
          ports: [{ containerPort: 80 }],
        },
        { name: 'b', image: 'b:1' },
      ],
      tolerations: [{ key: 'other' }],
    });
  });

  it('honours $patch delete and replace, $setElementOrder, $retainKeys and $deleteFromPrimitiveList', () => {
    expect(
      strategicMerge(podSpec, { containers: [{ name: 'a', $patch: 'delete' }] }),
    ).toMatchObject({
      containers: [{ name: 'b' }],
    });
    expect(
      strategicMerge(podSpec, { containers: [{ name: 'c', image: 'c:1' }, { $patch: 'replace' }] }),
    ).toMatchObject({
      containers: [{ name: 'c', image: 'c:1' }],
    });
    expect(
      strategicMerge(podSpec, { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }] }),
    ).toMatchObject({ containers: [{ name: 'b' }, { name: 'a' }] });
    expect(
      strategicMerge(
        { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } } },
        {
          strategy: { $retainKeys: ['type'], type: 'Recreate' },
        },
      ),
    ).toEqual({ strategy: { type: 'Recreate' } });
    expect(
      strategicMerge(
        { metadata: { finalizers: ['a', 'b'] } },
        { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } },
      ),
    ).toEqual({ metadata: { finalizers: ['b'] } });
    expect(
      strategicMerge(
        { metadata: { labels: { a: '1', b: '2' } } },
        { metadata: { labels: { a: null } } },
      ),
    ).toEqual({
      metadata: { labels: { b: '2' } },
    });
  });

  it('leaves its input untouched', () => {
    const before = JSON.stringify(podSpec);
    strategicMerge(podSpec, { containers: [{ name: 'a', image: 'changed' }] });
    expect(JSON.stringify(podSpec)).toBe(before);
  });

  it('applies a configuration without removing fields it does not mention', () => {
    expect(
      applyConfiguration({ spec: { replicas: 2, paused: true } }, { spec: { replicas: 3 } }),
    ).toEqual({
      spec: { replicas: 3, paused: true },
    });
  });
});

describe('merge patch and JSON patch', () => {
  it('merges maps, deletes with null and replaces lists', () => {
    expect(mergePatch({ a: { b: 1, c: 2 }, l: [1, 2] }, { a: { b: null, d: 3 }, l: [3] })).toEqual({
      a: { c: 2, d: 3 },
      l: [3],
    });
  });

  it('supports add, remove, replace, move, copy and test, and fails as a whole', () => {
    const document = { spec: { list: [1, 2], name: 'x' } };
    expect(
      jsonPatch(document, [
        { op: 'add', path: '/spec/list/-', value: 3 },
        { op: 'add', path: '/spec/list/0', value: 0 },
        { op: 'remove', path: '/spec/list/1' },
        { op: 'copy', from: '/spec/name', path: '/spec/copy' },
        { op: 'move', from: '/spec/name', path: '/spec/moved' },
        { op: 'replace', path: '/spec/copy', value: 'y' },
        { op: 'test', path: '/spec/moved', value: 'x' },
        { op: 'add', path: '/metadata~1odd', value: true },
      ]),
    ).toEqual({ spec: { list: [0, 2, 3], copy: 'y', moved: 'x' }, 'metadata/odd': true });
    expect(document).toEqual({ spec: { list: [1, 2], name: 'x' } });
    expect(() => jsonPatch(document, [{ op: 'replace', path: '/spec/missing', value: 1 }])).toThrow(
      ApiError,
    );
    expect(() => jsonPatch(document, { op: 'add' })).toThrow(ApiError);
  });
});
