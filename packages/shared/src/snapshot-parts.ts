import { z } from 'zod';

/**
 * The fields that let a subscription's snapshot come in parts (issue 20: at 10,000 nodes one
 * `allocations.watch` snapshot is tens of MiB, too much for one server-sent event). `part` counts
 * the parts from 0 and every part but the last has `more: true`; the subscriber replaces what it
 * had only once the last part is in, with the items of every part. Only the last part's event id
 * is resumable, so a reconnect in the middle of a snapshot brings a fresh one. A snapshot small
 * enough for one event has neither field, as before.
 */
export const SnapshotPartSchema = z.object({
  part: z.number().int().nonnegative().optional(),
  more: z.boolean().optional(),
});
export type SnapshotPart = z.infer<typeof SnapshotPartSchema>;

/** Items per part: ~2,000 allocation records are ~1.7 MiB of JSON. */
export const SNAPSHOT_PART_SIZE = 2000;

/** `items` cut into parts of at most `size` (one part, without the part fields, when they fit). */
export function snapshotParts<T>(
  items: readonly T[],
  size = SNAPSHOT_PART_SIZE,
): { fields: SnapshotPart; items: T[] }[] {
  if (items.length <= size) return [{ fields: {}, items: [...items] }];
  const parts: { fields: SnapshotPart; items: T[] }[] = [];
  for (let start = 0, part = 0; start < items.length; start += size, part++) {
    const more = start + size < items.length;
    parts.push({
      fields: more ? { part, more: true } : { part },
      items: items.slice(start, start + size),
    });
  }
  return parts;
}

/**
 * The subscriber's side: collects a snapshot's parts and hands over the whole snapshot when its
 * last part arrives. Parts of one snapshot come one after another on one connection; a part 0
 * starts over, so a snapshot cut off by a reconnect is dropped for the fresh one that follows.
 */
export class SnapshotAssembly<T> {
  private parts: (readonly T[])[] | undefined;
  private next = 0;

  /** Whether `event` begins a snapshot (one in one event, or the first part of one). */
  static begins(event: SnapshotPart): boolean {
    return event.part === undefined || event.part === 0;
  }

  /** Whether parts of a snapshot have arrived and its last has not. */
  get assembling(): boolean {
    return this.parts !== undefined;
  }

  /** The whole snapshot when `items` completes one, else undefined (more parts to come). */
  add(event: SnapshotPart, items: readonly T[]): readonly T[] | undefined {
    if (SnapshotAssembly.begins(event)) this.parts = [];
    else if (this.parts === undefined || event.part !== this.next) {
      // A part without the ones before it: no whole snapshot can be made of it.
      this.parts = undefined;
      return undefined;
    }
    this.parts.push(items);
    this.next = (event.part ?? 0) + 1;
    if (event.more) return undefined;
    const whole = this.parts.length === 1 ? items : this.parts.flat();
    this.parts = undefined;
    return whole;
  }
}
