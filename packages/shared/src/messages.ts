import { cardsText } from './card-shares.js';
import { type Translate, translator } from './i18n.js';
import { QUOTA_CORE, QUOTA_MEMORY } from './quota.js';
import { MAX_CARDS } from './request.js';
import type { Lang, RuleId, RuleParams, Violation } from './rules.js';
import { MAX_IMAGE_NAME, PER_CARD_MEMORY_MAX_MIB, PER_CARD_MEMORY_MIN_MIB } from './rules.js';

export interface RuleText {
  message: string;
  fix?: string;
}

const IMAGE_PROBLEM_EN: Record<RuleParams['image-reference']['problem'], string> = {
  invisible: 'contains an invisible character (zero-width or control); retype it.',
  whitespace: 'contains a space, tab or line break.',
  uppercase: 'has uppercase letters in its repository path; only the registry host may have them.',
  'too-long': `has a repository name longer than ${MAX_IMAGE_NAME} characters.`,
  'bad-tag':
    'has a tag that is not 1–128 letters, digits, "_", "." or "-" (starting with a letter, digit or "_").',
  'bad-digest': 'has a digest that is not algorithm:hex (e.g. sha256: and 64 hex digits).',
  'bad-format':
    'is not an image reference: lowercase path components separated by "/", joined by ".", "_", "__" or "-".',
};
const IMAGE_PROBLEM_ZH: Record<RuleParams['image-reference']['problem'], string> = {
  invisible: '含有不可见字符（零宽或控制字符），请重新输入。',
  whitespace: '含有空格、制表符或换行。',
  uppercase: '的仓库路径含有大写字母；只有镜像仓库主机名可以有大写。',
  'too-long': `的仓库名超过 ${MAX_IMAGE_NAME} 个字符。`,
  'bad-tag': '的标签不是 1–128 个字母、数字、“_”、“.”或“-”（以字母、数字或“_”开头）。',
  'bad-digest': '的摘要不是 算法:十六进制 的形式（例如 sha256: 加 64 位十六进制）。',
  'bad-format':
    '不是合法的镜像引用：路径各段为小写字母数字，以“/”分隔，段内用“.”、“_”、“__”或“-”连接。',
};

/**
 * The rule messages on the console's one i18n mechanism (`i18n.ts`): one message per rule id, a
 * function of that rule's own parameters (its wording chooses by them). Each language is typed
 * by this, so a missing rule or translation does not compile.
 */
type RuleCatalog = { readonly [R in RuleId]: (params: RuleParams[R]) => RuleText };

/** Field labels exactly as the form shows them (spec §7), so a message names what to change. */
export const FIELD_LABELS = {
  'zh-CN': {
    gpuType: 'GPU 资源类型',
    multiCard: '多卡共享',
    compute: 'GPU 算力',
    memory: 'GPU 显存',
    cards: 'GPU 卡数',
    model: '显卡类型',
    computePolicy: '算力分配策略',
    name: '名称',
    namespace: '命名空间',
    replicas: '副本数',
    containerName: '容器名称',
    image: '镜像',
  },
  en: {
    gpuType: 'GPU resource type',
    multiCard: 'Multi-card sharing',
    compute: 'GPU compute',
    memory: 'GPU memory',
    cards: 'GPU cards',
    model: 'GPU model',
    computePolicy: 'Compute policy',
    name: 'Name',
    namespace: 'Namespace',
    replicas: 'Replicas',
    containerName: 'Container name',
    image: 'Image',
  },
} as const satisfies Record<Lang, Record<string, string>>;

const en = FIELD_LABELS.en;
const zh = FIELD_LABELS['zh-CN'];

const enOf = (field: string, container: string) => `${field} of container "${container}"`;
const zhOf = (field: string, container: string) => `容器 ${container} 的${field}`;
const enList = (items: readonly (string | number)[], word = 'or') =>
  items.length <= 1
    ? items.join('')
    : `${items.slice(0, -1).join(', ')} ${word} ${items[items.length - 1]}`;
const zhList = (items: readonly (string | number)[], word = '或') =>
  items.length <= 1
    ? items.join('')
    : `${items.slice(0, -1).join('、')} ${word} ${items[items.length - 1]}`;
const QUOTA_FIELD_LABEL = { compute: 'compute', memoryGiB: 'memory', cards: 'cards' } as const;
/** A quota amount in its unit: mgpu-core is percent of one card, mgpu-memory MiB. */
const quotaEn = (resource: string, n: number) =>
  resource === QUOTA_CORE
    ? `${n} (${n === 100 ? '1 card' : `${cardsText(n)} cards`})`
    : resource === QUOTA_MEMORY
      ? `${n} MiB`
      : String(n);
