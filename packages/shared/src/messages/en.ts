import { cardsText } from '../card-shares.js';
import { MAX_CARDS } from '../request.js';
import { MAX_IMAGE_NAME, PER_CARD_MEMORY_MAX_MIB, PER_CARD_MEMORY_MIN_MIB } from '../rules.js';
import type { Words } from './words.js';

const labels = {
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
} as const;

const list = (items: readonly (string | number)[], word: string) =>
  items.length <= 1
    ? items.join('')
    : `${items.slice(0, -1).join(', ')} ${word} ${items[items.length - 1]}`;
const cards = (n: number) => (n === 1 ? '1 card' : `${n} cards`);
const NODE_WHERE = {
  model: (model: string) => ` of model ${model}`,
  policy: (policy: string) => ` with policy ${policy}`,
};

/** The rule messages in English (the shared logic in `index.ts` chooses which and when). */
export const en = {
  labels,
  of: (field, container) => `${field} of container "${container}"`,
  or: (items) => list(items, 'or'),
  and: (items) => list(items, 'and'),
  cards,
  /** Compute is counted in cards: "1 card", "1.2 cards". */
  compute: (compute) => (compute.trim() === '1' ? '1 card' : `${compute} cards`),
  quotaCores: (n) => `${n} (${n === 100 ? '1 card' : `${cardsText(n)} cards`})`,
  stop: '.',
  suggest: (items) => `Try ${items}.`,
  suggestName: (name) => `Try "${name}".`,
  required: (label) => `${label} is required.`,
  spread: (field, amount, n, perCard) =>
    `${field}: ${amount} over ${n} gives ${perCard} per card; `,
  atMostGiB: (gib) => `Use at most ${gib} GiB`,

  computeFormat: {
    message: {
      empty: (field) => `${field} is required for an mGPU container.`,
      'not-a-number': (field, value) =>
        `${field} must be a decimal number of cards, not "${value}".`,
      'below-minimum': (field, value) =>
        `${field} is ${value}; the smallest share is 0.01 of a card.`,
      'above-maximum': (field, value) =>
        `${field} is ${value}; that is far more cards than any node has.`,
      'slice-decimals': (field, value) =>
        `${field} is ${value}; from 0.01 to 1 it may have at most two decimals.`,
      'above-one-decimals': (field, value) =>
        `${field} is ${value}; above 1 it may have at most one decimal.`,
    },
    fix: {
      empty: 'Enter a number of cards such as 0.5, 1.2 or 2.',
      'not-a-number': 'Enter a number such as 0.5, 1.2 or 2.',
      'below-minimum': 'Use at least 0.01.',
      'above-maximum': `Use at most ${MAX_CARDS}.`,
    },
  },
  computeWholeCards: {
    message: (field, value) =>
      `${field} is ${value}: without multi-card sharing, more than 1 card must be whole cards.`,
    use: (items) => `Use ${items}`,
    orMultiCard: (n, percent) => `, or turn on multi-card sharing with ${n} (${percent}% each).`,
  },
  cardsRange: {
    message: (field, not) => `${field} must be a whole number from 1 to ${MAX_CARDS}${not}.`,
    not: (value) => `, not "${value}"`,
    fix: `Choose 1 to ${MAX_CARDS} cards.`,
  },
  perCardComputePrecision: {
    rest: 'per-card compute must be a multiple of 0.01 (1%).',
    tryCompute: (items) => `try ${items}`,
    useCards: (items) => `use ${items} cards`,
    either: (fixes) => `${fixes.join(', or ').replace(/^./, (first) => first.toUpperCase())}.`,
  },
  perCardComputeMax: {
    rest: 'a card gives at most 100%.',
    moreCards: (n, maxCompute) => `Use ${n} cards, or at most ${maxCompute} of compute.`,
    lessCompute: (maxCompute) => `Use at most ${maxCompute} of compute.`,
  },
  memoryRequired: {
    required: (field, why) => `${field} is required${why}.`,
    slice: (percent) => `: ${percent}% per card is a slice of a card`,
    tooManyDigits: (field) => `${field} has too many digits to be a number of GiB.`,
    notGiB: (field, value) => `${field} must be a number of GiB greater than 0, not "${value}".`,
    fix: (gib) => `Enter at least ${gib} GiB (1024 MiB per card).`,
  },
  memoryWithWholeCard: {
    message: (field) => `${field} must be empty: whole cards bring all their memory.`,
    fix: `Clear ${labels.memory}, or ask for less than 1 card per card of compute.`,
  },
  perCardMemoryInteger: { rest: 'it must be a whole number of MiB.' },
  perCardMemoryRange: {
    rest: `each card needs ${PER_CARD_MEMORY_MIN_MIB}–${PER_CARD_MEMORY_MAX_MIB} MiB.`,
    atLeastGiB: (gib) => `Use at least ${gib} GiB`,
    orCards: (n) => `, or ${n}`,
  },
  multiCardPolicy: {
    message: (containers, not) =>
      `${labels.computePolicy} must be native-burst-share for multi-card sharing (container ${containers})${not}.`,
    containers: (containers) =>
      list(
        containers.map((c) => `"${c}"`),
        'and',
      ),
    not: (policy) => `, not ${policy}`,
    fix: `Set ${labels.computePolicy} to native-burst-share, or turn off ${labels.multiCard}.`,
  },
  annotationKeyTooLong: {
    message: (container, length, prefix, max) =>
      `${labels.containerName} "${container}" has ${length} characters; the scheduler writes the annotation key ${prefix}<name> for every GPU container, and its name part allows a container name of at most ${max}.`,
    fix: (max) => `Shorten the container name to ${max} characters or fewer.`,
  },
  modelUnknown: {
    message: (field, model) => `${field}: no node in the cluster has the model ${model}.`,
    choose: (items) => `Choose ${items}, or leave it empty for any model.`,
    any: 'Leave it empty for any model.',
  },
  perCardMemoryExceedsModel: {
    message: (field, perCardMiB, model, modelMiB) =>
      `${field}: ${perCardMiB} MiB per card is more than ${model} has (${modelMiB} MiB per card).`,
    model: (model) => model,
    anyModel: 'any model in the cluster',
    orMultiCard: (n) => `, or ${n} with multi-card sharing`,
  },
  cardsExceedNode: {
    none: {
      ...NODE_WHERE,
      message: (field, where) => `${field}: no node${where} exists for this request.`,
      fix: `Choose another ${labels.model} or ${labels.computePolicy}.`,
    },
    over: {
      ...NODE_WHERE,
      message: (field, n, where, maxCards) =>
        `${field}: ${n} is more than any node${where} has (${maxCards}).`,
      fix: (n) => `Use at most ${n}.`,
    },
  },
  nameFormat: {
    message: (value) =>
      `${labels.name} "${value}" must be lowercase letters, digits, "-" or ".", start and end with a letter or digit, at most 253 characters.`,
  },
  namespaceFormat: {
    message: (value) =>
      `${labels.namespace} "${value}" must be lowercase letters, digits or "-", start and end with a letter or digit, at most 63 characters.`,
  },
  containersRequired: {
    message: 'A workload needs at least one container.',
    fix: 'Add a container.',
  },
  containerNameFormat: {
    message: (value) =>
      `${labels.containerName} "${value}" must be lowercase letters, digits or "-", start and end with a letter or digit, at most 63 characters.`,
  },
  containerNameUnique: {
    message: (value) =>
      `${labels.containerName} "${value}" is used by another container of this pod.`,
    fix: 'Give each container its own name.',
  },
  imageRequired: {
    message: (container) => `${labels.image} of container "${container}" is required.`,
    fix: 'Enter an image such as nginx:1.27.',
  },
  replicasRange: {
    message: (value) =>
      `${labels.replicas} must be a whole number from 0 to 2147483647, not ${value}.`,
    fix: 'Use a whole number from 0 to 2147483647.',
  },
  replicasExceedCluster: {
    byPods: {
      message: (value, nodes, max) =>
        `${labels.replicas} ${value}: the cluster's ${nodes} node${nodes === 1 ? '' : 's'} run at most ${max} pods together (the sum of their allocatable pods), even empty.`,
      fix: (max) => `At most ${max} replicas fit this cluster; lower ${labels.replicas}.`,
    },
    byShape: {
      message: (value, where, max) =>
        `${labels.replicas} ${value}: even empty, the cluster${where} could hold at most ${max} pods of this shape.`,
      model: (model) => `'s ${model} nodes`,
      fix: (max) =>
        `At most ${max} replicas fit this cluster; lower ${labels.replicas}, or ask for less per card.`,
    },
  },
  namespaceReserved: {
    message: (value, reserved) =>
      `${labels.namespace} "${value}" belongs to the cluster itself (${reserved}); workloads do not go there.`,
    fix: `Use another ${labels.namespace}, such as default.`,
  },
  imageReference: {
    message: (container, value, problem) =>
      `${labels.image} of container "${container}" (${value}) ${problem}`,
    problems: {
      invisible: 'contains an invisible character (zero-width or control); retype it.',
      whitespace: 'contains a space, tab or line break.',
      uppercase:
        'has uppercase letters in its repository path; only the registry host may have them.',
      'too-long': `has a repository name longer than ${MAX_IMAGE_NAME} characters.`,
      'bad-tag':
        'has a tag that is not 1–128 letters, digits, "_", "." or "-" (starting with a letter, digit or "_").',
      'bad-digest': 'has a digest that is not algorithm:hex (e.g. sha256: and 64 hex digits).',
      'bad-format':
        'is not an image reference: lowercase path components separated by "/", joined by ".", "_", "__" or "-".',
    },
    fix: 'Write it as name[:tag][@digest], e.g. nginx:1.27 or registry.example.com/team/app:v1.',
  },
  nameTooLong: {
    message: (length, max) =>
      `${labels.name} has ${length} characters; it is also the pods' label value, which allows at most ${max}.`,
    fix: (max) => `Shorten ${labels.name} to ${max} characters or fewer.`,
  },
  containersMax: {
    message: (count, max) =>
      `This workload has ${count} containers; a pod here takes at most ${max}.`,
    fix: (max) => `Remove containers until there are ${max} or fewer, or split the workload.`,
  },
  statefulsetName: {
    dns1035: (value) =>
      `${labels.name} "${value}" cannot name a StatefulSet: its headless Service takes the same name, and a Service's name must start with a letter and have no dots.`,
    tooLong: (length, max) =>
      `${labels.name} has ${length} characters; a StatefulSet's pods carry the label controller-revision-hash: <name>-<hash of up to 10 characters>, so its name has at most ${max} (longer, its pods can never be created).`,
    fix: (lead, max) =>
      `${lead}lowercase letters, digits and "-", a letter first, at most ${max} characters.`,
    suggest: (name) => `Try "${name}": `,
    use: 'Use ',
  },
  computePolicyUnknown: {
    message: (value) =>
      `${labels.computePolicy} "${value}" is not one of native-burst-share, fixed-share, guaranteed-burst-share.`,
    fix: 'Choose one of the three policies, or leave it empty.',
  },
  multiCardMgpuOnly: {
    message: (container, type) =>
      `${labels.multiCard} of container "${container}" works only with the mGPU resource type, not ${type}.`,
    fix: `Set ${labels.gpuType} to mGPU, or turn off ${labels.multiCard}.`,
  },
  modelConflict: {
    message: (field, model, other) =>
      `${field} is ${model}, but another container asks for ${other}; a pod runs on one node.`,
    fix: 'Choose the same model for every container, or leave it empty.',
  },
  requestsEqualLimits: {
    message: (container, resource) =>
      `Container "${container}" requests ${resource} differently from its limit; GPU requests must equal limits.`,
    fix: 'Set requests and limits to the same value.',
  },
  quotaExceeded: {
    limits: (quota, namespace, resource, limit) =>
      `ResourceQuota "${quota}" of ${labels.namespace} "${namespace}" limits ${resource} to ${limit}`,
    raise: (describe) => `, or have the quota raised (${describe}).`,
    surge: {
      message: (limits, replicas, perPod, maxSurge, peak, field) =>
        `${limits}. ${replicas} replicas × ${perPod} fit once rolled out, but during the rolling update up to ${maxSurge} more pod${maxSurge === 1 ? '' : 's'} (maxSurge) run beside them and ${peak} is charged at its peak (${field}); the update would stall half-way.`,
      fix: (fits, unavailable) =>
        `Lower the Deployment's spec.strategy.rollingUpdate.maxSurge to ${fits}${unavailable}`,
      unavailable: ' (with maxUnavailable at least 1)',
    },
    used: {
      message: (limits, used, asker, requested, field) =>
        `${limits} and ${used} is used; ${asker} ${requested} more (${field}).`,
      onePod: 'this pod asks for',
      replicas: (replicas, perPod) => `${replicas} replicas × ${perPod} ask for`,
    },
    fix: {
      perPod: (amount) => `Ask for at most ${amount} per pod`,
      orReplicas: (maxReplicas) => `, or run at most ${maxReplicas} replicas`,
      runAtMost: (maxReplicas) => `Run at most ${maxReplicas} replicas, free`,
      exhausted: 'Nothing of it is left: free',
      free: (describe) => ` some of the quota, or have it raised (${describe}).`,
    },
  },
} satisfies Words;
