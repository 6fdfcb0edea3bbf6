import { VKE } from './vke.js';

/**
 * Every rule id the console reports. The first block is spec §3's table; the rest are the
 * ordinary Kubernetes rules and the few shape rules the form needs (short kebab-case ids).
 */
export const MGPU_RULES = [
  'compute-format',
  'compute-whole-cards',
  'cards-range',
  'per-card-compute-precision',
  'per-card-compute-max',
  'memory-required',
  'memory-with-whole-card',
  'per-card-memory-integer',
  'per-card-memory-range',
  'multi-card-policy',
  'annotation-key-too-long',
  'model-unknown',
  'per-card-memory-exceeds-model',
  'cards-exceed-node',
] as const;

export const KUBERNETES_RULES = [
  'name-format',
  'namespace-format',
  'containers-required',
  'container-name-format',
  'container-name-unique',
  'image-required',
  'replicas-range',
  'compute-policy-unknown',
  'multi-card-mgpu-only',
  'model-conflict',
  'requests-equal-limits',
  'replicas-exceed-cluster',
  'namespace-reserved',
  'image-reference',
  'name-too-long',
  'containers-max',
  'quota-exceeded',
  'statefulset-name',
] as const;

export type MgpuRuleId = (typeof MGPU_RULES)[number];
export type KubernetesRuleId = (typeof KUBERNETES_RULES)[number];
export type RuleId = MgpuRuleId | KubernetesRuleId;

/** The rules that need the cluster's GPU inventory (spec §3, "cluster-aware only"). */
export const CLUSTER_AWARE_RULES: readonly RuleId[] = [
  'model-unknown',
  'per-card-memory-exceeds-model',
  'cards-exceed-node',
  'replicas-exceed-cluster',
  'quota-exceeded',
];

export const LANGS = ['zh-CN', 'en'] as const;
export type Lang = (typeof LANGS)[number];

export function isLang(value: string): value is Lang {
  return (LANGS as readonly string[]).includes(value);
}

/** Per-card memory bounds in MiB, inclusive (spec §3 `per-card-memory-range`). */
export const PER_CARD_MEMORY_MIN_MIB = 1024;
export const PER_CARD_MEMORY_MAX_MIB = 81920;
/** Kubernetes limits: a qualified name's name part, its DNS prefix, a label value. */
export const MAX_ANNOTATION_NAME_PART = 63;
export const MAX_ANNOTATION_PREFIX = 253;
export const MAX_LABEL_VALUE = 63;

/** The name part (after the `/`) of an annotation key or key prefix. */
export const annotationNamePart = (key: string) => key.slice(key.indexOf('/') + 1);

/** The longest container name whose `<prefix><name>` key keeps a name part of ≤ 63 characters. */
const longestNameFor = (prefix: string) =>
  MAX_ANNOTATION_NAME_PART - annotationNamePart(prefix).length;

/** `vke.volcengine.com/multiple-mgpu-` plus the name must fit a 63-character key name (49). */
export const MAX_MULTI_CARD_CONTAINER_NAME = longestNameFor(VKE.multiCardAnnotationPrefix);
/**
 * The scheduler writes `vke.volcengine.com/gpu-index-container-<name>` for every GPU container,
 * single-card and nvidia too (spec §5): the tightest key, so a GPU container name ≤ 43.
 */
export const MAX_GPU_CONTAINER_NAME = Math.min(
  MAX_MULTI_CARD_CONTAINER_NAME,
  longestNameFor(VKE.gpuIndexAnnotationPrefix),
);

/**
 * A StatefulSet's name: its pods carry `controller-revision-hash: <name>-<hash>`, a label value
 * (≤ 63) whose hash has up to 10 characters, so a longer name gets pods the API server refuses
 * forever (kubernetes#64023).
 */
export const MAX_STATEFULSET_NAME = MAX_LABEL_VALUE - 11;

/** `replicas` is an int32 in the Deployment API. */
export const MAX_REPLICAS = 2147483647;
/** Namespaces of the cluster itself that a console workload must not land in. */
export const DEFAULT_RESERVED_NAMESPACES: readonly string[] = [
  'kube-system',
  'kube-public',
  'kube-node-lease',
];
/**
 * Containers per pod. Each GPU container of an mGPU pod is its own instance on every card it
 * uses, and a card holds at most 16 instances (spec §5), so a node of MAX_CARDS (8) cards could
 * in theory hold 16 × 8 = 128 single-card containers of one pod; no real pod comes near that.
 * 32 leaves room for sidecars and init-style helpers while keeping the form, the manifest and
 * every per-container check small; a request above it is a mistake, not a workload.
 */
export const MAX_CONTAINERS = 32;
/** The distribution reference grammar's limit on the repository name (domain and path). */
export const MAX_IMAGE_NAME = 255;

