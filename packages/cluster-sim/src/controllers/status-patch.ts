import { isNotFound } from '@mgpu/kube-client';

/** The scalar status fields a controller owns, as its reconcile computed them. */
export type OwnedStatus = Readonly<Record<string, number | string>>;

export interface StatusPatch<Status extends OwnedStatus> {
  /** The object's status as the informer has it (undefined before the first write). */
  current: Readonly<Partial<Record<keyof Status, unknown>>> | undefined;
  /** Compared field by field with `current`, where an absent field reads as 0. */
  desired: Status;
  /** More of the status written beside `desired` but not compared (conditions, times). */
  extra?: Readonly<Record<string, unknown>>;
  /** What the field comparison cannot see has changed (a condition added, a first write). */
  changed?: boolean;
  /** Sends the merge patch of `{ status }` to the object's status subresource. */
  write: (body: { status: Record<string, unknown> }) => Promise<unknown>;
}

/**
 * Status writes once, in the shape of sample-controller's `updateFooStatus`: every controller
 * patches its object's status through here, and only when it changed, so a level-triggered
 * resync costs no write and wakes no watcher. An object deleted meanwhile is no error: its
 * delete event ends the key.
 */
export async function patchStatusIfChanged<Status extends OwnedStatus>(
  patch: StatusPatch<Status>,
): Promise<void> {
  const { current, desired } = patch;
  const changed =
    patch.changed === true ||
    Object.keys(desired).some((field) => (current?.[field] ?? 0) !== desired[field]);
  if (!changed) return;
  try {
    await patch.write({ status: { ...desired, ...patch.extra } });
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
}
