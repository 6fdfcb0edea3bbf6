/**
 * Who owns an object, read from its ownerReferences the way Kubernetes' controllers do: the
 * controller is the reference with `controller: true` (client-go's `GetControllerOf`). The one
 * reading for the controllers (which object to requeue), the BFF (which pods a workload has)
 * and the allocation records (which workload a card's instance belongs to).
 */

/** An ownerReference as objects carry it (a V1OwnerReference fits). */
export interface OwnerReferenceLike {
  kind?: string;
  name?: string;
  uid?: string;
  controller?: boolean;
}

/** The parts of an object that say who owns it (a V1Pod, V1ReplicaSet, … fits). */
export interface OwnedLike {
  metadata?: {
    labels?: Record<string, string>;
    ownerReferences?: OwnerReferenceLike[];
  };
}

export interface OwnerRef {
  kind: string;
  name: string;
  uid: string;
}

/** The controller that owns an object (its ownerReference with controller=true). */
export function controllerOf(object: OwnedLike): OwnerRef | undefined {
  const owner = object.metadata?.ownerReferences?.find(
    (reference) => reference.controller === true,
  );
  return owner
    ? { kind: owner.kind ?? '', name: owner.name ?? '', uid: owner.uid ?? '' }
    : undefined;
}

/** The label the deployment controller puts on a ReplicaSet and its pods: the template's hash. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/**
 * The workload behind a pod: pod → ReplicaSet → Deployment by the ReplicaSet's name, which is
 * the Deployment's followed by the pod-template hash (as the deployment controller names it, so
 * no ReplicaSet needs reading); any other owner (StatefulSet, Job, …) is the workload itself.
 * A pod with references but none marked controller is read by its first one.
 */
export function workloadOfPod(pod: OwnedLike): { kind: string; name: string } | undefined {
  const references = pod.metadata?.ownerReferences ?? [];
  const owner = references.find((reference) => reference.controller === true) ?? references[0];
  if (owner?.name === undefined) return undefined;
  const hash = pod.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL];
  if (owner.kind === 'ReplicaSet' && hash && owner.name.endsWith(`-${hash}`)) {
    return { kind: 'Deployment', name: owner.name.slice(0, -hash.length - 1) };
  }
  return { kind: owner.kind ?? '', name: owner.name };
}
