/**
 * The rule engine's entry: `evaluateRequest` runs every rule of spec §3 (request-rules.ts,
 * container-rules.ts, cluster-rules.ts) and `checkRequest` puts the result into words and
 * builds the manifest when the request is valid.
 */
import type { ContainerShare } from './card-shares.js';
import { evaluateAgainstCluster } from './cluster-rules.js';
import { evaluateContainers } from './container-rules.js';
import { fixesOf } from './fixes.js';
import type { GpuInventory } from './inventory.js';
import { buildWorkload, type ManifestOptions, type WorkloadManifest } from './manifest.js';
import { describeViolation } from './messages/index.js';
import type { WorkloadRequest } from './request.js';
import {
  evaluateMultiCardPolicy,
  evaluateRequestFields,
  reservedNamespaceViolation,
} from './request-rules.js';
import type { Lang, RuleError, RuleId, Violation } from './rules.js';

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

const reservedOf = (options: EvaluateOptions): EvaluateOptions =>
  options.reservedNamespaces !== undefined
    ? { reservedNamespaces: options.reservedNamespaces }
    : {};

const describeAll = (violations: readonly Violation[], lang: Lang): RuleError[] =>
  violations.map((violation) => {
    const fixes = fixesOf(violation);
    return {
      path: violation.path,
      rule: violation.rule,
      ...describeViolation(violation, lang),
      ...(fixes.length > 0 ? { fixes } : {}),
    };
  });

/** Checks a workload request against every rule (spec §3) and builds its manifest (of its kind) when valid. */
export function checkRequest(request: WorkloadRequest, options: CheckOptions = {}): CheckResult {
  const lang = options.lang ?? 'en';
  const { violations, shares } = evaluateRequest(request, options.inventory, reservedOf(options));
  const errors = describeAll(violations, lang);
  const valid = errors.length === 0;
  return {
    valid,
    errors,
    containers: shares,
    ...(valid ? { manifest: buildWorkload(request, shares, options) } : {}),
  };
}

/**
 * `namespace-reserved` for a write to a workload that exists (update, scale, delete): the
 * cluster's own namespaces take none, whatever RBAC would allow.
 */
export function checkWorkloadTarget(namespace: string, options: CheckOptions = {}): RuleError[] {
  const violation = reservedNamespaceViolation(namespace, options.reservedNamespaces);
  return describeAll(violation ? [violation] : [], options.lang ?? 'en');
}

/** What a new replica count decides; the workload's other fields are judged where they change. */
const SCALE_RULES: ReadonlySet<RuleId> = new Set<RuleId>([
  'namespace-reserved',
  'replicas-range',
  'replicas-exceed-cluster',
]);

/**
 * The rules a scale (spec §8 `workload.scale`) answers to, judged on the live workload read
 * back (`readWorkloadObject`) with the new count: its namespace and its replicas — range, and
 * with the inventory what the cluster could ever run of its shape. Its other fields stay as
 * they are, so a rule they break (an object made with kubectl) does not block a scale.
 */
export function checkScale(
  workload: WorkloadRequest,
  replicas: number,
  options: CheckOptions = {},
): RuleError[] {
  const { violations } = evaluateRequest(
    { ...workload, replicas },
    options.inventory,
    reservedOf(options),
  );
  return describeAll(
    violations.filter((violation) => SCALE_RULES.has(violation.rule)),
    options.lang ?? 'en',
  );
}
