/** get and list: reads of the store, paged by continue tokens and filtered by selectors. */
import type { KubeObject } from '../kube-object.js';
import type { ObjectStore } from '../object-store.js';
import type { ResourceDefinition } from '../resource-table.js';
import { notFound } from '../status.js';
import { objectFilter } from './object-filter.js';
import type { ListOptions, ListResult } from './options.js';
import { encodeContinue, type WatchWindow } from './watch-window.js';

export class ReadVerbs {
  constructor(
    private readonly store: ObjectStore,
    private readonly window: WatchWindow,
  ) {}

  get(definition: ResourceDefinition, namespace: string | undefined, name: string): KubeObject {
    const object = this.store.get(definition, namespace, name);
    if (!object) throw notFound(definition.group, definition.plural, name);
    return object;
  }

  list(
    definition: ResourceDefinition,
    namespace: string | undefined,
    options: ListOptions,
  ): ListResult {
    // Selectors first: a bad selector is a 400 even with an expired continue token.
    const matches = objectFilter(
      definition,
      namespace,
      options.labelSelector,
      options.fieldSelector,
    );
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : undefined;
    const {
      objects,
      resourceVersion: snapshotVersion,
      start,
    } = this.window.listSnapshot(definition, options);
    const keys = [...objects.keys()].filter((key) => key > start).sort();
    const items: KubeObject[] = [];
    let lastKey = '';
    let remaining = 0;
    for (const key of keys) {
      const object = objects.get(key);
      if (!object || !matches(object)) continue;
      if (limit !== undefined && items.length >= limit) {
        remaining += 1;
        continue;
      }
      items.push(object);
      lastKey = key;
    }
    const result: ListResult = { items, resourceVersion: String(snapshotVersion) };
    if (remaining > 0) {
      result.continueToken = encodeContinue({ resourceVersion: snapshotVersion, start: lastKey });
      result.remainingItemCount = remaining;
    }
    return result;
  }
}
