/**
 * The three patch formats of the Kubernetes API: JSON merge patch (RFC 7386), JSON patch
 * (RFC 6902) and strategic merge patch (merge keys per list, `$patch` directives). Every
 * function returns a new document and leaves its input untouched, so a failed patch changes
 * nothing.
 */
import { cloneJson, isRecord, type JsonRecord, jsonEqual } from './kube-object.js';
import { ApiError, badRequest } from './status.js';

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return cloneJson(patch);
  const result: JsonRecord = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

type JsonPatchOperation = {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  value?: unknown;
  from?: string;
};

function patchFailed(message: string): ApiError {
  return new ApiError(422, 'Invalid', message);
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw patchFailed(`invalid JSON pointer "${pointer}"`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** A patch that is not a JSON array is a 400; a malformed operation fails when applied (422), as in Go. */
function parseOperations(patch: unknown): JsonPatchOperation[] {
  if (!Array.isArray(patch)) throw badRequest('json patch must be an array of operations');
  return patch.map((operation, index) => {
    if (
      !isRecord(operation) ||
      typeof operation.op !== 'string' ||
      typeof operation.path !== 'string'
    ) {
      throw patchFailed(`json patch operation ${index} needs "op" and "path"`);
    }
    if (!['add', 'remove', 'replace', 'move', 'copy', 'test'].includes(operation.op)) {
      throw patchFailed(`Unexpected kind: ${operation.op}`);
    }
    if (['add', 'replace', 'test'].includes(operation.op) && !('value' in operation)) {
      throw patchFailed(`json patch operation ${index} (${operation.op}) needs "value"`);
    }
    if (['move', 'copy'].includes(operation.op) && typeof operation.from !== 'string') {
      throw patchFailed(`json patch operation ${index} (${operation.op}) needs "from"`);
    }
    return operation as JsonPatchOperation;
  });
}

function containerAt(document: unknown, tokens: string[], pointer: string): unknown {
  let current = document;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      const index = Number(token);
      if (!/^\d+$/.test(token) || index >= current.length) {
        throw patchFailed(`doc is missing path: "${pointer}": missing value`);
      }
      current = current[index];
    } else if (isRecord(current) && token in current) {
      current = current[token];
    } else {
      throw patchFailed(`doc is missing path: "${pointer}": missing value`);
    }
  }
  return current;
}

function getAt(document: unknown, pointer: string): unknown {
  return containerAt(document, parsePointer(pointer), pointer);
}

function removeAt(document: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  const last = tokens.pop();
  if (last === undefined) throw patchFailed('cannot remove the whole document');
  const parent = containerAt(document, tokens, pointer);
  if (Array.isArray(parent)) {
    const index = Number(last);
    if (!/^\d+$/.test(last) || index >= parent.length) {
      throw patchFailed(`remove operation does not apply: doc is missing key: ${pointer}`);
    }
    return parent.splice(index, 1)[0];
  }
  if (isRecord(parent) && last in parent) {
    const removed = parent[last];
    delete parent[last];
    return removed;
  }
  throw patchFailed(`remove operation does not apply: doc is missing key: ${pointer}`);
}

function addAt(document: unknown, pointer: string, value: unknown, replace: boolean): unknown {
  const tokens = parsePointer(pointer);
  const last = tokens.pop();
  if (last === undefined) return value;
  const parent = containerAt(document, tokens, pointer);
  if (Array.isArray(parent)) {
    if (last === '-' && !replace) {
      parent.push(value);
      return document;
    }
    const index = Number(last);
    const bound = replace ? parent.length - 1 : parent.length;
    if (!/^\d+$/.test(last) || index > bound) {
      throw patchFailed(
        `${replace ? 'replace' : 'add'} operation does not apply: index out of range: ${pointer}`,
      );
    }
    if (replace) parent[index] = value;
    else parent.splice(index, 0, value);
    return document;
  }
  if (!isRecord(parent)) {
    throw patchFailed(
      `${replace ? 'replace' : 'add'} operation does not apply: doc is missing path: ${pointer}`,
    );
  }
  if (replace && !(last in parent)) {
    throw patchFailed(`replace operation does not apply: doc is missing key: ${pointer}`);
  }
  parent[last] = value;
  return document;
}

