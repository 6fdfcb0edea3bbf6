import type { ContainerShare } from '../card-shares.js';
import { type Evaluation, evaluateRequest } from '../check.js';
import type { PodClaims } from '../ledger/claim.js';
import { type KubePodLike, readPodClaims } from '../ledger/read-pod.js';
import { readWorkloadObject } from '../read-workload.js';
import { DEFAULT_NODE_POLICY } from '../request.js';
import { VKE } from '../vke.js';
import type { ContainerDemand, NodeSelectorTerm, PodDemand } from './types.js';

/** Per-card demand of the rule engine's shares (spec §3's per-card math, not repeated here). */
export function containerDemands(shares: readonly ContainerShare[]): ContainerDemand[] {
  return shares.map((share) => ({
    name: share.name,
    multiCard: share.multiCard,
    wholeCards: share.wholeCards,
    cards: share.cards,
    type: share.type,
    perCard: share.perCard,
  }));
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The console's reading of a pod's GPU request, as the rule engine judges it. */
export interface PodRequestReading {
  /** The pod's `vke.volcengine.com/mgpu-compute-policy`, if it has one. */
  computePolicy: string | undefined;
  evaluation: Evaluation;
}

/**
 * Reads a pod back as a request (both multi-card annotation forms: `multiple-mgpu-<container>`
 * and the older positional `container-multiple-gpu`) and evaluates it: the per-card shares of
 * spec §3, and the violations. The pod's name and namespace are the API server's business, so
 * only the GPU fields are judged. Outside the ledger, which depends on no rule.
 */
export function readPodRequest(
  pod: unknown,
  options: { modelLabel?: string } = {},
): PodRequestReading | undefined {
  const object: Json = isObject(pod) ? { ...pod, kind: 'Pod' } : { kind: 'Pod' };
  const read = readWorkloadObject(object, options);
  if (read === undefined) return undefined;
  const evaluation = evaluateRequest({
    ...read.request,
    name: 'pod',
    namespace: 'default',
    replicas: 1,
  });
  return { computePolicy: read.computePolicy, evaluation };
}

/**
 * A bound pod's claims with each share as the console reads the pod where its rules accept the
 * container (both multi-card annotation forms) and from its resources otherwise (the cluster
 * took the pod anyway): what the allocation records show as asked.
 */
export function readRequestedClaims(
  pod: KubePodLike,
): { claims: PodClaims; computePolicy: string | undefined } | undefined {
  const reading = readPodRequest(pod);
  if (reading === undefined) return undefined;
  const claims = readPodClaims(pod, reading.evaluation.shares);
  return claims ? { claims, computePolicy: reading.computePolicy } : undefined;
}

function requiredTerms(spec: Json): NodeSelectorTerm[] | undefined {
  const affinity = spec.affinity;
  if (!isObject(affinity) || !isObject(affinity.nodeAffinity)) return undefined;
  const required = affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution;
  if (!isObject(required) || !Array.isArray(required.nodeSelectorTerms)) return undefined;
  return required.nodeSelectorTerms.filter(isObject).map((term) => ({
    matchExpressions: (Array.isArray(term.matchExpressions) ? term.matchExpressions : [])
      .filter(isObject)
      .map((expression) => ({
        key: String(expression.key ?? ''),
        operator: String(expression.operator ?? ''),
        ...(Array.isArray(expression.values) ? { values: expression.values.map(String) } : {}),
      })),
  }));
}

/**
 * A pod's GPU demand: the rule engine's per-card shares of the pod read back as a request
 * (both multi-card annotation forms), plus its policy annotation (absent = fixed-share) and
 * node affinity. Containers whose GPU fields break a rule make the pod invalid rather than
 * silently GPU-less.
 */
export function podDemandOf(pod: unknown, options: { modelLabel?: string } = {}): PodDemand {
  const object: Json = isObject(pod) ? { ...pod, kind: 'Pod' } : { kind: 'Pod' };
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const spec = isObject(object.spec) ? object.spec : {};
  const key = `${typeof metadata.namespace === 'string' ? metadata.namespace : 'default'}/${
    typeof metadata.name === 'string' ? metadata.name : ''
  }`;
  const read = readPodRequest(object, options);
  const nodeSelector: Record<string, string> = {};
  if (isObject(spec.nodeSelector)) {
    for (const [label, value] of Object.entries(spec.nodeSelector))
      nodeSelector[label] = String(value);
  }
  const terms = requiredTerms(spec);
  const base: PodDemand = {
    key,
    containers: [],
    policy: DEFAULT_NODE_POLICY,
    ...(Object.keys(nodeSelector).length > 0 ? { nodeSelector } : {}),
    ...(terms !== undefined && terms.length > 0 ? { nodeSelectorTerms: terms } : {}),
  };
  if (read === undefined) return base;
  const { violations, shares } = read.evaluation;
  const invalidRules = [
    ...new Set(
      violations
        .filter((violation) => /^containers\.\d+\.gpu/.test(violation.path))
        .map((violation) => violation.rule),
    ),
  ];
  const model = shares.find((share) => share.model !== undefined)?.model;
  return {
    ...base,
    containers: containerDemands(shares),
    policy: read.computePolicy ?? DEFAULT_NODE_POLICY,
    ...(model !== undefined ? { model } : {}),
    ...(invalidRules.length > 0 ? { invalidRules } : {}),
  };
}

/** Whether a pod asks for mGPU or whole nvidia cards (by its resources alone). */
export function podNeedsGpu(pod: {
  spec?: {
    containers?: {
      resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
    }[];
  };
}): boolean {
  return (pod.spec?.containers ?? []).some((container) => {
    const resources = { ...container.resources?.limits, ...container.resources?.requests };
    return (
      resources[VKE.coreResource] !== undefined ||
      resources[VKE.memoryResource] !== undefined ||
      resources[VKE.nvidiaResource] !== undefined
    );
  });
}
