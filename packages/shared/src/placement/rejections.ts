import { type ParamsOf, type Translate, translationOf, translator } from '../i18n.js';
import type { Lang } from '../rules.js';

/**
 * Why a node (or the pod itself) was turned down, as a language-free code with its parameters,
 * worded here once in both languages (`rejectionText`): the web app and the BFF's views in the
 * operator's language, the scheduler's Events in English (`rejectionMessage`) like
 * kube-scheduler. `reason` is the coarse constraint a code belongs to.
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

/** The coarse constraint a code belongs to; the message names the failing one exactly. */
export type RejectionReason =
  | 'invalid'
  | 'unschedulable'
  | 'resource-type'
  | 'policy'
  | 'model'
  | 'node-affinity'
  | 'pods'
  | 'cards'
  | 'idle-cards'
  | 'compute'
  | 'memory'
  | 'instance-limit'
  | 'fragmented';

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
  /** Free on the best node of the group: in total (`compute`), or per card on `cards` cards. */
  freeComputePercent?: number;
  freeMemoryMiB?: number;
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

/** A message's parameters, typed as `RejectionParams` types them. */
type Needs<Name extends keyof RejectionParams> = Readonly<Pick<Required<RejectionParams>, Name>>;

type ContainerNeeds = Needs<'container' | 'cards' | 'computePercent' | 'memoryMiB'>;

/** What the best node of the group has free, when the explanation could measure it. */
type Free = Readonly<Pick<RejectionParams, 'freeComputePercent' | 'freeMemoryMiB'>>;

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** `model` lists the models a node affinity allows, comma-separated. */
const anyOf = (models: string) => (models.includes(', ') ? `any of ${models}` : models);
const anyOfZh = (models: string) =>
  models.includes(', ') ? `${models.replaceAll(', ', '、')} 中的任何一种` : models;

const containerNeeds = (p: ContainerNeeds) =>
  `${p.container} needs ${plural(p.cards, 'distinct card')} with ${p.computePercent}% compute and ${p.memoryMiB} MiB free`;
const containerNeedsZh = (p: ContainerNeeds) =>
  `容器 ${p.container} 需要 ${p.cards} 张不同的卡各有 ${p.computePercent}% 空闲算力和 ${p.memoryMiB} MiB 空闲显存`;

/**
 * The rejections in zh-CN, the source language: one message per code, a template or (where the
 * wording chooses by a value) a function of that code's parameters.
 */
const zhCN = {
  'pod-invalid': 'Pod 的 GPU 配置违反规则 {rules}',
  'pod-policy-multi-card':
    '多卡共享要求 Pod 的算力分配策略为 native-burst-share，当前为 {podPolicy}',
  unschedulable: '节点已封锁或未就绪',
  'no-gpus': '节点没有 GPU，Pod 需要 {podTypes}',
  'resource-type': 'GPU 资源类型为 {nodeType}，Pod 需要 {podTypes}',
  'policy-multi-card': '算力分配策略 {nodePolicy} 不支持多卡共享（需要 native-burst-share）',
  policy: '算力分配策略 {nodePolicy} 与 Pod 的 {podPolicy} 不一致',
  model: (p: Needs<'nodeModel' | 'model'>) => `显卡类型是 ${p.nodeModel}，不是 ${anyOfZh(p.model)}`,
  'model-missing': (p: Needs<'model'>) => `节点没有显卡类型标签，Pod 需要 ${anyOfZh(p.model)}`,
  'node-selector': '节点选择器 {key}={value} 不匹配',
  'node-affinity': '节点亲和性不匹配',
  pods: '节点已运行 {maxPods} 个 Pod，已满',
  cards: '容器 {container} 需要 {cards} 张卡，这些节点只有 {nodeCards} 张',
  'idle-cards': '需要 {cards} 张空闲整卡',
  compute: (p: Needs<'computePercent'> & Free) =>
    p.freeComputePercent === undefined
      ? `空闲算力不足（需要 ${p.computePercent}%）`
      : `空闲算力不足：需要 ${p.computePercent}%，最空闲的节点只有 ${p.freeComputePercent}%`,
  memory: (p: Needs<'memoryMiB'> & Free) =>
    p.freeMemoryMiB === undefined
      ? `空闲显存不足（需要 ${p.memoryMiB} MiB）`
      : `空闲显存不足：需要 ${p.memoryMiB} MiB，最空闲的节点只有 ${p.freeMemoryMiB} MiB`,
  'instance-limit': '放不下 {instances} 个新的 mGPU 实例（每卡最多 {instancesPerCard} 个）',
  'container-idle-cards': (p: Needs<'container' | 'cards'>) =>
    `容器 ${p.container} 需要 ${p.cards} 张空闲整卡`,
  'container-compute': (p: ContainerNeeds & Free) =>
    `${containerNeedsZh(p)}，空闲算力足够的卡太少${
      p.freeComputePercent === undefined
        ? ''
        : `（最好的节点上 ${p.cards} 张卡各有 ${p.freeComputePercent}%）`
    }`,
  'container-memory': (p: ContainerNeeds & Free) =>
    `${containerNeedsZh(p)}，空闲显存足够的卡太少${
      p.freeMemoryMiB === undefined
        ? ''
        : `（最好的节点上 ${p.cards} 张卡各有 ${p.freeMemoryMiB} MiB）`
    }`,
  'container-instance-limit': (p: ContainerNeeds & Needs<'instancesPerCard'>) =>
    `${containerNeedsZh(p)}，mGPU 实例未满 ${p.instancesPerCard} 个的卡太少`,
  fragmented: '空闲算力和显存过于分散：没有一组卡能同时放下所有容器',
} as const;