const quotaZh = (resource: string, n: number) =>
  resource === QUOTA_CORE
    ? `${n}（${cardsText(n)} 张卡）`
    : resource === QUOTA_MEMORY
      ? `${n} MiB`
      : String(n);
const cardsEn = (n: number) => (n === 1 ? '1 card' : `${n} cards`);
/** Compute is counted in cards: "1 card", "1.2 cards". */
const computeEn = (compute: string) => (compute.trim() === '1' ? '1 card' : `${compute} cards`);

const english: RuleCatalog = {
  'compute-format': ({ container, value, problem, suggestions }) => {
    const field = enOf(en.compute, container);
    const fix = suggestions.length > 0 ? `Try ${enList(suggestions)}.` : undefined;
    switch (problem) {
      case 'empty':
        return {
          message: `${field} is required for an mGPU container.`,
          fix: 'Enter a number of cards such as 0.5, 1.2 or 2.',
        };
      case 'not-a-number':
        return {
          message: `${field} must be a decimal number of cards, not "${value}".`,
          fix: fix ?? 'Enter a number such as 0.5, 1.2 or 2.',
        };
      case 'below-minimum':
        return {
          message: `${field} is ${value}; the smallest share is 0.01 of a card.`,
          fix: 'Use at least 0.01.',
        };
      case 'above-maximum':
        return {
          message: `${field} is ${value}; that is far more cards than any node has.`,
          fix: `Use at most ${MAX_CARDS}.`,
        };
      case 'slice-decimals':
        return {
          message: `${field} is ${value}; from 0.01 to 1 it may have at most two decimals.`,
          ...(fix ? { fix } : {}),
        };
      case 'above-one-decimals':
        return {
          message: `${field} is ${value}; above 1 it may have at most one decimal.`,
          ...(fix ? { fix } : {}),
        };
    }
  },
  'compute-whole-cards': ({ container, value, wholeCards, multiCard }) => ({
    message: `${enOf(en.compute, container)} is ${value}: without multi-card sharing, more than 1 card must be whole cards.`,
    fix:
      `Use ${enList(wholeCards)}` +
      (multiCard
        ? `, or turn on multi-card sharing with ${cardsEn(multiCard.cards)} (${multiCard.perCardPercent}% each).`
        : '.'),
  }),
  'cards-range': ({ container, value }) => ({
    message: `${enOf(en.cards, container)} must be a whole number from 1 to ${MAX_CARDS}${value === '' ? '' : `, not "${value}"`}.`,
    fix: `Choose 1 to ${MAX_CARDS} cards.`,
  }),
  'per-card-compute-precision': ({
    container,
    compute,
    cards,
    perCardPercent,
    computeSuggestions,
    cardSuggestions,
  }) => ({
    message: `${enOf(en.compute, container)}: ${computeEn(compute)} over ${cardsEn(cards)} gives ${perCardPercent}% per card; per-card compute must be a multiple of 0.01 (1%).`,
    fix: `${[
      computeSuggestions.length > 0 ? `try ${enList(computeSuggestions)}` : '',
      cardSuggestions.length > 0 ? `use ${enList(cardSuggestions)} cards` : '',
    ]
      .filter(Boolean)
      .join(', or ')
      .replace(/^./, (first) => first.toUpperCase())}.`,
  }),
  'per-card-compute-max': ({
    container,
    compute,
    cards,
    perCardPercent,
    cardsNeeded,
    maxCompute,
  }) => ({
    message: `${enOf(en.compute, container)}: ${computeEn(compute)} over ${cardsEn(cards)} gives ${perCardPercent}% per card; a card gives at most 100%.`,
    fix: cardsNeeded
      ? `Use ${cardsNeeded} cards, or at most ${maxCompute} of compute.`
      : `Use at most ${maxCompute} of compute.`,
  }),
  'memory-required': ({ container, value, perCardPercent, minimumGiB }) => ({
    message:
      value.trim() === ''
        ? `${enOf(en.memory, container)} is required${perCardPercent === undefined ? '' : `: ${perCardPercent}% per card is a slice of a card`}.`
        : /^[\d.]+…$/.test(value)
          ? `${enOf(en.memory, container)} has too many digits to be a number of GiB.`
          : `${enOf(en.memory, container)} must be a number of GiB greater than 0, not "${value}".`,
    fix: `Enter at least ${minimumGiB} GiB (1024 MiB per card).`,
  }),
  'memory-with-whole-card': ({ container }) => ({
    message: `${enOf(en.memory, container)} must be empty: whole cards bring all their memory.`,
    fix: `Clear ${en.memory}, or ask for less than 1 card per card of compute.`,
  }),
  'per-card-memory-integer': ({ container, memoryGiB, cards, perCardMiB, suggestions }) => ({
    message: `${enOf(en.memory, container)}: ${memoryGiB} GiB over ${cardsEn(cards)} gives ${perCardMiB} MiB per card; it must be a whole number of MiB.`,
    ...(suggestions.length > 0
      ? { fix: `Try ${enList(suggestions.map((s) => `${s} GiB`))}.` }
      : {}),
  }),
  'per-card-memory-range': ({
    container,
    memoryGiB,
    cards,
    perCardMiB,
    problem,
    boundGiB,
    cardsSuggestion,
  }) => ({
    message: `${enOf(en.memory, container)}: ${memoryGiB} GiB over ${cardsEn(cards)} gives ${perCardMiB} MiB per card; each card needs ${PER_CARD_MEMORY_MIN_MIB}–${PER_CARD_MEMORY_MAX_MIB} MiB.`,
    fix:
      problem === 'too-small'
        ? `Use at least ${boundGiB} GiB${cardsSuggestion ? `, or ${cardsEn(cardsSuggestion)}` : ''}.`
        : `Use at most ${boundGiB} GiB${cardsSuggestion ? `, or ${cardsEn(cardsSuggestion)}` : ''}.`,
  }),
  'multi-card-policy': ({ containers, policy }) => ({
    message: `${en.computePolicy} must be native-burst-share for multi-card sharing (container ${enList(
      containers.map((c) => `"${c}"`),
      'and',
    )})${policy ? `, not ${policy}` : ''}.`,
    fix: `Set ${en.computePolicy} to native-burst-share, or turn off ${en.multiCard}.`,
  }),
  'annotation-key-too-long': ({ container, length, prefix, max }) => ({
    message: `${en.containerName} "${container}" has ${length} characters; the scheduler writes the annotation key ${prefix}<name> for every GPU container, and its name part allows a container name of at most ${max}.`,
    fix: `Shorten the container name to ${max} characters or fewer.`,
  }),
  'model-unknown': ({ container, model, known }) => ({
    message: `${enOf(en.model, container)}: no node in the cluster has the model ${model}.`,
    fix:
      known.length > 0
        ? `Choose ${enList(known)}, or leave it empty for any model.`
        : 'Leave it empty for any model.',
  }),
  'per-card-memory-exceeds-model': ({
    container,
    model,
    perCardMiB,
    modelMiB,
    cardsSuggestion,
    maxGiB,
  }) => ({
    message: `${enOf(en.memory, container)}: ${perCardMiB} MiB per card is more than ${model ? model : 'any model in the cluster'} has (${modelMiB} MiB per card).`,
    fix: `Use at most ${maxGiB} GiB${cardsSuggestion ? `, or ${cardsEn(cardsSuggestion)} with multi-card sharing` : ''}.`,
  }),
  'cards-exceed-node': ({ container, field, cards, model, policy, maxCards }) => ({
    message:
      maxCards === 0
        ? `${enOf(en[field], container)}: no node${model ? ` of model ${model}` : ''}${policy ? ` with policy ${policy}` : ''} exists for this request.`
        : `${enOf(en[field], container)}: ${cardsEn(cards)} is more than any node${model ? ` of model ${model}` : ''}${policy ? ` with policy ${policy}` : ''} has (${maxCards}).`,
    fix:
      maxCards === 0
        ? `Choose another ${en.model} or ${en.computePolicy}.`
        : `Use at most ${cardsEn(maxCards)}.`,
  }),
  'name-format': ({ value, suggestion }) => ({
    message:
      value === ''
        ? `${en.name} is required.`
        : `${en.name} "${value}" must be lowercase letters, digits, "-" or ".", start and end with a letter or digit, at most 253 characters.`,
    ...(suggestion ? { fix: `Try "${suggestion}".` } : {}),
  }),
  'namespace-format': ({ value, suggestion }) => ({
    message: `${en.namespace} "${value}" must be lowercase letters, digits or "-", start and end with a letter or digit, at most 63 characters.`,
    ...(suggestion ? { fix: `Try "${suggestion}".` } : {}),
  }),
  'containers-required': () => ({
    message: 'A workload needs at least one container.',
    fix: 'Add a container.',
  }),
  'container-name-format': ({ value, suggestion }) => ({
    message:
      value === ''
        ? `${en.containerName} is required.`
        : `${en.containerName} "${value}" must be lowercase letters, digits or "-", start and end with a letter or digit, at most 63 characters.`,
    ...(suggestion ? { fix: `Try "${suggestion}".` } : {}),
  }),
  'container-name-unique': ({ value }) => ({
    message: `${en.containerName} "${value}" is used by another container of this pod.`,
    fix: 'Give each container its own name.',
  }),
  'image-required': ({ container }) => ({
    message: `${en.image} of container "${container}" is required.`,
    fix: 'Enter an image such as nginx:1.27.',
  }),
  'replicas-range': ({ value }) => ({
    message: `${en.replicas} must be a whole number from 0 to 2147483647, not ${value}.`,
    fix: 'Use a whole number from 0 to 2147483647.',
  }),
  'replicas-exceed-cluster': ({ value, max, model, nodes }) =>
    nodes !== undefined
      ? {
          message: `${en.replicas} ${value}: the cluster's ${nodes} node${nodes === 1 ? '' : 's'} run at most ${max} pods together (the sum of their allocatable pods), even empty.`,
          fix: `At most ${max} replicas fit this cluster; lower ${en.replicas}.`,
        }
      : {
          message: `${en.replicas} ${value}: even empty, the cluster${model ? `'s ${model} nodes` : ''} could hold at most ${max} pods of this shape.`,
          fix: `At most ${max} replicas fit this cluster; lower ${en.replicas}, or ask for less per card.`,
        },
  'namespace-reserved': ({ value, reserved }) => ({
    message: `${en.namespace} "${value}" belongs to the cluster itself (${enList(reserved, 'and')}); workloads do not go there.`,
    fix: `Use another ${en.namespace}, such as default.`,
  }),
  'image-reference': ({ container, value, problem }) => ({
    message: `${en.image} of container "${container}" (${value}) ${IMAGE_PROBLEM_EN[problem]}`,
    fix: 'Write it as name[:tag][@digest], e.g. nginx:1.27 or registry.example.com/team/app:v1.',
  }),
  'name-too-long': ({ length, max }) => ({
    message: `${en.name} has ${length} characters; it is also the pods' label value, which allows at most ${max}.`,
    fix: `Shorten ${en.name} to ${max} characters or fewer.`,
  }),
  'containers-max': ({ count, max }) => ({
    message: `This workload has ${count} containers; a pod here takes at most ${max}.`,
    fix: `Remove containers until there are ${max} or fewer, or split the workload.`,
  }),
  'statefulset-name': ({ value, problem, length, max, suggestion }) => ({
    message:
      problem === 'dns-1035'
        ? `${en.name} "${value}" cannot name a StatefulSet: its headless Service takes the same name, and a Service's name must start with a letter and have no dots.`
        : `${en.name} has ${length} characters; a StatefulSet's pods carry the label controller-revision-hash: <name>-<hash of up to 10 characters>, so its name has at most ${max} (longer, its pods can never be created).`,
    fix: `${suggestion ? `Try "${suggestion}": ` : 'Use '}lowercase letters, digits and "-", a letter first, at most ${max} characters.`,
  }),
  'compute-policy-unknown': ({ value }) => ({
    message: `${en.computePolicy} "${value}" is not one of native-burst-share, fixed-share, guaranteed-burst-share.`,
    fix: 'Choose one of the three policies, or leave it empty.',
  }),
  'multi-card-mgpu-only': ({ container, type }) => ({
    message: `${en.multiCard} of container "${container}" works only with the mGPU resource type, not ${type}.`,
    fix: `Set ${en.gpuType} to mGPU, or turn off ${en.multiCard}.`,
  }),
  'model-conflict': ({ container, model, other }) => ({
    message: `${enOf(en.model, container)} is ${model}, but another container asks for ${other}; a pod runs on one node.`,
    fix: 'Choose the same model for every container, or leave it empty.',
  }),
  'requests-equal-limits': ({ container, resource }) => ({
    message: `Container "${container}" requests ${resource} differently from its limit; GPU requests must equal limits.`,
    fix: 'Set requests and limits to the same value.',
  }),
  'quota-exceeded': (p) =>
    p.surge !== undefined
      ? {
          message: `ResourceQuota "${p.quota}" of ${en.namespace} "${p.namespace}" limits ${p.resource} to ${quotaEn(p.resource, p.limit)}. ${p.replicas} replicas × ${p.perPod} fit once rolled out, but during the rolling update up to ${p.surge.maxSurge} more pod${p.surge.maxSurge === 1 ? '' : 's'} (maxSurge) run beside them and ${quotaEn(p.resource, p.requested)} is charged at its peak (${enOf(en[QUOTA_FIELD_LABEL[p.field]], p.container)}); the update would stall half-way.`,
          fix: `Lower the Deployment's spec.strategy.rollingUpdate.maxSurge to ${p.surge.fits}${p.surge.fits === 0 ? ' (with maxUnavailable at least 1)' : ''}, or have the quota raised (kubectl describe resourcequota ${p.quota} -n ${p.namespace}).`,
        }
      : quotaExceededEn(p),
};

