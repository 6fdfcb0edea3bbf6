import { describe, expect, it } from 'vitest';
import { PersistentMap, SortedList } from './persistent-collections.js';

describe('PersistentMap', () => {
  const many = PersistentMap.from(
    Array.from({ length: 5000 }, (_, index) => [`node-${index}`, index] as const),
  );

  it('makes a new map for an edit and leaves the old one as it was', () => {
    const draft = many.edit();
    draft.set('node-1', -1);
    draft.set('node-new', 1);
    draft.delete('node-2');
    const edited = draft.done();

    expect([many.get('node-1'), many.has('node-new'), many.get('node-2'), many.size]).toEqual([
      1,
      false,
      2,
      5000,
    ]);
    expect([
      edited.get('node-1'),
      edited.get('node-new'),
      edited.has('node-2'),
      edited.size,
    ]).toEqual([-1, 1, false, 5000]);
    expect(edited.get('node-4999')).toBe(4999);
    expect([...edited.keys()]).toHaveLength(5000);
    expect(() => draft.set('node-3', 0)).toThrow();
  });

  it('names exactly the keys an edit added, removed or replaced', () => {
    const draft = many.edit();
    draft.set('node-10', 10); // the same value: not a change
    draft.set('node-11', 0);
    draft.delete('node-12');
    draft.set('node-x', 0);
    expect(draft.done().changedKeys(many).sort()).toEqual(['node-11', 'node-12', 'node-x']);
  });

  it('hands back the same map when an edit changes nothing', () => {
    const draft = many.edit();
    draft.delete('not-there');
    expect(draft.done()).toBe(many);
    expect(many.changedKeys(many)).toEqual([]);
  });
});

describe('SortedList', () => {
  const key = (value: number) => String(value).padStart(5, '0');

  it('keeps items in key order through inserts, replaces and removes, leaving the old list', () => {
    // Past one chunk's worth, so chunks split and empty ones go.
    const values = Array.from({ length: 3000 }, (_, index) => (index * 7919) % 3000);
    let list = SortedList.empty<number>();
    const kept = new Set<number>();
    for (const [step, value] of values.entries()) {
      const draft = list.edit();
      draft.insert(key(value), value);
      kept.add(value);
      if (step % 3 === 0) {
        const gone = values[step >> 1] ?? 0;
        draft.remove(key(gone));
        kept.delete(gone);
      }
      const before = list;
      const beforeItems = step % 500 === 0 ? before.toArray() : undefined;
      list = draft.done();
      if (beforeItems) expect(before.toArray()).toEqual(beforeItems);
    }
    expect(list.toArray()).toEqual([...kept].sort((a, b) => a - b));
    expect(list.size).toBe(kept.size);

    const draft = list.edit();
    const [first] = list.toArray();
    draft.replace(key(first ?? 0), -1);
    draft.replace('99999', 99999);
    const replaced = draft.done();
    expect(replaced.toArray()[0]).toBe(-1);
    expect(replaced.toArray().at(-1)).toBe(99999);
    expect(replaced.filter((value) => value < 0)).toEqual([-1]);
  });

  it('builds from sorted entries and hands back the same list when an edit changes nothing', () => {
    const list = SortedList.fromSorted([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const);
    const draft = list.edit();
    draft.remove('x');
    expect(draft.done()).toBe(list);
    expect(list.toArray()).toEqual([1, 2, 3]);
  });
});
