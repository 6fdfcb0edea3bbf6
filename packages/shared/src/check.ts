/**
 * The rule engine's entry: `evaluateRequest` runs every rule of spec §3 (request-rules.ts,
 * container-rules.ts, cluster-rules.ts) and `checkRequest` puts the result into words and
 * builds the manifest when the request is valid.
 */
import type { ContainerShare } from './card-shares.js';
import { evaluateAgainstCluster } from './cluster-rules.js';
import { evaluateContainers } from './container-rules.js';
import type { GpuInventory } from './inventory.js';
import { buildWorkload, type ManifestOptions, type WorkloadManifest } from './manifest.js';
import { describeViolation } from './messages.js';
import type { WorkloadRequest } from './request.js';
import { evaluateMultiCardPolicy, evaluateRequestFields } from './request-rules.js';
import type { Lang, RuleError, Violation } from './rules.js';

/** The check result of spec §7. */
export interface CheckResult {
  valid: boolean;
  errors: RuleError[];
  containers: ContainerShare[];
  manifest?: WorkloadManifest;
}

export interface CheckOptions extends ManifestOptions {
  lang?: Lang;
  /** The cluster's GPU inventory; when given, the cluster-aware rules run too. */
  inventory?: GpuInventory;
  /** Namespaces a workload may not use (`namespace-reserved`); DEFAULT_RESERVED_NAMESPACES when absent. */
  reservedNamespaces?: readonly string[];
}

/** What `evaluateRequest` takes besides the request and the inventory. */
export interface EvaluateOptions {
  /** Namespaces a workload may not use (`namespace-reserved`); DEFAULT_RESERVED_NAMESPACES when absent. */
  reservedNamespaces?: readonly string[];
}

/** Broken rules and per-card shares, before anything is put into words. */
export interface Evaluation {
  violations: Violation[];
  shares: ContainerShare[];
}

/** Evaluates every rule on a request; the language-free core of `checkRequest` and `lint`. */
export function evaluateRequest(
  request: WorkloadRequest,
  inventory?: GpuInventory,
  options: EvaluateOptions = {},
): Evaluation {
  const violations: Violation[] = [];
  const shares: ContainerShare[] = [];
  const policy = evaluateRequestFields(request, options.reservedNamespaces, violations);
  const { multiCardContainers, firstModel } = evaluateContainers(
    request.containers,
    violations,
    shares,
  );
  evaluateMultiCardPolicy(multiCardContainers, policy, violations);
  if (inventory !== undefined) {
    evaluateAgainstCluster(request, policy, shares, firstModel, inventory, violations);
  }
  return { violations, shares };
}

/** Checks a workload request against every rule (spec §3) and builds its manifest (of its kind) when valid. */
export function checkRequest(request: WorkloadRequest, options: CheckOptions = {}): CheckResult {
  const lang = options.lang ?? 'en';
  const { violations, shares } = evaluateRequest(request, options.inventory, {
    ...(options.reservedNamespaces !== undefined
      ? { reservedNamespaces: options.reservedNamespaces }
      : {}),
  });
  const errors: RuleError[] = violations.map((violation) => ({
    path: violation.path,
    rule: violation.rule,
    ...describeViolation(violation, lang),
  }));
  const valid = errors.length === 0;
  return {
    valid,
    errors,
    containers: shares,
    ...(valid ? { manifest: buildWorkload(request, shares, options) } : {}),
  };
}
