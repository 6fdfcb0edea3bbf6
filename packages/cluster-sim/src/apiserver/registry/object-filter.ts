/**
 * Which objects a list or a watch is about: the namespace on the URL, the label selector, and
 * the field selector over the fields the kind supports (metadata.name, metadata.namespace and
 * the resource table's fieldLabels; anything else is a 400, as from a kube-apiserver).
 */
import { type KubeObject, valueAt } from '../kube-object.js';
import type { ResourceDefinition } from '../resource-table.js';
import {
  type FieldRequirement,
  type LabelSelector,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
} from '../selectors.js';

export type ObjectFilter = (object: KubeObject) => boolean;

function fieldValue(object: KubeObject, field: string): string {
  if (field === 'source') return String(valueAt(object, ['source', 'component']) ?? '');
  const value = valueAt(object, field.split('.'));
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : String(value);
}

/** Parses the selectors once (a bad one throws here, before anything is sent). */
export function objectFilter(
  definition: ResourceDefinition,
  namespace: string | undefined,
  labelSelector: string | undefined,
  fieldSelector: string | undefined,
): ObjectFilter {
  const labels: LabelSelector = parseLabelSelector(labelSelector);
  const supported = new Set(['metadata.name', ...definition.fieldLabels]);
  if (definition.namespaced) supported.add('metadata.namespace');
  const fields: FieldRequirement[] = parseFieldSelector(fieldSelector, supported);
  return (object) =>
    (!definition.namespaced ||
      namespace === undefined ||
      object.metadata.namespace === namespace) &&
    matchesLabels(labels, object.metadata.labels) &&
    matchesFields(fields, (field) => fieldValue(object, field));
}
