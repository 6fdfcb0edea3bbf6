/** Slots a map's entries are spread over: an edit copies the slot list and the slots it touches. */
const WIDTH = 1024;

/** FNV-1a with a final mix, so keys that differ only at the end still spread over the slots. */
const slotOf = (key: string): number => {
  let hash = 0x811c9dc5;
  for (let index = 0; index < key.length; index++)
    hash = Math.imul(hash ^ key.charCodeAt(index), 0x01000193);
  hash ^= hash >>> 15;
  hash = Math.imul(hash, 0x2c1b3c6d);
  hash ^= hash >>> 12;
  return (hash >>> 0) % WIDTH;
};

type Slots<V> = readonly (ReadonlyMap<string, V> | undefined)[];

/** A batch of changes to a `PersistentMap`; `done` hands over the new map. */
export interface PersistentMapDraft<V> {
  get(key: string): V | undefined;
  has(key: string): boolean;
  set(key: string, value: V): void;
  delete(key: string): boolean;
  /** The edited map (the original itself when nothing changed); the draft is spent after. */
  done(): PersistentMap<V>;
}

/**
 * A string-keyed map that is never changed in place: an edit makes a new map that shares every
 * slot it did not touch with the old one. A reducer can then return a new state for each batch
 * of stream events without copying tens of thousands of records, and a reader can tell what a
 * batch changed by comparing only the slots that differ (`changedKeys`).
 */
export class PersistentMap<V> implements Iterable<[string, V]> {
  private static readonly EMPTY = new PersistentMap<never>(Array.from({ length: WIDTH }), 0);

  private constructor(
    private readonly slots: Slots<V>,
    readonly size: number,
  ) {}

  static empty<V>(): PersistentMap<V> {
    return PersistentMap.EMPTY;
  }

  static from<V>(entries: Iterable<readonly [string, V]>): PersistentMap<V> {
    const draft = PersistentMap.empty<V>().edit();
    for (const [key, value] of entries) draft.set(key, value);
    return draft.done();
  }

  get(key: string): V | undefined {
    return this.slots[slotOf(key)]?.get(key);
  }

  has(key: string): boolean {
    return this.slots[slotOf(key)]?.has(key) ?? false;
  }

  *[Symbol.iterator](): IterableIterator<[string, V]> {
    for (const slot of this.slots) if (slot !== undefined) yield* slot;
  }

  *keys(): IterableIterator<string> {
    for (const slot of this.slots) if (slot !== undefined) yield* slot.keys();
  }

  *values(): IterableIterator<V> {
    for (const slot of this.slots) if (slot !== undefined) yield* slot.values();
  }

  /** The keys added, removed or given another value (by identity) since `before`. */
  changedKeys(before: PersistentMap<V>): string[] {
    const changed: string[] = [];
    if (before === this) return changed;
    for (let index = 0; index < WIDTH; index++) {
      const now = this.slots[index];
      const was = before.slots[index];
      if (now === was) continue;
      for (const [key, value] of now ?? [])
        if (!was?.has(key) || was.get(key) !== value) changed.push(key);
      for (const key of was?.keys() ?? []) if (!now?.has(key)) changed.push(key);
    }
    return changed;
  }

  edit(): PersistentMapDraft<V> {
    const base = this;
    let slots: (Map<string, V> | ReadonlyMap<string, V> | undefined)[] | undefined;
    const owned = new Set<number>();
    let size = this.size;
    let spent = false;
    const read = (key: string) => (slots ?? base.slots)[slotOf(key)];
    const writable = (key: string): Map<string, V> => {
      if (spent) throw new Error('a spent PersistentMap draft was written to');
      slots ??= base.slots.slice();
      const index = slotOf(key);
      if (!owned.has(index)) {
        slots[index] = new Map(slots[index]);
        owned.add(index);
      }
      return slots[index] as Map<string, V>;
    };
    return {
      get: (key) => read(key)?.get(key),
      has: (key) => read(key)?.has(key) ?? false,
      set(key, value) {
        const slot = writable(key);
        if (!slot.has(key)) size++;
        slot.set(key, value);
      },
      delete(key) {
        if (!read(key)?.has(key)) return false;
        writable(key).delete(key);
        size--;
        return true;
      },
      done() {
        spent = true;
        return slots === undefined ? base : new PersistentMap(slots, size);
      },
    };
  }
}

/** Items per chunk of a `SortedList`: an edit copies the chunk list and the chunks it touches. */
const CHUNK = 512;

interface Chunk<T> {
  keys: string[];
  items: T[];
}