const quotaExceededEn = (p: RuleParams['quota-exceeded']) => ({
  message: `ResourceQuota "${p.quota}" of ${en.namespace} "${p.namespace}" limits ${p.resource} to ${quotaEn(p.resource, p.limit)} and ${quotaEn(p.resource, p.used)} is used; ${p.replicas === 1 ? 'this pod asks for' : `${p.replicas} replicas × ${p.perPod} ask for`} ${quotaEn(p.resource, p.requested)} more (${enOf(en[QUOTA_FIELD_LABEL[p.field]], p.container)}).`,
  fix:
    p.maxPerPod > 0
      ? `Ask for at most ${quotaEn(p.resource, p.maxPerPod)} per pod${p.replicas > 1 && p.maxReplicas > 0 ? `, or run at most ${p.maxReplicas} replicas` : ''}, or have the quota raised (kubectl describe resourcequota ${p.quota} -n ${p.namespace}).`
      : `${p.maxReplicas > 0 ? `Run at most ${p.maxReplicas} replicas, free` : 'Nothing of it is left: free'} some of the quota, or have it raised (kubectl describe resourcequota ${p.quota} -n ${p.namespace}).`,
});

const zhCards = (n: number) => `${n} 张卡`;

const chinese: RuleCatalog = {
  'compute-format': ({ container, value, problem, suggestions }) => {
    const field = zhOf(zh.compute, container);
    const fix = suggestions.length > 0 ? `可改为 ${zhList(suggestions)}。` : undefined;
    switch (problem) {
      case 'empty':
        return {
          message: `${field}为必填项（mGPU 容器）。`,
          fix: '请填写卡数，例如 0.5、1.2 或 2。',
        };
      case 'not-a-number':
        return {
          message: `${field}必须是十进制数字，不能是“${value}”。`,
          fix: fix ?? '请填写数字，例如 0.5、1.2 或 2。',
        };
      case 'below-minimum':
        return {
          message: `${field}为 ${value}，最小为 0.01 张卡。`,
          fix: '请填写不小于 0.01 的值。',
        };
      case 'above-maximum':
        return {
          message: `${field}为 ${value}，远超任何节点的卡数。`,
          fix: `请填写不超过 ${MAX_CARDS} 的值。`,
        };
      case 'slice-decimals':
        return {
          message: `${field}为 ${value}；0.01～1 之间最多两位小数。`,
          ...(fix ? { fix } : {}),
        };
      case 'above-one-decimals':
        return { message: `${field}为 ${value}；大于 1 时最多一位小数。`, ...(fix ? { fix } : {}) };
    }
  },
  'compute-whole-cards': ({ container, value, wholeCards, multiCard }) => ({
    message: `${zhOf(zh.compute, container)}为 ${value}：未开启多卡共享时，超过 1 张卡必须为整卡（正整数）。`,
    fix:
      `可改为 ${zhList(wholeCards)}` +
      (multiCard
        ? `，或开启多卡共享并使用 ${zhCards(multiCard.cards)}（每卡 ${multiCard.perCardPercent}%）。`
        : '。'),
  }),
  'cards-range': ({ container, value }) => ({
    message: `${zhOf(zh.cards, container)}必须是 1～${MAX_CARDS} 的整数${value === '' ? '' : `，不能是“${value}”`}。`,
    fix: `请选择 1～${MAX_CARDS} 张卡。`,
  }),
  'per-card-compute-precision': ({
    container,
    compute,
    cards,
    perCardPercent,
    computeSuggestions,
    cardSuggestions,
  }) => ({
    message: `${zhOf(zh.compute, container)}：${compute} 分到 ${zhCards(cards)}，每卡 ${perCardPercent}%；单卡算力的精度不能超过 0.01（1%）。`,
    fix: `${[
      computeSuggestions.length > 0 ? `将算力改为 ${zhList(computeSuggestions)}` : '',
      cardSuggestions.length > 0 ? `使用 ${zhList(cardSuggestions)} 张卡` : '',
    ]
      .filter(Boolean)
      .join('，或')}。`.replace(/^/, '可'),
  }),
  'per-card-compute-max': ({
    container,
    compute,
    cards,
    perCardPercent,
    cardsNeeded,
    maxCompute,
  }) => ({
    message: `${zhOf(zh.compute, container)}：${compute} 分到 ${zhCards(cards)}，每卡 ${perCardPercent}%；单卡最多 100%。`,
    fix: cardsNeeded
      ? `请使用 ${zhCards(cardsNeeded)}，或将算力改为不超过 ${maxCompute}。`
      : `请将算力改为不超过 ${maxCompute}。`,
  }),
  'memory-required': ({ container, value, perCardPercent, minimumGiB }) => ({
    message:
      value.trim() === ''
        ? `${zhOf(zh.memory, container)}为必填项${perCardPercent === undefined ? '' : `：每卡 ${perCardPercent}% 算力只占部分卡`}。`
        : /^[\d.]+…$/.test(value)
          ? `${zhOf(zh.memory, container)}位数过多，不是有效的 GiB 数。`
          : `${zhOf(zh.memory, container)}必须是大于 0 的 GiB 数，不能是“${value}”。`,
    fix: `请填写至少 ${minimumGiB} GiB（每卡 1024 MiB）。`,
  }),
  'memory-with-whole-card': ({ container }) => ({
    message: `${zhOf(zh.memory, container)}必须留空：整卡自带全部显存。`,
    fix: `请清空${zh.memory}，或将单卡算力改为小于 1。`,
  }),
  'per-card-memory-integer': ({ container, memoryGiB, cards, perCardMiB, suggestions }) => ({
    message: `${zhOf(zh.memory, container)}：${memoryGiB} GiB 分到 ${zhCards(cards)}，每卡 ${perCardMiB} MiB；单卡显存换算成 MiB 后必须为整数。`,
    ...(suggestions.length > 0
      ? { fix: `可改为 ${zhList(suggestions.map((s) => `${s} GiB`))}。` }
      : {}),
  }),
  'per-card-memory-range': ({
    container,
    memoryGiB,
    cards,
    perCardMiB,
    problem,
    boundGiB,
    cardsSuggestion,
  }) => ({
    message: `${zhOf(zh.memory, container)}：${memoryGiB} GiB 分到 ${zhCards(cards)}，每卡 ${perCardMiB} MiB；单卡显存需在 ${PER_CARD_MEMORY_MIN_MIB}～${PER_CARD_MEMORY_MAX_MIB} MiB 之间。`,
    fix:
      problem === 'too-small'
        ? `请填写至少 ${boundGiB} GiB${cardsSuggestion ? `，或使用 ${zhCards(cardsSuggestion)}` : ''}。`
        : `请填写不超过 ${boundGiB} GiB${cardsSuggestion ? `，或使用 ${zhCards(cardsSuggestion)}` : ''}。`,
  }),
  'multi-card-policy': ({ containers, policy }) => ({
    message: `多卡共享（容器 ${zhList(containers, '、')}）要求${zh.computePolicy}为 native-burst-share${policy ? `，当前为 ${policy}` : ''}。`,
    fix: `请将${zh.computePolicy}设为 native-burst-share，或关闭${zh.multiCard}。`,
  }),
  'annotation-key-too-long': ({ container, length, prefix, max }) => ({
    message: `${zh.containerName}“${container}”有 ${length} 个字符；调度器会为每个 GPU 容器写入注解键 ${prefix}<名称>，其名称部分只允许不超过 ${max} 个字符的容器名称。`,
    fix: `请将容器名称缩短到 ${max} 个字符以内。`,
  }),
  'model-unknown': ({ container, model, known }) => ({
    message: `${zhOf(zh.model, container)}：集群中没有型号为 ${model} 的节点。`,
    fix:
      known.length > 0 ? `请选择 ${zhList(known)}，或留空表示不限型号。` : '请留空表示不限型号。',
  }),
  'per-card-memory-exceeds-model': ({
    container,
    model,
    perCardMiB,
    modelMiB,
    cardsSuggestion,
    maxGiB,
  }) => ({
    message: `${zhOf(zh.memory, container)}：每卡 ${perCardMiB} MiB，超过${model ? ` ${model} ` : '集群中任何型号'}的单卡显存（${modelMiB} MiB）。`,
    fix: `请填写不超过 ${maxGiB} GiB${cardsSuggestion ? `，或开启多卡共享使用 ${zhCards(cardsSuggestion)}` : ''}。`,
  }),
  'cards-exceed-node': ({ container, field, cards, model, policy, maxCards }) => ({
    message:
      maxCards === 0
        ? `${zhOf(zh[field], container)}：集群中没有${model ? `型号为 ${model} ` : ''}${policy ? `策略为 ${policy} ` : ''}的节点可用于该请求。`
        : `${zhOf(zh[field], container)}：${zhCards(cards)}超过了${model ? `型号 ${model} ` : ''}${policy ? `策略 ${policy} ` : ''}节点的最大卡数（${maxCards}）。`,
    fix:
      maxCards === 0
        ? `请更换${zh.model}或${zh.computePolicy}。`
        : `请使用不超过 ${zhCards(maxCards)}。`,
  }),
  'name-format': ({ value, suggestion }) => ({
    message:
      value === ''
        ? `${zh.name}为必填项。`
        : `${zh.name}“${value}”只能包含小写字母、数字、“-”和“.”，以字母或数字开头和结尾，最多 253 个字符。`,
    ...(suggestion ? { fix: `可改为“${suggestion}”。` } : {}),
  }),
  'namespace-format': ({ value, suggestion }) => ({
    message: `${zh.namespace}“${value}”只能包含小写字母、数字和“-”，以字母或数字开头和结尾，最多 63 个字符。`,
    ...(suggestion ? { fix: `可改为“${suggestion}”。` } : {}),
  }),
  'containers-required': () => ({ message: '工作负载至少需要一个容器。', fix: '请添加容器。' }),
  'container-name-format': ({ value, suggestion }) => ({
    message:
      value === ''
        ? `${zh.containerName}为必填项。`
        : `${zh.containerName}“${value}”只能包含小写字母、数字和“-”，以字母或数字开头和结尾，最多 63 个字符。`,
    ...(suggestion ? { fix: `可改为“${suggestion}”。` } : {}),
  }),
  'container-name-unique': ({ value }) => ({
    message: `${zh.containerName}“${value}”已被本 Pod 的其他容器使用。`,
    fix: '请为每个容器取不同的名称。',
  }),
  'image-required': ({ container }) => ({
    message: `容器 ${container} 的${zh.image}为必填项。`,
    fix: '请填写镜像，例如 nginx:1.27。',
  }),
  'replicas-range': ({ value }) => ({
    message: `${zh.replicas}必须是 0 到 2147483647 之间的整数，不能是 ${value}。`,
    fix: '请填写 0 到 2147483647 之间的整数。',
  }),
  'replicas-exceed-cluster': ({ value, max, model, nodes }) =>
    nodes !== undefined
      ? {
          message: `${zh.replicas} ${value}：集群的 ${nodes} 个节点即使全部空闲，合计也最多只能运行 ${max} 个 Pod（各节点 allocatable pods 之和）。`,
          fix: `此集群最多能容纳 ${max} 个副本；请减少${zh.replicas}。`,
        }
      : {
          message: `${zh.replicas} ${value}：即使集群${model ? `中型号为 ${model} 的节点` : ''}全部空闲，也最多只能容纳 ${max} 个这种规格的 Pod。`,
          fix: `此集群最多能容纳 ${max} 个副本；请减少${zh.replicas}，或降低每卡的需求。`,
        },
  'namespace-reserved': ({ value, reserved }) => ({
    message: `${zh.namespace}“${value}”属于集群自身（${zhList(reserved, '和')}），工作负载不能放在这里。`,
    fix: `请使用其他${zh.namespace}，例如 default。`,
  }),
  'image-reference': ({ container, value, problem }) => ({
    message: `容器 ${container} 的${zh.image}（${value}）${IMAGE_PROBLEM_ZH[problem]}`,
    fix: '请写成 名称[:标签][@摘要] 的形式，例如 nginx:1.27 或 registry.example.com/team/app:v1。',
  }),
  'name-too-long': ({ length, max }) => ({
    message: `${zh.name}有 ${length} 个字符；它也是 Pod 的标签值，最多允许 ${max} 个字符。`,
    fix: `请将${zh.name}缩短到 ${max} 个字符以内。`,
  }),
  'containers-max': ({ count, max }) => ({
    message: `该工作负载有 ${count} 个容器；一个 Pod 最多 ${max} 个。`,
    fix: `请删减容器到 ${max} 个以内，或拆分为多个工作负载。`,
  }),
  'statefulset-name': ({ value, problem, length, max, suggestion }) => ({
    message:
      problem === 'dns-1035'
        ? `${zh.name}“${value}”不能用作 StatefulSet 的名称：它的 headless Service 使用同一名称，而 Service 的名称必须以字母开头且不含“.”。`
        : `${zh.name}有 ${length} 个字符；StatefulSet 的 Pod 带有标签 controller-revision-hash: <名称>-<最多 10 个字符的哈希>，因此名称最多 ${max} 个字符（更长时其 Pod 永远无法创建）。`,
    fix: `${suggestion ? `可改为“${suggestion}”：` : '请'}只用小写字母、数字和“-”，以字母开头，最多 ${max} 个字符。`,
  }),
  'compute-policy-unknown': ({ value }) => ({
    message: `${zh.computePolicy}“${value}”不是 native-burst-share、fixed-share、guaranteed-burst-share 之一。`,
    fix: '请选择三种策略之一，或留空。',
  }),
  'multi-card-mgpu-only': ({ container, type }) => ({
    message: `容器 ${container} 的${zh.multiCard}仅在 mGPU 资源类型下生效，当前为 ${type}。`,
    fix: `请将${zh.gpuType}设为 mGPU，或关闭${zh.multiCard}。`,
  }),
  'model-conflict': ({ container, model, other }) => ({
    message: `${zhOf(zh.model, container)}为 ${model}，但另一个容器要求 ${other}；一个 Pod 只能运行在一个节点上。`,
    fix: '请为所有容器选择相同型号，或留空。',
  }),
  'requests-equal-limits': ({ container, resource }) => ({
    message: `容器 ${container} 的 ${resource} 请求值（requests）与限制值（limits）不同；GPU 资源的请求值必须等于限制值。`,
    fix: '请将 requests 与 limits 设为相同的值。',
  }),
  'quota-exceeded': (p) =>
    p.surge !== undefined
      ? {
          message: `${zh.namespace} ${p.namespace} 的资源配额 ${p.quota} 将 ${p.resource} 限制为 ${quotaZh(p.resource, p.limit)}。更新完成后 ${p.replicas} 个副本 × ${p.perPod} 不超出配额，但滚动更新期间最多还有 ${p.surge.maxSurge} 个 Pod（maxSurge）同时运行，峰值需 ${quotaZh(p.resource, p.requested)}（${zhOf(zh[QUOTA_FIELD_LABEL[p.field]], p.container)}），更新会中途停滞。`,
          fix: `请将 Deployment 的 spec.strategy.rollingUpdate.maxSurge 降到 ${p.surge.fits}${p.surge.fits === 0 ? '（maxUnavailable 至少为 1）' : ''}，或请管理员提高配额（kubectl describe resourcequota ${p.quota} -n ${p.namespace}）。`,
        }
      : quotaExceededZh(p),
};