/** The same in English, in kube-scheduler's manner ("policy X does not match Y"). */
const en = translationOf<typeof zhCN>()({
  'pod-invalid': "the pod's GPU request breaks {rules}",
  'pod-policy-multi-card':
    'multi-card sharing needs pod policy native-burst-share, pod has {podPolicy}',
  unschedulable: 'node is cordoned or not Ready',
  'no-gpus': 'node has no GPUs, pod needs {podTypes}',
  'resource-type': 'resource type {nodeType} does not match {podTypes}',
  'policy-multi-card':
    'policy {nodePolicy} does not allow multi-card sharing (needs native-burst-share)',
  policy: 'policy {nodePolicy} does not match {podPolicy}',
  model: (p) => `GPU model ${p.nodeModel} is not ${anyOf(p.model)}`,
  'model-missing': (p) => `node has no GPU model label, pod needs ${anyOf(p.model)}`,
  'node-selector': 'node selector {key}={value} does not match',
  'node-affinity': 'required node affinity does not match',
  pods: 'node already runs {maxPods} pods',
  cards: '{container} needs {cards} cards, nodes have {nodeCards}',
  'idle-cards': 'needs {cards} idle whole cards',
  compute: (p) =>
    p.freeComputePercent === undefined
      ? `not enough free compute (needs ${p.computePercent}%)`
      : `not enough free compute: needs ${p.computePercent}%, ${p.freeComputePercent}% free on the best node`,
  memory: (p) =>
    p.freeMemoryMiB === undefined
      ? `not enough free GPU memory (needs ${p.memoryMiB} MiB)`
      : `not enough free GPU memory: needs ${p.memoryMiB} MiB, ${p.freeMemoryMiB} MiB free on the best node`,
  'instance-limit': 'no room for {instances} more mGPU instances ({instancesPerCard} per card)',
  'container-idle-cards': (p) => `${p.container} needs ${plural(p.cards, 'idle whole card')}`,
  'container-compute': (p) =>
    `${containerNeeds(p)}: too few cards with ${p.computePercent}% compute free${
      p.freeComputePercent === undefined
        ? ''
        : ` (the best node has ${plural(p.cards, 'card')} with ${p.freeComputePercent}% each)`
    }`,
  'container-memory': (p) =>
    `${containerNeeds(p)}: too few cards with ${p.memoryMiB} MiB free${
      p.freeMemoryMiB === undefined
        ? ''
        : ` (the best node has ${plural(p.cards, 'card')} with ${p.freeMemoryMiB} MiB each)`
    }`,
  'container-instance-limit': (p) =>
    `${containerNeeds(p)}: too few cards under ${p.instancesPerCard} mGPU instances`,
  fragmented:
    'free compute and memory are fragmented: no set of cards fits every container at once',
});

type RejectionCatalog = typeof zhCN;