/** The parameters each rule's message is written from; both languages read the same ones. */
export interface RuleParams {
  'compute-format': {
    container: string;
    value: string;
    problem:
      | 'empty'
      | 'not-a-number'
      | 'below-minimum'
      | 'above-maximum'
      | 'slice-decimals'
      | 'above-one-decimals';
    suggestions: string[];
  };
  'compute-whole-cards': {
    container: string;
    value: string;
    wholeCards: string[];
    multiCard?: { cards: number; perCardPercent: number };
  };
  'cards-range': { container: string; value: string };
  'per-card-compute-precision': {
    container: string;
    compute: string;
    cards: number;
    perCardPercent: string;
    computeSuggestions: string[];
    cardSuggestions: number[];
  };
  'per-card-compute-max': {
    container: string;
    compute: string;
    cards: number;
    perCardPercent: string;
    cardsNeeded?: number;
    maxCompute: string;
  };
  'memory-required': {
    container: string;
    value: string;
    perCardPercent?: number;
    minimumGiB: string;
  };
  'memory-with-whole-card': { container: string; value: string };
  'per-card-memory-integer': {
    container: string;
    memoryGiB: string;
    cards: number;
    perCardMiB: string;
    suggestions: string[];
  };
  'per-card-memory-range': {
    container: string;
    memoryGiB: string;
    cards: number;
    perCardMiB: string;
    problem: 'too-small' | 'too-large';
    boundGiB: string;
    cardsSuggestion?: number;
  };
  'multi-card-policy': { containers: string[]; policy?: string };
  'annotation-key-too-long': {
    container: string;
    length: number;
    /** The key prefix that is too long with this name, e.g. `vke.volcengine.com/gpu-index-container-`. */
    prefix: string;
    max: number;
  };
  'model-unknown': { container: string; model: string; known: string[] };
  'per-card-memory-exceeds-model': {
    container: string;
    model?: string;
    perCardMiB: number;
    modelMiB: number;
    cardsSuggestion?: number;
    maxGiB: string;
  };
  'cards-exceed-node': {
    container: string;
    /** The field the card count comes from: `cards`, or `compute` for whole cards without sharing. */
    field: 'cards' | 'compute';
    cards: number;
    model?: string;
    policy?: string;
    maxCards: number;
  };
  'name-format': { value: string; suggestion?: string };
  'namespace-format': { value: string; suggestion?: string };
  'containers-required': Record<string, never>;
  'container-name-format': { value: string; suggestion?: string };
  'container-name-unique': { value: string };
  'image-required': { container: string };
  'replicas-range': { value: number };
  'compute-policy-unknown': { value: string };
  'multi-card-mgpu-only': { container: string; type: string };
  'model-conflict': { container: string; model: string; other: string };
  'requests-equal-limits': { container: string; resource: string };
  'replicas-exceed-cluster': {
    value: number;
    /** The most pods of this shape the whole cluster could hold if it were empty. */
    max: number;
    model?: string;
    /**
     * Present when the bound is the nodes' allocatable pods (summed over this many nodes), not
     * the GPU shape: a pod without GPUs is bounded only by that.
     */
    nodes?: number;
  };
  'namespace-reserved': { value: string; reserved: string[] };
  'image-reference': {
    container: string;
    value: string;
    problem:
      | 'invisible'
      | 'whitespace'
      | 'uppercase'
      | 'too-long'
      | 'bad-tag'
      | 'bad-digest'
      | 'bad-format';
  };
  'name-too-long': { value: string; length: number; max: number };
  'containers-max': { count: number; max: number };
  'statefulset-name': {
    value: string;
    /** `dns-1035`: its headless Service takes the name, which must start with a letter, no dots. */
    problem: 'dns-1035' | 'too-long';
    length: number;
    max: number;
    suggestion?: string;
  };
  'quota-exceeded': {
    namespace: string;
    /** The ResourceQuota's name. */
    quota: string;
    /** The first container that asks for the resource, and the field it is typed into. */
    container: string;
    field: 'compute' | 'memoryGiB' | 'cards';
    /** The quota resource, e.g. `requests.vke.volcengine.com/mgpu-core`. */
    resource: string;
    replicas: number;
    /** What one pod is charged (the manifest's requests, multi-card totals included). */
    perPod: number;
    /** replicas × perPod. */
    requested: number;
    used: number;
    limit: number;
    /** The most one pod may ask for at this replica count (limit − used) / replicas, rounded down. */
    maxPerPod: number;
    /** The most pods of this request the quota still takes. */
    maxReplicas: number;
    /**
     * Only when the request fits once rolled out but not during an edit's rolling update
     * (`requested` is then its peak): the Deployment's maxSurge and the largest one that fits.
     */
    surge?: { maxSurge: number; fits: number };
  };
}

/** A rule broken at a path of the request, before it is put into words. */
export type Violation = {
  [R in RuleId]: { rule: R; path: string; params: RuleParams[R] };
}[RuleId];

/** A value typed into one request field: text, a count, or a toggle. */
export type FieldValue = string | number | boolean;

/** One field of the request set to a value, by its path (`containers.0.gpu.compute`). */
export interface FieldChange {
  path: string;
  value: FieldValue;
}

/** One suggested fix: every change it makes, applied together (made in `fixes.ts`). */
export interface SuggestedFix {
  changes: FieldChange[];
}

/** A broken rule as the check result reports it (spec §7). */
export interface RuleError {
  path: string;
  rule: RuleId;
  message: string;
  fix?: string;
  /** The fixes the words suggest, as field changes a form can apply (`fixes.ts`). */
  fixes?: SuggestedFix[];
}
