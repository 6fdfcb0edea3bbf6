/**
 * Unknown-field handling for `fieldValidation` (Strict: 400, Warn: a Warning header; the
 * fields are dropped either way, as decoding into Go structs does), using
 * the field tables of the built-in kinds that protobuf decoding uses. Custom resources are
 * free-form here (no schema), so they are never checked.
 */
import { isRecord } from './kube-object.js';
import { PROTO_MESSAGES, PROTO_ROOTS } from './proto-schema.generated.js';
import type { ProtoField } from './proto-schema-types.js';

/** Types whose JSON form is a scalar or free-form: nothing inside them to check. */
const LEAF_TYPES = new Set(['time', 'microtime', 'quantity', 'intorstring', 'raw']);

const fieldIndexes = new Map<string, Map<string, ProtoField>>();

function fieldsOf(message: string): Map<string, ProtoField> | undefined {
  const cached = fieldIndexes.get(message);
  if (cached) return cached;
  const table = PROTO_MESSAGES[message];
  if (!table) return undefined;
  const index = new Map(Object.values(table).map((field) => [field[0], field] as const));
  fieldIndexes.set(message, index);
  return index;
}

function collect(value: unknown, message: string, path: string, unknown: string[]): void {
  if (!isRecord(value)) return;
  const fields = fieldsOf(message);
  if (!fields) return;
  for (const [name, child] of Object.entries(value)) {
    const at = path ? `${path}.${name}` : name;
    const field = fields.get(name);
    if (!field) {
      unknown.push(at);
      // A real server decodes into typed structs, so unknown fields are never stored.
      delete value[name];
      continue;
    }
    const [, type, repetition] = field;
    if (LEAF_TYPES.has(type) || !PROTO_MESSAGES[type]) continue;
    if (repetition === 1 && Array.isArray(child)) {
      child.forEach((item, index) => {
        collect(item, type, `${at}[${index}]`, unknown);
      });
    } else if (repetition === 2 && isRecord(child)) {
      for (const [key, item] of Object.entries(child)) collect(item, type, `${at}.${key}`, unknown);
    } else {
      collect(child, type, at, unknown);
    }
  }
}

/**
 * Removes the fields the kind does not have from `object` (in place) and returns their dotted
 * paths, e.g. `spec.replicass`.
 */
export function pruneUnknownFields(apiVersion: string, kind: string, object: unknown): string[] {
  const root = PROTO_ROOTS[`${apiVersion}/${kind}`];
  if (!root || !isRecord(object)) return [];
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = object;
  const unknown: string[] = [];
  collect(rest, root, '', unknown);
  return unknown;
}