/** Every code has a message, and every message is written from `RejectionParams` only. */
type ParamNames<Code extends RejectionCode> = keyof ParamsOf<RejectionCatalog[Code]>;
type UnknownParams = { [Code in RejectionCode]: Exclude<ParamNames<Code>, keyof RejectionParams> };
const CATALOG_CHECK: [
  UnknownParams[RejectionCode],
  Exclude<RejectionCode, keyof RejectionCatalog>,
] extends [never, never]
  ? true
  : never = true;
void CATALOG_CHECK;

/** Exactly the parameters a code's messages are written from: `{ nodeModel, model }` for `model`. */
export type RejectionParamsOf<Code extends RejectionCode> = Code extends RejectionCode
  ? Needs<Exclude<ParamNames<Code> & keyof RejectionParams, keyof Free>> &
      ([ParamNames<Code> & keyof Free] extends [never] ? unknown : Free)
  : never;

/**
 * What `rejectionText` takes: a known code its own parameters; a code only known at run time
 * (a `Rejection` from the wire) the parameters it carries.
 */
export type RejectionParamsFor<Code extends RejectionCode> = RejectionCode extends Code
  ? RejectionParams
  : RejectionParamsOf<Code>;

const REJECTION_TEXT: Record<Lang, Translate<RejectionCatalog>> = {
  'zh-CN': translator<RejectionCatalog>(zhCN),
  en: translator<RejectionCatalog>(en),
};

/** One rejection in the operator's language, from its code and parameters. */
export function rejectionText<Code extends RejectionCode>(
  code: Code,
  params: RejectionParamsFor<Code>,
  lang: Lang,
): string {
  // The signature typed the parameters per code; the catalog only needs them passed on.
  const words = REJECTION_TEXT[lang] as (code: RejectionCode, params: RejectionParams) => string;
  return words(code, params);
}

/**
 * Where the scheduler's Events keep kube-scheduler's "<node's value> does not match <pod's>"
 * line that `kubectl describe` readers and scripts know, while the console says what the
 * mismatch means for the request (`rejectionText`). Only this code words the two differently.
 */
const EVENT_WORDING: {
  readonly [Code in RejectionCode]?: (params: RejectionParamsOf<Code>) => string;
} = {
  'policy-multi-card': (p) =>
    `policy ${p.nodePolicy} does not match native-burst-share (multi-card sharing)`,
};

/** The English words of one rejection for the scheduler's Events and `describeRejections`. */
export function rejectionMessage<Code extends RejectionCode>(
  code: Code,
  params: RejectionParamsFor<Code>,
): string {
  const event = EVENT_WORDING[code] as ((params: RejectionParams) => string) | undefined;
  return event ? event(params) : rejectionText(code, params, 'en');
}

interface GroupedRejection {
  /** The node group, or `pod` for a rejection of the pod itself. */
  group: string;
  /** Absent for an operator who may not list nodes (spec §8): the line then names no count. */
  nodes?: readonly string[];
  code: RejectionCode;
  params: RejectionParams;
}

const IN_GROUP_ZH = {
  line: '{count} 个 {group} 节点：{message}',
  uncounted: '{group} 节点：{message}',
} as const;
const IN_GROUP: Record<Lang, Translate<typeof IN_GROUP_ZH>> = {
  'zh-CN': translator<typeof IN_GROUP_ZH>(IN_GROUP_ZH),
  en: translator<typeof IN_GROUP_ZH>(
    translationOf<typeof IN_GROUP_ZH>()({
      line: '{count} node(s) of {group}: {message}',
      uncounted: 'nodes of {group}: {message}',
    }),
  ),
};

/**
 * One rejection as a console line: "3 node(s) of NVIDIA-L20/fixed-share: …" ("nodes of …" when
 * the nodes are withheld); a rejection of the pod itself holds for every node, so it has no
 * group or count to name.
 */
export function rejectionLine(rejection: GroupedRejection, lang: Lang): string {
  const message = rejectionText(rejection.code, rejection.params, lang);
  if (rejection.group === 'pod') return message;
  const { group, nodes } = rejection;
  return nodes === undefined
    ? IN_GROUP[lang]('uncounted', { group, message })
    : IN_GROUP[lang]('line', { count: nodes.length, group, message });
}