/** The first index whose key is ≥ `key` (binary search over sorted keys). */
export function lowerBound(keys: readonly string[], key: string): number {
  let low = 0;
  let high = keys.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((keys[middle] ?? '') < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A batch of changes to a `SortedList`; `done` hands over the new list. */
export interface SortedListDraft<T> {
  /** Adds `item` before any item of the same key. */
  insert(key: string, item: T): void;
  /** Puts `item` in place of the first item of its key, or adds it when there is none. */
  replace(key: string, item: T): void;
  /** Takes away the first item of `key`, if any. */
  remove(key: string): void;
  /** The edited list (the original itself when nothing changed); the draft is spent after. */
  done(): SortedList<T>;
}

/**
 * Items kept in order of a string key, never changed in place: an edit copies only the chunk
 * list and the chunks of ≤ 1,024 items it touches, so a batch of changes to a list of 36,000
 * instances does not copy them all.
 */
export class SortedList<T> {
  private static readonly EMPTY = new SortedList<never>([], 0);

  private constructor(
    private readonly chunks: readonly Readonly<Chunk<T>>[],
    readonly size: number,
  ) {}

  static empty<T>(): SortedList<T> {
    return SortedList.EMPTY;
  }

  /** The list of `entries`, which are sorted by key already. */
  static fromSorted<T>(entries: readonly (readonly [string, T])[]): SortedList<T> {
    const chunks: Chunk<T>[] = [];
    for (let start = 0; start < entries.length; start += CHUNK) {
      const part = entries.slice(start, start + CHUNK);
      chunks.push({ keys: part.map(([key]) => key), items: part.map(([, item]) => item) });
    }
    return new SortedList(chunks, entries.length);
  }

  /** Every item in order, as a new array. */
  toArray(): T[] {
    return ([] as T[]).concat(...this.chunks.map((chunk) => chunk.items));
  }

  /** The items `keep` accepts, in order. */
  filter(keep: (item: T) => boolean): T[] {
    const kept: T[] = [];
    for (const chunk of this.chunks)
      for (const item of chunk.items) if (keep(item)) kept.push(item);
    return kept;
  }

  edit(): SortedListDraft<T> {
    const base = this;
    let chunks: Readonly<Chunk<T>>[] | undefined;
    const owned = new Set<Readonly<Chunk<T>>>();
    let size = this.size;
    let spent = false;
    const writableList = (): Readonly<Chunk<T>>[] => {
      if (spent) throw new Error('a spent SortedList draft was written to');
      chunks ??= base.chunks.slice();
      return chunks;
    };
    /** The chunk holding the first index whose key is ≥ `key` (the last chunk if none is). */
    const locate = (key: string) => {
      const list = chunks ?? base.chunks;
      let low = 0;
      let high = list.length - 1;
      while (low < high) {
        const middle = (low + high) >>> 1;
        const keys = list[middle]?.keys ?? [];
        if ((keys[keys.length - 1] ?? '') < key) low = middle + 1;
        else high = middle;
      }
      const chunk = list[low];
      return chunk && { at: low, chunk, index: lowerBound(chunk.keys, key) };
    };
    const writable = (at: number): Chunk<T> => {
      const list = writableList();
      const chunk = list[at] as Readonly<Chunk<T>>;
      if (owned.has(chunk)) return chunk;
      const copy = { keys: chunk.keys.slice(), items: chunk.items.slice() };
      list[at] = copy;
      owned.add(copy);
      return copy;
    };
    const insert = (key: string, item: T) => {
      const found = locate(key);
      size++;
      if (found === undefined) {
        const chunk = { keys: [key], items: [item] };
        writableList().push(chunk);
        owned.add(chunk);
        return;
      }
      const chunk = writable(found.at);
      chunk.keys.splice(found.index, 0, key);
      chunk.items.splice(found.index, 0, item);
      if (chunk.keys.length <= 2 * CHUNK) return;
      const half = chunk.keys.length >>> 1;
      const tail = { keys: chunk.keys.splice(half), items: chunk.items.splice(half) };
      writableList().splice(found.at + 1, 0, tail);
      owned.add(tail);
    };
    return {
      insert,
      replace(key, item) {
        const found = locate(key);
        if (found?.chunk.keys[found.index] !== key) return insert(key, item);
        writable(found.at).items[found.index] = item;
      },
      remove(key) {
        const found = locate(key);
        if (found?.chunk.keys[found.index] !== key) return;
        const chunk = writable(found.at);
        chunk.keys.splice(found.index, 1);
        chunk.items.splice(found.index, 1);
        size--;
        if (chunk.keys.length === 0) writableList().splice(found.at, 1);
      },
      done() {
        spent = true;
        return chunks === undefined ? base : new SortedList(chunks, size);
      },
    };
  }
}
