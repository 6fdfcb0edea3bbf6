import type { MessageKey, Translate } from '../../i18n/i18n.js';

/** The form's label keys by the last part of a request path (spec §7's labels). */
const LABEL_KEYS: Record<string, MessageKey> = {
  kind: 'field.kind',
  name: 'field.name',
  namespace: 'field.namespace',
  replicas: 'field.replicas',
  computePolicy: 'field.computePolicy',
  'container.name': 'field.containerName',
  'container.image': 'field.image',
  'gpu.type': 'field.gpuType',
  'gpu.multiCard': 'field.multiCard',
  'gpu.compute': 'field.compute',
  'gpu.memoryGiB': 'field.memory',
  'gpu.cards': 'field.cards',
  'gpu.model': 'field.model',
};

/**
 * A request path as the form labels it: `containers.1.gpu.compute` → "GPU 算力（容器 2）". Paths
 * are how the rules and the diff name a field; an operator knows the field by its label.
 */
export function fieldLabelOfPath(path: string, t: Translate): string {
  const inContainer = /^containers\.(\d+)\.(gpu\.\w+|\w+)$/.exec(path);
  if (inContainer) {
    const [, index, field = ''] = inContainer;
    const key = LABEL_KEYS[field.startsWith('gpu.') ? field : `container.${field}`];
    if (key === undefined) return path;
    const n = Number(index);
    return n === 0 ? t(key) : `${t(key)}${t('field.ofContainer', { n: n + 1 })}`;
  }
  const key = LABEL_KEYS[path];
  return key === undefined ? path : t(key);
}