const quotaExceededZh = (p: RuleParams['quota-exceeded']) => ({
  message: `${zh.namespace} ${p.namespace} 的资源配额 ${p.quota} 将 ${p.resource} 限制为 ${quotaZh(p.resource, p.limit)}，已使用 ${quotaZh(p.resource, p.used)}；${p.replicas === 1 ? '本 Pod 还需' : `${p.replicas} 个副本 × ${p.perPod} 还需`} ${quotaZh(p.resource, p.requested)}（${zhOf(zh[QUOTA_FIELD_LABEL[p.field]], p.container)}），超出配额。`,
  fix:
    p.maxPerPod > 0
      ? `每个 Pod 最多申请 ${quotaZh(p.resource, p.maxPerPod)}${p.replicas > 1 && p.maxReplicas > 0 ? `，或最多运行 ${p.maxReplicas} 个副本` : ''}，或请管理员提高配额（kubectl describe resourcequota ${p.quota} -n ${p.namespace}）。`
      : `${p.maxReplicas > 0 ? `最多运行 ${p.maxReplicas} 个副本，或` : '配额已用尽：请'}释放部分配额，或请管理员提高配额（kubectl describe resourcequota ${p.quota} -n ${p.namespace}）。`,
});

const RULE_TEXT: Record<Lang, Translate<RuleCatalog>> = {
  en: translator<RuleCatalog>(english),
  'zh-CN': translator<RuleCatalog>(chinese),
};

/**
 * The words of violations already described, per language. The containers' own rules keep their
 * violations between checks while the fields are unchanged (`evaluateMgpuContainerCached`), so a
 * form re-checked on every keystroke asks for the same words again; building them (lists, number
 * words, two languages' templates) was ~1 µs a violation, ~12 % of a check with two broken rules.
 * Violations are never changed once made, and callers copy the text, so sharing it is safe.
 */
const described = new WeakMap<Violation, Partial<Record<Lang, RuleText>>>();

/** Puts a broken rule into words in the operator's language. */
export function describeViolation(violation: Violation, lang: Lang): RuleText {
  let texts = described.get(violation);
  const known = texts?.[lang];
  if (known !== undefined) return known;
  const text = RULE_TEXT[lang](violation.rule, violation.params);
  if (texts === undefined) {
    texts = {};
    described.set(violation, texts);
  }
  texts[lang] = text;
  return text;
}
