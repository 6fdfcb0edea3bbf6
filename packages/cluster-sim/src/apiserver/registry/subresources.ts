/**
 * The subresources beside an object's own verbs: `scale` (Deployments, ReplicaSets) read,
 * replaced and patched as an autoscaling/v1 Scale, and a pod's `binding`, which is how a
 * scheduler assigns it to a node. (`status` is an update of part of the object: `write.ts`.)
 */
import {
  cloneJson,
  isRecord,
  type JsonRecord,
  type KubeObject,
  metaTime,
  numberAt,
  recordAt,
  valueAt,
} from '../kube-object.js';
import { invalidValue } from '../object-rules.js';
import type { ObjectStore } from '../object-store.js';
import { jsonPatch, mergePatch, strategicMerge } from '../patch.js';
import type { ResourceDefinition } from '../resource-table.js';
import { formatLabelSelector, selectorFromLabelSelectorObject } from '../selectors.js';
import { conflict, invalid, type StatusObject, successStatus } from '../status.js';
import { checkResourceVersion, checkSubresourceBody } from './object-input.js';
import type { PatchType, WriteOptions } from './options.js';
import type { ReadVerbs } from './read.js';
import type { WriteVerbs } from './write.js';

export class Subresources {
  constructor(
    private readonly store: ObjectStore,
    private readonly reads: ReadVerbs,
    private readonly writes: WriteVerbs,
  ) {}

  scale(definition: ResourceDefinition, namespace: string | undefined, name: string): KubeObject {
    const object = this.reads.get(definition, namespace, name);
    const selector = selectorFromLabelSelectorObject(recordAt(object, 'spec')?.selector);
    return {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: {
        name,
        namespace: object.metadata.namespace,
        uid: object.metadata.uid,
        resourceVersion: object.metadata.resourceVersion,
        creationTimestamp: object.metadata.creationTimestamp,
      },
      spec: { replicas: numberAt(object, 'spec', 'replicas') ?? 0 },
      status: {
        replicas: numberAt(object, 'status', 'replicas') ?? 0,
        selector: selector ? formatLabelSelector(selector) : '',
      },
    };
  }

  updateScale(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: WriteOptions,
  ): KubeObject {
    checkSubresourceBody(body, 'Scale');
    const replicas = valueAt(body, ['spec', 'replicas']);
    if (
      replicas !== undefined &&
      (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0)
    ) {
      throw invalid('autoscaling', 'Scale', name, [
        invalidValue('spec.replicas', replicas, 'must be greater than or equal to 0'),
      ]);
    }
    const existing = this.reads.get(definition, namespace, name);
    const requested = valueAt(body, ['metadata', 'resourceVersion']);
    checkResourceVersion(
      definition,
      existing,
      typeof requested === 'string' ? requested : undefined,
    );
    const next = cloneJson(existing);
    const spec: JsonRecord = isRecord(next.spec) ? next.spec : {};
    spec.replicas = typeof replicas === 'number' ? replicas : 0;
    next.spec = spec;
    this.writes.update(definition, namespace, name, next, options);
    if (options.dryRun) {
      const preview = this.scale(definition, namespace, name);
      return { ...preview, spec: { replicas: spec.replicas } };
    }
    return this.scale(definition, namespace, name);
  }

  patchScale(
    definition: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    patchType: PatchType,
    patch: unknown,
    options: WriteOptions,
  ): KubeObject {
    const current = this.scale(definition, namespace, name);
    let patched: unknown;
    if (patchType === 'json') patched = jsonPatch(current, patch);
    else if (patchType === 'merge') patched = mergePatch(current, patch);
    else patched = strategicMerge(current, patch);
    return this.updateScale(definition, namespace, name, patched, options);
  }

  /** POST pods/<name>/binding: what the scheduler does; a bound pod cannot be bound again. */
  bind(
    pods: ResourceDefinition,
    namespace: string | undefined,
    name: string,
    body: unknown,
    options: WriteOptions,
  ): StatusObject {
    checkSubresourceBody(body, 'Binding');
    const nodeName = valueAt(body, ['target', 'name']);
    if (typeof nodeName !== 'string' || nodeName === '') {
      throw invalid('', 'Binding', name, [
        { reason: 'FieldValueRequired', message: 'Required value', field: 'target.name' },
      ]);
    }
    const pod = this.reads.get(pods, namespace, name);
    // A binding may name the pod's uid: binding a pod that was replaced meanwhile is a conflict.
    const bindingUid = valueAt(body, ['metadata', 'uid']);
    if (typeof bindingUid === 'string' && bindingUid !== '' && bindingUid !== pod.metadata.uid) {
      throw conflict(
        '',
        'pods',
        name,
        `Precondition failed: UID in precondition: ${bindingUid}, UID in object meta: ${pod.metadata.uid ?? ''}`,
      );
    }
    const assigned = recordAt(pod, 'spec')?.nodeName;
    if (typeof assigned === 'string' && assigned !== '') {
      throw conflict('', 'pods', name, `pod ${name} is already assigned to node "${assigned}"`);
    }
    if (pod.metadata.deletionTimestamp) {
      throw conflict(
        '',
        'pods',
        name,
        `pod ${name} is being deleted, cannot be assigned to a host`,
      );
    }
    const bindingAnnotations = recordAt(body, 'metadata', 'annotations') ?? {};
    const next = cloneJson(pod);
    next.spec = { ...recordAt(next, 'spec'), nodeName };
    next.metadata.annotations = { ...next.metadata.annotations };
    for (const [key, value] of Object.entries(bindingAnnotations))
      next.metadata.annotations[key] = String(value);
    const status: JsonRecord = recordAt(next, 'status') ?? {};
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter(
      (condition) => !(isRecord(condition) && condition.type === 'PodScheduled'),
    );
    conditions.push({
      type: 'PodScheduled',
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: metaTime(),
    });
    status.conditions = conditions;
    next.status = status;
    if (!options.dryRun) this.store.commit(pods, 'MODIFIED', next, pod);
    return { ...successStatus(), code: 201 };
  }
}
