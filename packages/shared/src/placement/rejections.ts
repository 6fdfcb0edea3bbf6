import type { RejectionReason } from './types.js';

/**
 * Why a node (or the pod itself) was turned down, as a language-free code with its parameters:
 * the web app words them in the operator's language from its catalogs, the scheduler in English
 * (`rejectionMessage`) like kube-scheduler. `reason` is the coarse constraint a code belongs to.
 */
export const REJECTION_CODES = [
  'pod-invalid',
  'pod-policy-multi-card',
  'unschedulable',
  'no-gpus',
  'resource-type',
  'policy-multi-card',
  'policy',
  'model',
  'model-missing',
  'node-selector',
  'node-affinity',
  'pods',
  'cards',
  'idle-cards',
  'compute',
  'memory',
  'instance-limit',
  'container-idle-cards',
  'container-compute',
  'container-memory',
  'container-instance-limit',
  'fragmented',
] as const;

export type RejectionCode = (typeof REJECTION_CODES)[number];

/** The values a code's message is written from; model, policy and container names stay as they are. */
export interface RejectionParams {
  /** Rule ids a pod's own GPU request breaks, comma-separated. */
  rules?: string;
  podPolicy?: string;
  nodePolicy?: string;
  /** The pod's GPU resource types, `mgpu+nvidia` style. */
  podTypes?: string;
  nodeType?: string;
  /** The model(s) the pod asks for, comma-separated when the affinity allows several. */
  model?: string;
  nodeModel?: string;
  key?: string;
  value?: string;
  maxPods?: number;
  container?: string;
  cards?: number;
  nodeCards?: number;
  computePercent?: number;
  memoryMiB?: number;
  instances?: number;
  /** The public scheduler's limit of mGPU instances on one card. */
  instancesPerCard?: number;
}

/** Which constraint each code reports: the grouping the scheduler and preview share. */
export const REJECTION_REASON: Record<RejectionCode, RejectionReason> = {
  'pod-invalid': 'invalid',
  'pod-policy-multi-card': 'policy',
  unschedulable: 'unschedulable',
  'no-gpus': 'resource-type',
  'resource-type': 'resource-type',
  'policy-multi-card': 'policy',
  policy: 'policy',
  model: 'model',
  'model-missing': 'model',
  'node-selector': 'node-affinity',
  'node-affinity': 'node-affinity',
  pods: 'pods',
  cards: 'cards',
  'idle-cards': 'idle-cards',
  compute: 'compute',
  memory: 'memory',
  'instance-limit': 'instance-limit',
  'container-idle-cards': 'idle-cards',
  'container-compute': 'compute',
  'container-memory': 'memory',
  'container-instance-limit': 'instance-limit',
  fragmented: 'fragmented',
};

/** Percents keep at most two decimals in messages (1/3 of a card reads 33.33). */
export const roundPercent = (value: number) => Math.round(value * 100) / 100;

const plural = (count: number | undefined, word: string) =>
  `${count} ${word}${count === 1 ? '' : 's'}`;

const anyOf = (models: string | undefined) =>
  models?.includes(', ') ? `any of ${models}` : (models ?? '');

function containerNeeds(params: RejectionParams): string {
  return `${params.container} needs ${plural(params.cards, 'distinct card')} with ${
    params.computePercent
  }% compute and ${params.memoryMiB} MiB free`;
}

/** The English words of one rejection, in the manner of kube-scheduler's messages. */
export function rejectionMessage(code: RejectionCode, params: RejectionParams): string {
  switch (code) {
    case 'pod-invalid':
      return `the pod's GPU request breaks ${params.rules}`;
    case 'pod-policy-multi-card':
      return `multi-card sharing needs pod policy native-burst-share, pod has ${params.podPolicy}`;
    case 'unschedulable':
      return 'node is cordoned or not Ready';
    case 'no-gpus':
      return `node has no GPUs, pod needs ${params.podTypes}`;
    case 'resource-type':
      return `resource type ${params.nodeType} does not match ${params.podTypes}`;
    case 'policy-multi-card':
      return `policy ${params.nodePolicy} does not match native-burst-share (multi-card sharing)`;
    case 'policy':
      return `policy ${params.nodePolicy} does not match ${params.podPolicy}`;
    case 'model':
      return `GPU model ${params.nodeModel} is not ${anyOf(params.model)}`;
    case 'model-missing':
      return `node has no GPU model label, pod needs ${anyOf(params.model)}`;
    case 'node-selector':
      return `node selector ${params.key}=${params.value} does not match`;
    case 'node-affinity':
      return 'required node affinity does not match';
    case 'pods':
      return `node already runs ${params.maxPods} pods`;
    case 'cards':
      return `${params.container} needs ${params.cards} cards, nodes have ${params.nodeCards}`;
    case 'idle-cards':
      return `needs ${params.cards} idle whole cards`;
    case 'compute':
      return `not enough free compute (needs ${params.computePercent}%)`;
    case 'memory':
      return `not enough free GPU memory (needs ${params.memoryMiB} MiB)`;
    case 'instance-limit':
      return `no room for ${params.instances} more mGPU instances (${params.instancesPerCard} per card)`;
    case 'container-idle-cards':
      return `${params.container} needs ${plural(params.cards, 'whole card')}`;
    case 'container-compute':
      return `${containerNeeds(params)}: too few cards with ${params.computePercent}% compute free`;
    case 'container-memory':
      return `${containerNeeds(params)}: too few cards with ${params.memoryMiB} MiB free`;
    case 'container-instance-limit':
      return `${containerNeeds(params)}: too few cards under ${params.instancesPerCard} mGPU instances`;
    case 'fragmented':
      return 'free compute and memory are fragmented: no set of cards fits every container at once';
  }
}