export function jsonPatch(target: unknown, patch: unknown): unknown {
  const operations = parseOperations(patch);
  let document = cloneJson(target);
  for (const operation of operations) {
    switch (operation.op) {
      case 'add':
        document = addAt(document, operation.path, cloneJson(operation.value), false);
        break;
      case 'replace':
        document = addAt(document, operation.path, cloneJson(operation.value), true);
        break;
      case 'remove':
        removeAt(document, operation.path);
        break;
      case 'move': {
        const moved = removeAt(document, operation.from ?? '');
        document = addAt(document, operation.path, moved, false);
        break;
      }
      case 'copy':
        document = addAt(
          document,
          operation.path,
          cloneJson(getAt(document, operation.from ?? '')),
          false,
        );
        break;
      case 'test': {
        const actual = getAt(document, operation.path);
        if (JSON.stringify(actual) !== JSON.stringify(operation.value)) {
          throw patchFailed(`testing value ${operation.path} failed: test failed`);
        }
        break;
      }
    }
  }
  return document;
}

/**
 * Merge keys of the lists that matter for our kinds (the `patchMergeKey` struct tags of
 * k8s.io/api). Lists not named here are replaced wholesale, as SMP does for atomic lists.
 */
const MERGE_KEYS: Readonly<Record<string, string>> = {
  containers: 'name',
  initContainers: 'name',
  ephemeralContainers: 'name',
  env: 'name',
  ports: 'containerPort',
  volumes: 'name',
  volumeMounts: 'mountPath',
  volumeDevices: 'devicePath',
  imagePullSecrets: 'name',
  conditions: 'type',
  ownerReferences: 'uid',
  addresses: 'type',
  taints: 'key',
  hostAliases: 'ip',
  resourceClaims: 'name',
  topologySpreadConstraints: 'topologyKey',
};

/** Lists of scalars with patchStrategy "merge": patched entries are added, not replacing. */
const MERGED_SCALAR_LISTS = new Set(['finalizers']);

const SET_ELEMENT_ORDER = '$setElementOrder/';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';

function keyOf(item: unknown, mergeKey: string | undefined): unknown {
  return mergeKey !== undefined && isRecord(item) ? item[mergeKey] : item;
}

function indexIn(list: readonly unknown[], item: unknown, mergeKey: string | undefined): number {
  const key = keyOf(item, mergeKey);
  return list.findIndex((candidate) => jsonEqual(keyOf(candidate, mergeKey), key));
}

/** Stable sort by position in `order`; items not in it keep their place after those that are. */
function sortByOrder(
  items: unknown[],
  order: readonly unknown[],
  mergeKey: string | undefined,
): unknown[] {
  const rank = (item: unknown): number => {
    const position = indexIn(order, item, mergeKey);
    return position === -1 ? order.length : position;
  };
  return items
    .map((item, position) => ({ item, position, rank: rank(item) }))
    .sort((a, b) => a.rank - b.rank || a.position - b.position)
    .map(({ item }) => item);
}

/**
 * normalizeElementOrder of strategicpatch: patched items in the patch's order (or
 * $setElementOrder's), server-only items in their old order, interleaved where both are known
 * to the server, patched items first otherwise.
 */
function normalizeOrder(
  patchItems: unknown[],
  serverOnly: unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string | undefined,
): unknown[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey);
  const merged: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (j >= right.length) merged.push(left[i++]);
    else if (i >= left.length) merged.push(right[j++]);
    else {
      const leftIndex = indexIn(serverOrder, left[i], mergeKey);
      const rightIndex = indexIn(serverOrder, right[j], mergeKey);
      if (leftIndex >= 0 && rightIndex >= 0 && leftIndex < rightIndex) merged.push(left[i++]);
      else merged.push(right[j++]);
    }
  }
  return merged;
}

function partitionByPresence(
  merged: unknown[],
  present: readonly unknown[],
  mergeKey: string | undefined,
): [unknown[], unknown[]] {
  const inPatch: unknown[] = [];
  const serverOnly: unknown[] = [];
  for (const item of merged)
    (indexIn(present, item, mergeKey) >= 0 ? inPatch : serverOnly).push(item);
  return [inPatch, serverOnly];
}

