/** The namespaces every cluster has, and the ones a kube-apiserver refuses to delete. */
import { findResource, type ResourceDefinition } from '../resource-table.js';

export const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];
export const PROTECTED_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

export function namespaceDefinition(): ResourceDefinition {
  const definition = findResource('', 'v1', 'namespaces');
  if (!definition) throw new Error('namespaces missing from the resource table');
  return definition;
}
