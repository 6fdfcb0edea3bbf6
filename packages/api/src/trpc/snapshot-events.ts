import { type SnapshotPart, snapshotParts } from '@mgpu/shared';

/**
 * A subscription's snapshot as its events (issue 20): `items` in parts of at most `size` (one
 * event when they fit), each made by `event`. Every part but the last has an id no subscription
 * resumes from, so a reconnect in the middle of a snapshot gets a fresh one; the last carries
 * `id`, up to which the snapshot is complete, so a reconnect after it resumes there.
 */
export function snapshotEvents<T, E>(
  id: string,
  items: readonly T[],
  size: number,
  event: (items: T[], part: SnapshotPart) => E,
): { id: string; event: E }[] {
  return snapshotParts(items, size).map((part) => ({
    id: part.fields.more ? `${id}~part${part.fields.part}` : id,
    event: event(part.items, part.fields),
  }));
}