function strategicMergeList(field: string, original: unknown, patch: unknown[]): unknown {
  const mergeKey = MERGE_KEYS[field];
  const originalList = Array.isArray(original) ? original : [];
  if (mergeKey === undefined) {
    if (!MERGED_SCALAR_LISTS.has(field)) {
      return patch
        .filter((item) => !(isRecord(item) && item.$patch !== undefined))
        .map((item) => cloneJson(item));
    }
    const merged = [...originalList];
    for (const item of patch)
      if (!merged.some((existing) => jsonEqual(existing, item))) merged.push(item);
    const [inPatch, serverOnly] = partitionByPresence(merged, patch, undefined);
    return normalizeOrder(inPatch, serverOnly, patch, originalList, undefined);
  }
  if (patch.some((item) => isRecord(item) && item.$patch === 'replace')) {
    return patch
      .filter((item) => !(isRecord(item) && item.$patch === 'replace'))
      .map((item) => cloneJson(item));
  }
  const deleted = patch.filter((item) => isRecord(item) && item.$patch === 'delete');
  const updates = patch.filter((item) => !(isRecord(item) && item.$patch === 'delete'));
  const merged: unknown[] = originalList.filter(
    (existing) => indexIn(deleted, existing, mergeKey) === -1,
  );
  for (const item of patch) {
    if (!isRecord(item) || !(mergeKey in item)) {
      throw badRequest(
        `map: ${JSON.stringify(item)} does not contain declared merge key: ${mergeKey}`,
      );
    }
  }
  for (const item of updates) {
    const index = indexIn(merged, item, mergeKey);
    if (index === -1) merged.push(strategicMerge(undefined, item));
    else merged[index] = strategicMerge(merged[index], item);
  }
  const [inPatch, serverOnly] = partitionByPresence(merged, updates, mergeKey);
  return normalizeOrder(inPatch, serverOnly, updates, originalList, mergeKey);
}

/** `$setElementOrder/<field>`: the listed items in that order, interleaved with the others. */
function orderList(list: unknown, order: unknown, field: string, originalList: unknown): unknown {
  if (!Array.isArray(list) || !Array.isArray(order)) return list;
  const mergeKey = MERGE_KEYS[field];
  const [listed, others] = partitionByPresence(list, order, mergeKey);
  return normalizeOrder(
    listed,
    others,
    order,
    Array.isArray(originalList) ? originalList : [],
    mergeKey,
  );
}

/** Strategic merge patch of a map; see k8s.io/apimachinery/pkg/util/strategicpatch. */
export function strategicMerge(original: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return cloneJson(patch);
  const directive = patch.$patch;
  if (directive === 'delete') return undefined;
  if (directive === 'replace') {
    const replacement = cloneJson(patch);
    delete replacement.$patch;
    return replacement;
  }
  if (directive !== undefined) throw badRequest(`Unknown patch directive: ${String(directive)}`);
  const result: JsonRecord = isRecord(original) ? { ...original } : {};
  const orders: [string, unknown][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith(SET_ELEMENT_ORDER)) {
      orders.push([key.slice(SET_ELEMENT_ORDER.length), value]);
      continue;
    }
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      const field = key.slice(DELETE_FROM_PRIMITIVE_LIST.length);
      const current = result[field];
      if (Array.isArray(current) && Array.isArray(value)) {
        result[field] = current.filter((item) => !value.includes(item));
      }
      continue;
    }
    if (key === '$retainKeys') continue;
    if (value === null) {
      delete result[key];
    } else if (Array.isArray(value)) {
      result[key] = strategicMergeList(key, result[key], value);
    } else if (isRecord(value)) {
      const merged = strategicMerge(result[key], value);
      if (merged === undefined) delete result[key];
      else result[key] = merged;
    } else {
      result[key] = value;
    }
  }
  for (const [field, order] of orders) {
    if (field in result) {
      result[field] = orderList(
        result[field],
        order,
        field,
        isRecord(original) ? original[field] : undefined,
      );
    }
  }
  const retainKeys = patch.$retainKeys;
  if (Array.isArray(retainKeys)) {
    for (const key of Object.keys(result)) if (!retainKeys.includes(key)) delete result[key];
  }
  return result;
}

/**
 * Server-side apply, simplified: the applied configuration is merged onto the live object
 * like a strategic merge patch that never removes fields (no per-manager field ownership).
 */
export function applyConfiguration(live: unknown, applied: unknown): unknown {
  return strategicMerge(live, dropNulls(applied));
}

function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (!isRecord(value)) return value;
  const result: JsonRecord = {};
  for (const [key, item] of Object.entries(value)) if (item !== null) result[key] = dropNulls(item);
  return result;
}
