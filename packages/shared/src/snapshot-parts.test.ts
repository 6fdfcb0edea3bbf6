import { describe, expect, it } from 'vitest';
import { SnapshotAssembly, snapshotParts } from './snapshot-parts.js';

const items = Array.from({ length: 7 }, (_, index) => `record-${index}`);

describe('a snapshot in parts', () => {
  it('is one event when it fits, else parts with more: true on all but the last', () => {
    expect(snapshotParts(items, 7)).toEqual([{ fields: {}, items }]);
    expect(snapshotParts(items, 3)).toEqual([
      { fields: { part: 0, more: true }, items: items.slice(0, 3) },
      { fields: { part: 1, more: true }, items: items.slice(3, 6) },
      { fields: { part: 2 }, items: items.slice(6) },
    ]);
    expect(snapshotParts([], 3)).toEqual([{ fields: {}, items: [] }]);
  });

  it('is handed over whole when its last part arrives, and nothing before', () => {
    const assembly = new SnapshotAssembly<string>();
    const [first, second, last] = snapshotParts(items, 3);
    if (!first || !second || !last) throw new Error('three parts expected');
    expect(assembly.add(first.fields, first.items)).toBeUndefined();
    expect(assembly.add(second.fields, second.items)).toBeUndefined();
    expect(assembly.assembling).toBe(true);
    expect(assembly.add(last.fields, last.items)).toEqual(items);
    expect(assembly.assembling).toBe(false);
    // A snapshot in one event is whole at once.
    expect(assembly.add({}, ['only'])).toEqual(['only']);
  });

  it('drops a snapshot cut off by a reconnect for the fresh one that follows', () => {
    const assembly = new SnapshotAssembly<string>();
    const [first, second] = snapshotParts(items, 3);
    if (!first || !second) throw new Error('parts expected');
    assembly.add(first.fields, first.items);
    // The connection dropped after part 0; the fresh snapshot has other records.
    const fresh = ['record-0', 'record-9', 'record-10', 'record-11'];
    const [again, end] = snapshotParts(fresh, 3);
    if (!again || !end) throw new Error('parts expected');
    expect(assembly.add(again.fields, again.items)).toBeUndefined();
    expect(assembly.add(end.fields, end.items)).toEqual(fresh);
    // A part without its beginning makes no snapshot.
    expect(assembly.add(second.fields, second.items)).toBeUndefined();
    expect(assembly.assembling).toBe(false);
  });
});
