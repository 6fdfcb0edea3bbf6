/** The rules of spec §3 on the request's own fields and on the pod as a whole. */
import { quoteTyped } from './decimal.js';
import { isDns1123Label, isDns1123Subdomain, suggestName } from './kubernetes-names.js';
import { isComputePolicy, type WorkloadRequest } from './request.js';
import {
  DEFAULT_RESERVED_NAMESPACES,
  MAX_CONTAINERS,
  MAX_LABEL_VALUE,
  MAX_REPLICAS,
  type Violation,
} from './rules.js';

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
  } else if (request.name.length > MAX_LABEL_VALUE) {
    // `name-too-long`: the name is also written as a label value (app: <name>), ≤ 63 characters.
    violations.push({
      rule: 'name-too-long',
      path: 'name',
      params: { value: request.name, length: request.name.length, max: MAX_LABEL_VALUE },
    });
  }
  if (!isDns1123Label(request.namespace)) {
    const suggestion = suggestName(request.namespace, 'label');
    violations.push({
      rule: 'namespace-format',
      path: 'namespace',
      params: { value: quoteTyped(request.namespace), ...(suggestion ? { suggestion } : {}) },
    });
  } else {
    const reserved = reservedNamespaces ?? DEFAULT_RESERVED_NAMESPACES;
    if (reserved.includes(request.namespace)) {
      violations.push({
        rule: 'namespace-reserved',
        path: 'namespace',
        params: { value: request.namespace, reserved: [...reserved] },
      });
    }
  }
  if (
    !Number.isInteger(request.replicas) ||
    request.replicas < 0 ||
    request.replicas > MAX_REPLICAS
  ) {
    violations.push({
      rule: 'replicas-range',
      path: 'replicas',
      params: { value: request.replicas },
    });
  }
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

/** `multi-card-policy`: multi-card sharing needs native-burst-share on the pod. */
export function evaluateMultiCardPolicy(
  multiCardContainers: string[],
  policy: string | undefined,
  violations: Violation[],
): void {
  if (multiCardContainers.length > 0 && policy !== 'native-burst-share') {
    violations.push({
      rule: 'multi-card-policy',
      path: 'computePolicy',
      params: { containers: multiCardContainers, ...(policy ? { policy } : {}) },
    });
  }
}
