/** The rules of spec §3 on the request's own fields and on the pod as a whole. */
import type { GpuModel } from './api/gpu-models.js';
import { quoteTyped } from './decimal.js';
import { isDns1123Label, isDns1123Subdomain, suggestName } from './kubernetes-names.js';
import { isComputePolicy, type WorkloadRequest, workloadKindOf } from './request.js';
import {
  DEFAULT_RESERVED_NAMESPACES,
  MAX_CONTAINERS,
  MAX_LABEL_VALUE,
  MAX_REPLICAS,
  MAX_STATEFULSET_NAME,
  type Violation,
} from './rules.js';

/**
 * `namespace-reserved`: the cluster's own namespaces (or the configured list) take no console
 * write — create, update, scale or delete — whatever RBAC would allow.
 */
export function reservedNamespaceViolation(
  namespace: string,
  reservedNamespaces: readonly string[] | undefined,
): Violation | undefined {
  const reserved = reservedNamespaces ?? DEFAULT_RESERVED_NAMESPACES;
  if (!reserved.includes(namespace)) return undefined;
  return {
    rule: 'namespace-reserved',
    path: 'namespace',
    params: { value: namespace, reserved: [...reserved] },
  };
}

/** `replicas-range`: an int32 of 0 or more, as every kind's replicas (a Job's parallelism) is. */
function replicasRangeViolation(replicas: number): Violation | undefined {
  if (Number.isInteger(replicas) && replicas >= 0 && replicas <= MAX_REPLICAS) return undefined;
  return { rule: 'replicas-range', path: 'replicas', params: { value: replicas } };
}

/**
 * `statefulset-name`: a StatefulSet's headless Service takes its name, and a Service's name is
 * a DNS-1035 label (a letter first, no dots); its pods' `controller-revision-hash` label is
 * `<name>-<hash>`, so the name has at most MAX_STATEFULSET_NAME characters.
 */
function statefulSetNameViolation(name: string): Violation | undefined {
  // Past the subdomain rule, a DNS-1035 label differs by a letter first and no dots.
  const problem =
    !/^[a-z]/.test(name) || name.includes('.')
      ? 'dns-1035'
      : name.length > MAX_STATEFULSET_NAME
        ? 'too-long'
        : undefined;
  if (problem === undefined) return undefined;
  const suggestion = suggestName(name, 'dns-1035', MAX_STATEFULSET_NAME);
  return {
    rule: 'statefulset-name',
    path: 'name',
    params: {
      value: name,
      problem,
      length: name.length,
      max: MAX_STATEFULSET_NAME,
      ...(suggestion ? { suggestion } : {}),
    },
  };
}

/**
 * Name, namespace, replicas, compute policy and container count; returns the pod's compute
 * policy as typed (trimmed; undefined when empty), which later rules read.
 */
export function evaluateRequestFields(
  request: WorkloadRequest,
  reservedNamespaces: readonly string[] | undefined,
  violations: Violation[],
): string | undefined {
  if (!isDns1123Subdomain(request.name)) {
    const suggestion = suggestName(request.name, 'subdomain');
    violations.push({
      rule: 'name-format',
      path: 'name',
      params: { value: quoteTyped(request.name), ...(suggestion ? { suggestion } : {}) },
    });
  } else {
    // A StatefulSet's name has the tighter bound, and one error says it (not two in turn).
    const statefulSet =
      workloadKindOf(request) === 'StatefulSet'
        ? statefulSetNameViolation(request.name)
        : undefined;
    if (statefulSet !== undefined) violations.push(statefulSet);
    else if (request.name.length > MAX_LABEL_VALUE) {
      // `name-too-long`: the name is also a label value (app: <name>; a Job's pods' job-name), ≤ 63.
      violations.push({
        rule: 'name-too-long',
        path: 'name',
        params: { value: request.name, length: request.name.length, max: MAX_LABEL_VALUE },
      });
    }
  }
  if (!isDns1123Label(request.namespace)) {
    const suggestion = suggestName(request.namespace, 'label');
    violations.push({
      rule: 'namespace-format',
      path: 'namespace',
      params: { value: quoteTyped(request.namespace), ...(suggestion ? { suggestion } : {}) },
    });
  } else {
    const reserved = reservedNamespaceViolation(request.namespace, reservedNamespaces);
    if (reserved !== undefined) violations.push(reserved);
  }
  const replicas = replicasRangeViolation(request.replicas);
  if (replicas !== undefined) violations.push(replicas);
  const policyText = request.computePolicy?.trim() ?? '';
  const policy = policyText === '' ? undefined : policyText;
  if (policy !== undefined && !isComputePolicy(policy)) {
    violations.push({
      rule: 'compute-policy-unknown',
      path: 'computePolicy',
      params: { value: quoteTyped(policy) },
    });
  }
  if (request.containers.length === 0) {
    violations.push({ rule: 'containers-required', path: 'containers', params: {} });
  } else if (request.containers.length > MAX_CONTAINERS) {
    violations.push({
      rule: 'containers-max',
      path: 'containers',
      params: { count: request.containers.length, max: MAX_CONTAINERS },
    });
  }
  return policy;
}

/** The one policy multi-card sharing runs under (spec §2, rule `multi-card-policy`). */
export const MULTI_CARD_POLICY = 'native-burst-share';

/**
 * The compute policy to select when multi-card sharing is switched on: native-burst-share, the
 * only one it runs under, when no policy was chosen yet and some mGPU pool of the cluster has it
 * (or the pools are not known to this operator). A policy the operator chose stays: the rule then
 * says why it must change.
 */
export function policyForMultiCard(
  current: string | null | undefined,
  models: readonly Pick<GpuModel, 'resourceTypes' | 'policies'>[],
): string | undefined {
  if (current !== undefined && current !== null && current !== '') return undefined;
  const poolsAllow =
    models.length === 0 ||
    models.some(
      (model) => model.resourceTypes.includes('mgpu') && model.policies.includes(MULTI_CARD_POLICY),
    );
  return poolsAllow ? MULTI_CARD_POLICY : undefined;
}

/** `multi-card-policy`: multi-card sharing needs native-burst-share on the pod. */
export function evaluateMultiCardPolicy(
  multiCardContainers: string[],
  policy: string | undefined,
  violations: Violation[],
): void {
  if (multiCardContainers.length > 0 && policy !== MULTI_CARD_POLICY) {
    violations.push({
      rule: 'multi-card-policy',
      path: 'computePolicy',
      params: { containers: multiCardContainers, ...(policy ? { policy } : {}) },
    });
  }
}
