/**
 * Reading the store at a resourceVersion, through the object store's bounded event window (as
 * a kube-apiserver reads etcd's history): a watch replays the events after the version it was
 * given, a continue token or `resourceVersionMatch=Exact` lists the objects as they were then,
 * and a version the window no longer reaches is 410 Expired. BOOKMARKs and timeouts are the
 * serving side's (`../watch.ts`).
 */
import { isRecord, type KubeObject } from '../kube-object.js';
import type { ObjectStore, StoredEvent } from '../object-store.js';
import type { ResourceDefinition } from '../resource-table.js';
import { ApiError, badRequest } from '../status.js';
import { objectFilter } from './object-filter.js';
import type { ListOptions, WatchEvent, WatchOptions, WatchStart } from './options.js';

interface ContinueToken {
  resourceVersion: number;
  start: string;
}

/** A kube-apiserver's continue token: the snapshot's version and the last key listed. */
export function encodeContinue(token: ContinueToken): string {
  return Buffer.from(
    JSON.stringify({ v: 'meta.k8s.io/v1', rv: token.resourceVersion, start: token.start }),
  ).toString('base64url');
}

function decodeContinue(encoded: string): ContinueToken {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8'));
    if (isRecord(decoded) && typeof decoded.rv === 'number' && typeof decoded.start === 'string') {
      return { resourceVersion: decoded.rv, start: decoded.start };
    }
  } catch {
    // falls through to the BadRequest below
  }
  throw badRequest(
    'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
}

/** The objects one page of a list reads, by key, and the keys it starts after. */
export interface ListSnapshot {
  objects: Map<string, KubeObject>;
  resourceVersion: number;
  /** Keys up to this one were on earlier pages ('' for the first page). */
  start: string;
}

export class WatchWindow {
  constructor(private readonly store: ObjectStore) {}

  /** The current objects, or those of a continue token's or an Exact resourceVersion's snapshot. */
  listSnapshot(definition: ResourceDefinition, options: ListOptions): ListSnapshot {
    let snapshotVersion = this.store.resourceVersion;
    let start = '';
    let objects: Map<string, KubeObject> | undefined = this.store.state(definition).objects;
    if (options.continueToken) {
      const token = decodeContinue(options.continueToken);
      snapshotVersion = token.resourceVersion;
      start = token.start;
      objects = this.store.objectsAt(definition, snapshotVersion);
      if (!objects) {
        throw new ApiError(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue value from the response.',
        );
      }
    } else if (options.resourceVersionMatch === 'Exact' && options.resourceVersion) {
      snapshotVersion = Number(options.resourceVersion);
      if (!Number.isInteger(snapshotVersion))
        throw badRequest(`invalid resource version "${options.resourceVersion}"`);
      objects = this.store.objectsAt(definition, snapshotVersion);
      if (!objects)
        throw new ApiError(410, 'Expired', `too old resource version: ${options.resourceVersion}`);
    }
    return { objects, resourceVersion: snapshotVersion, start };
  }

  /**
   * Starts a watch: replays the events after `resourceVersion` (or the current objects as
   * ADDED when none is given, or "0"), then streams. A version older than the event window
   * answers with the 410 Expired Status a real server sends as an ERROR event.
   */
  watch(
    definition: ResourceDefinition,
    namespace: string | undefined,
    options: WatchOptions,
    send: (event: WatchEvent) => void,
  ): WatchStart {
    const matches = objectFilter(
      definition,
      namespace,
      options.labelSelector,
      options.fieldSelector,
    );
    const state = this.store.state(definition);
    const requested = options.resourceVersion;
    const fromVersion =
      requested === undefined || requested === '' || requested === '0'
        ? undefined
        : Number(requested);
    if (fromVersion !== undefined && !Number.isInteger(fromVersion)) {
      throw badRequest(`invalid resource version "${requested ?? ''}"`);
    }
    if (fromVersion !== undefined && fromVersion < state.compactedResourceVersion) {
      return {
        expired: new ApiError(
          410,
          'Expired',
          `too old resource version: ${fromVersion} (${state.compactedResourceVersion})`,
        ).toStatus(),
      };
    }
    // An object that stops matching (a label changed) leaves the watcher's view as DELETED, one
    // that starts matching enters it as ADDED: the watch cache's filtering, as upstream.
    const deliver = (event: StoredEvent): void => {
      const nowMatches = matches(event.object);
      if (event.type === 'ADDED') {
        if (nowMatches) send({ type: 'ADDED', object: event.object });
        return;
      }
      if (event.type === 'DELETED') {
        if (nowMatches || (event.previous !== undefined && matches(event.previous))) {
          send({ type: 'DELETED', object: event.object });
        }
        return;
      }
      const matchedBefore = event.previous !== undefined && matches(event.previous);
      if (nowMatches) send({ type: matchedBefore ? 'MODIFIED' : 'ADDED', object: event.object });
      else if (matchedBefore) send({ type: 'DELETED', object: event.object });
    };
    if (fromVersion === undefined) {
      const keys = [...state.objects.keys()].sort();
      for (const key of keys) {
        const object = state.objects.get(key);
        if (object && matches(object)) send({ type: 'ADDED', object });
      }
    } else {
      for (const event of state.events) if (event.resourceVersion > fromVersion) deliver(event);
    }
    const watcher = { onEvent: deliver };
    state.watchers.add(watcher);
    return { stop: () => state.watchers.delete(watcher) };
  }
}
