import { cardsText } from '../card-shares.js';
import { MAX_CARDS } from '../request.js';
import { MAX_IMAGE_NAME, PER_CARD_MEMORY_MAX_MIB, PER_CARD_MEMORY_MIN_MIB } from '../rules.js';
import type { Words } from './words.js';

const labels = {
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
} as const;

const list = (items: readonly (string | number)[], word: string) =>
  items.length <= 1
    ? items.join('')
    : `${items.slice(0, -1).join('、')} ${word} ${items[items.length - 1]}`;

/** The rule messages in Chinese (the shared logic in `index.ts` chooses which and when). */
export const zhCN = {
  labels,
  of: (field, container) => `容器 ${container} 的${field}`,
  or: (items) => list(items, '或'),
  and: (items) => list(items, '和'),
  cards: (n) => `${n} 张卡`,
  compute: (compute) => compute,
  quotaCores: (n) => `${n}（${cardsText(n)} 张卡）`,
  stop: '。',
  suggest: (items) => `可改为 ${items}。`,
  suggestName: (name) => `可改为“${name}”。`,
  required: (label) => `${label}为必填项。`,
  spread: (field, amount, n, perCard) => `${field}：${amount} 分到 ${n}，每卡 ${perCard}；`,
  atMostGiB: (gib) => `请填写不超过 ${gib} GiB`,

  computeFormat: {
    message: {
      empty: (field) => `${field}为必填项（mGPU 容器）。`,
      'not-a-number': (field, value) => `${field}必须是十进制数字，不能是“${value}”。`,
      'below-minimum': (field, value) => `${field}为 ${value}，最小为 0.01 张卡。`,
      'above-maximum': (field, value) => `${field}为 ${value}，远超任何节点的卡数。`,
      'slice-decimals': (field, value) => `${field}为 ${value}；0.01～1 之间最多两位小数。`,
      'above-one-decimals': (field, value) => `${field}为 ${value}；大于 1 时最多一位小数。`,
    },
    fix: {
      empty: '请填写卡数，例如 0.5、1.2 或 2。',
      'not-a-number': '请填写数字，例如 0.5、1.2 或 2。',
      'below-minimum': '请填写不小于 0.01 的值。',
      'above-maximum': `请填写不超过 ${MAX_CARDS} 的值。`,
    },
  },
  computeWholeCards: {
    message: (field, value) =>
      `${field}为 ${value}：未开启多卡共享时，超过 1 张卡必须为整卡（正整数）。`,
    use: (items) => `可改为 ${items}`,
    orMultiCard: (n, percent) => `，或开启多卡共享并使用 ${n}（每卡 ${percent}%）。`,
  },
  cardsRange: {
    message: (field, not) => `${field}必须是 1～${MAX_CARDS} 的整数${not}。`,
    not: (value) => `，不能是“${value}”`,
    fix: `请选择 1～${MAX_CARDS} 张卡。`,
  },
  perCardComputePrecision: {
    rest: '单卡算力的精度不能超过 0.01（1%）。',
    tryCompute: (items) => `将算力改为 ${items}`,
    useCards: (items) => `使用 ${items} 张卡`,
    either: (fixes) => `可${fixes.join('，或')}。`,
  },
  perCardComputeMax: {
    rest: '单卡最多 100%。',
    moreCards: (n, maxCompute) => `请使用 ${n} 张卡，或将算力改为不超过 ${maxCompute}。`,
    lessCompute: (maxCompute) => `请将算力改为不超过 ${maxCompute}。`,
  },
  memoryRequired: {
    required: (field, why) => `${field}为必填项${why}。`,
    slice: (percent) => `：每卡 ${percent}% 算力只占部分卡`,
    tooManyDigits: (field) => `${field}位数过多，不是有效的 GiB 数。`,
    notGiB: (field, value) => `${field}必须是大于 0 的 GiB 数，不能是“${value}”。`,
    fix: (gib) => `请填写至少 ${gib} GiB（每卡 1024 MiB）。`,
  },
  memoryWithWholeCard: {
    message: (field) => `${field}必须留空：整卡自带全部显存。`,
    fix: `请清空${labels.memory}，或将单卡算力改为小于 1。`,
  },
  perCardMemoryInteger: { rest: '单卡显存换算成 MiB 后必须为整数。' },
  perCardMemoryRange: {
    rest: `单卡显存需在 ${PER_CARD_MEMORY_MIN_MIB}～${PER_CARD_MEMORY_MAX_MIB} MiB 之间。`,
    atLeastGiB: (gib) => `请填写至少 ${gib} GiB`,
    orCards: (n) => `，或使用 ${n}`,
  },
  multiCardPolicy: {
    message: (containers, not) =>
      `多卡共享（容器 ${containers}）要求${labels.computePolicy}为 native-burst-share${not}。`,
    containers: (containers) => list(containers, '、'),
    not: (policy) => `，当前为 ${policy}`,
    fix: `请将${labels.computePolicy}设为 native-burst-share，或关闭${labels.multiCard}。`,
  },
  annotationKeyTooLong: {
    message: (container, length, prefix, max) =>
      `${labels.containerName}“${container}”有 ${length} 个字符；调度器会为每个 GPU 容器写入注解键 ${prefix}<名称>，其名称部分只允许不超过 ${max} 个字符的容器名称。`,
    fix: (max) => `请将容器名称缩短到 ${max} 个字符以内。`,
  },
  modelUnknown: {
    message: (field, model) => `${field}：集群中没有型号为 ${model} 的节点。`,
    choose: (items) => `请选择 ${items}，或留空表示不限型号。`,
    any: '请留空表示不限型号。',
  },
  perCardMemoryExceedsModel: {
    message: (field, perCardMiB, model, modelMiB) =>
      `${field}：每卡 ${perCardMiB} MiB，超过${model}的单卡显存（${modelMiB} MiB）。`,
    model: (model) => ` ${model} `,
    anyModel: '集群中任何型号',
    orMultiCard: (n) => `，或开启多卡共享使用 ${n}`,
  },
  cardsExceedNode: {
    none: {
      model: (model) => `型号为 ${model} `,
      policy: (policy) => `策略为 ${policy} `,
      message: (field, where) => `${field}：集群中没有${where}的节点可用于该请求。`,
      fix: `请更换${labels.model}或${labels.computePolicy}。`,
    },
    over: {
      model: (model) => `型号 ${model} `,
      policy: (policy) => `策略 ${policy} `,
      message: (field, n, where, maxCards) =>
        `${field}：${n}超过了${where}节点的最大卡数（${maxCards}）。`,
      fix: (n) => `请使用不超过 ${n}。`,
    },
  },
  nameFormat: {
    message: (value) =>
      `${labels.name}“${value}”只能包含小写字母、数字、“-”和“.”，以字母或数字开头和结尾，最多 253 个字符。`,
  },
  namespaceFormat: {
    message: (value) =>
      `${labels.namespace}“${value}”只能包含小写字母、数字和“-”，以字母或数字开头和结尾，最多 63 个字符。`,
  },
  containersRequired: { message: '工作负载至少需要一个容器。', fix: '请添加容器。' },
  containerNameFormat: {
    message: (value) =>
      `${labels.containerName}“${value}”只能包含小写字母、数字和“-”，以字母或数字开头和结尾，最多 63 个字符。`,
  },
  containerNameUnique: {
    message: (value) => `${labels.containerName}“${value}”已被本 Pod 的其他容器使用。`,
    fix: '请为每个容器取不同的名称。',
  },
  imageRequired: {
    message: (container) => `容器 ${container} 的${labels.image}为必填项。`,
    fix: '请填写镜像，例如 nginx:1.27。',
  },
  replicasRange: {
    message: (value) => `${labels.replicas}必须是 0 到 2147483647 之间的整数，不能是 ${value}。`,
    fix: '请填写 0 到 2147483647 之间的整数。',
  },
  replicasExceedCluster: {
    byPods: {
      message: (value, nodes, max) =>
        `${labels.replicas} ${value}：集群的 ${nodes} 个节点即使全部空闲，合计也最多只能运行 ${max} 个 Pod（各节点 allocatable pods 之和）。`,
      fix: (max) => `此集群最多能容纳 ${max} 个副本；请减少${labels.replicas}。`,
    },
    byShape: {
      message: (value, where, max) =>
        `${labels.replicas} ${value}：即使集群${where}全部空闲，也最多只能容纳 ${max} 个这种规格的 Pod。`,
      model: (model) => `中型号为 ${model} 的节点`,
      fix: (max) => `此集群最多能容纳 ${max} 个副本；请减少${labels.replicas}，或降低每卡的需求。`,
    },
  },
  namespaceReserved: {
    message: (value, reserved) =>
      `${labels.namespace}“${value}”属于集群自身（${reserved}），工作负载不能放在这里。`,
    fix: `请使用其他${labels.namespace}，例如 default。`,
  },
  imageReference: {
    message: (container, value, problem) =>
      `容器 ${container} 的${labels.image}（${value}）${problem}`,
    problems: {
      invisible: '含有不可见字符（零宽或控制字符），请重新输入。',
      whitespace: '含有空格、制表符或换行。',
      uppercase: '的仓库路径含有大写字母；只有镜像仓库主机名可以有大写。',
      'too-long': `的仓库名超过 ${MAX_IMAGE_NAME} 个字符。`,
      'bad-tag': '的标签不是 1–128 个字母、数字、“_”、“.”或“-”（以字母、数字或“_”开头）。',
      'bad-digest': '的摘要不是 算法:十六进制 的形式（例如 sha256: 加 64 位十六进制）。',
      'bad-format':
        '不是合法的镜像引用：路径各段为小写字母数字，以“/”分隔，段内用“.”、“_”、“__”或“-”连接。',
    },
    fix: '请写成 名称[:标签][@摘要] 的形式，例如 nginx:1.27 或 registry.example.com/team/app:v1。',
  },
  nameTooLong: {
    message: (length, max) =>
      `${labels.name}有 ${length} 个字符；它也是 Pod 的标签值，最多允许 ${max} 个字符。`,
    fix: (max) => `请将${labels.name}缩短到 ${max} 个字符以内。`,
  },
  containersMax: {
    message: (count, max) => `该工作负载有 ${count} 个容器；一个 Pod 最多 ${max} 个。`,
    fix: (max) => `请删减容器到 ${max} 个以内，或拆分为多个工作负载。`,
  },
  statefulsetName: {
    dns1035: (value) =>
      `${labels.name}“${value}”不能用作 StatefulSet 的名称：它的 headless Service 使用同一名称，而 Service 的名称必须以字母开头且不含“.”。`,
    tooLong: (length, max) =>
      `${labels.name}有 ${length} 个字符；StatefulSet 的 Pod 带有标签 controller-revision-hash: <名称>-<最多 10 个字符的哈希>，因此名称最多 ${max} 个字符（更长时其 Pod 永远无法创建）。`,
    fix: (lead, max) => `${lead}只用小写字母、数字和“-”，以字母开头，最多 ${max} 个字符。`,
    suggest: (name) => `可改为“${name}”：`,
    use: '请',
  },
  computePolicyUnknown: {
    message: (value) =>
      `${labels.computePolicy}“${value}”不是 native-burst-share、fixed-share、guaranteed-burst-share 之一。`,
    fix: '请选择三种策略之一，或留空。',
  },
  multiCardMgpuOnly: {
    message: (container, type) =>
      `容器 ${container} 的${labels.multiCard}仅在 mGPU 资源类型下生效，当前为 ${type}。`,
    fix: `请将${labels.gpuType}设为 mGPU，或关闭${labels.multiCard}。`,
  },
  modelConflict: {
    message: (field, model, other) =>
      `${field}为 ${model}，但另一个容器要求 ${other}；一个 Pod 只能运行在一个节点上。`,
    fix: '请为所有容器选择相同型号，或留空。',
  },
  requestsEqualLimits: {
    message: (container, resource) =>
      `容器 ${container} 的 ${resource} 请求值（requests）与限制值（limits）不同；GPU 资源的请求值必须等于限制值。`,
    fix: '请将 requests 与 limits 设为相同的值。',
  },
  quotaExceeded: {
    limits: (quota, namespace, resource, limit) =>
      `${labels.namespace} ${namespace} 的资源配额 ${quota} 将 ${resource} 限制为 ${limit}`,
    raise: (describe) => `，或请管理员提高配额（${describe}）。`,
    surge: {
      message: (limits, replicas, perPod, maxSurge, peak, field) =>
        `${limits}。更新完成后 ${replicas} 个副本 × ${perPod} 不超出配额，但滚动更新期间最多还有 ${maxSurge} 个 Pod（maxSurge）同时运行，峰值需 ${peak}（${field}），更新会中途停滞。`,
      fix: (fits, unavailable) =>
        `请将 Deployment 的 spec.strategy.rollingUpdate.maxSurge 降到 ${fits}${unavailable}`,
      unavailable: '（maxUnavailable 至少为 1）',
    },
    used: {
      message: (limits, used, asker, requested, field) =>
        `${limits}，已使用 ${used}；${asker} ${requested}（${field}），超出配额。`,
      onePod: '本 Pod 还需',
      replicas: (replicas, perPod) => `${replicas} 个副本 × ${perPod} 还需`,
    },
    fix: {
      perPod: (amount) => `每个 Pod 最多申请 ${amount}`,
      orReplicas: (maxReplicas) => `，或最多运行 ${maxReplicas} 个副本`,
      runAtMost: (maxReplicas) => `最多运行 ${maxReplicas} 个副本，或`,
      exhausted: '配额已用尽：请',
      free: (describe) => `释放部分配额，或请管理员提高配额（${describe}）。`,
    },
  },
} satisfies Words;
