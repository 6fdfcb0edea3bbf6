import {
  Big,
  decimalPlaces,
  formatDecimal,
  isInteger,
  parseDecimal,
  quoteTyped,
} from './decimal.js';
import { imageReferenceProblem } from './image-reference.js';
import type { GpuInventory, GpuPool } from './inventory.js';
import { knownModels } from './inventory.js';
import { isDns1123Label, isDns1123Subdomain, suggestName } from './kubernetes-names.js';
import { buildDeployment, type DeploymentManifest, type ManifestOptions } from './manifest.js';
import { describeViolation } from './messages.js';
import {
  type ComputePolicy,
  type ContainerRequest,
  DEFAULT_NODE_POLICY,
  type GpuRequest,
  isComputePolicy,
  MAX_CARDS,
  type WorkloadRequest,
} from './request.js';
import {
  DEFAULT_RESERVED_NAMESPACES,
  type Lang,
  MAX_CONTAINERS,
  MAX_GPU_CONTAINER_NAME,
  MAX_LABEL_VALUE,
  MAX_REPLICAS,
  PER_CARD_MEMORY_MAX_MIB,
  PER_CARD_MEMORY_MIN_MIB,
  type RuleError,
  type RuleParams,
  type Violation,
} from './rules.js';
import { MAX_INSTANCES_PER_CARD, VKE } from './vke.js';

/** What one card of a container gets. */
export interface CardShare {
  /** Percent of one card's compute (mgpu-core per card). */
  computePercent: number;
  /** MiB of the card's memory; null for whole cards, which bring all of it. */
  memoryMiB: number | null;
}

/** The per-card derivation of one GPU container whose own fields are valid. */
export interface ContainerShare {
  /** Index of the container in the request. */
  index: number;
  name: string;
  type: 'mgpu' | 'nvidia';
  multiCard: boolean;
  /** Every card gets 100 % and all its memory. */
  wholeCards: boolean;
  cards: number;
  perCard: CardShare;
  /** The container's `vke.volcengine.com/mgpu-core` (c × 100); cards × 100 for nvidia. */
  computePercent: number;
  /** The container's `vke.volcengine.com/mgpu-memory`, total over all cards; null for whole cards. */
  memoryMiB: number | null;
  /** GPU model asked for, or undefined for any model. */
  model?: string;
}

/** The check result of spec §7. */
export interface CheckResult {
  valid: boolean;
  errors: RuleError[];
  containers: ContainerShare[];
  manifest?: DeploymentManifest;
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

const containerLabel = (container: ContainerRequest, index: number) =>
  container.name.trim() === '' ? `#${index + 1}` : container.name;

/** The integer card count typed into `GPU 卡数`, or undefined when it is not 1–8. */
export function parseCards(value: number | string | undefined): number | undefined {
  const cards =
    typeof value === 'string' ? (/^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN) : value;
  return cards !== undefined && Number.isInteger(cards) && cards >= 1 && cards <= MAX_CARDS
    ? cards
    : undefined;
}

/** Computes above this many cards are refused outright (see `readCompute`). */
const MAX_COMPUTE_CARDS = 1000;

/** A compute in percent of one card that `compute-format` accepts (0.01–1 by 0.01, above by 0.1). */
function isValidComputePercent(percent: number): boolean {
  return percent >= 1 && (percent <= 100 || percent % 10 === 0);
}

const percentText = (computePercent: number, cards: number) =>
  computePercent % cards === 0
    ? String(computePercent / cards)
    : `${formatDecimal(new Big(computePercent).div(cards), 2)}…`;

const cardsText = (percent: number) => formatDecimal(new Big(percent).div(100));

/** Card counts 1–8 that split `computePercent` into whole percents of at most one card each. */
function cardCountsThatSplit(computePercent: number): number[] {
  const counts: number[] = [];
  for (let cards = 1; cards <= MAX_CARDS; cards++) {
    if (computePercent % cards === 0 && computePercent / cards <= 100) counts.push(cards);
  }
  return counts;
}

type ComputeReading =
  | { ok: true; percent: number }
  | { ok: false; violation: Extract<Violation, { rule: 'compute-format' }> };

/** `compute-format`: 0.01 ≤ c ≤ 1 with at most two decimals, or c > 1 with at most one. */
function readCompute(text: string, container: string, path: string): ComputeReading {
  const fail = (
    problem: RuleParams['compute-format']['problem'],
    suggestions: string[] = [],
  ): ComputeReading => ({
    ok: false,
    violation: {
      rule: 'compute-format',
      path,
      params: { container, value: quoteTyped(text), problem, suggestions },
    },
  });
  if (text.trim() === '') return fail('empty');
  const value = parseDecimal(text);
  if (value === null) {
    const commaDecimal = /^\s*(\d+),(\d+)\s*$/.exec(text);
    const percent = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(text);
    const guess = commaDecimal
      ? `${commaDecimal[1]}.${commaDecimal[2]}`
      : percent?.[1]
        ? formatDecimal(new Big(percent[1]).div(100))
        : undefined;
    return fail('not-a-number', guess ? [guess] : []);
  }
  if (value.lt('0.01')) return fail('below-minimum', ['0.01']);
  // A magnitude guard, not a rule of §3: far beyond any node (the per-card and cluster rules
  // judge realistic values), and it keeps every percent below an exact integer bound.
  if (value.gt(MAX_COMPUTE_CARDS)) return fail('above-maximum', [String(MAX_CARDS)]);
  const places = decimalPlaces(value);
  if (value.lte(1) && places > 2) {
    const down = value.round(2, Big.roundDown);
    const up = value.round(2, Big.roundUp);
    return fail(
      'slice-decimals',
      [down, up].filter((v) => v.gte('0.01')).map((v) => formatDecimal(v)),
    );
  }
  if (value.gt(1) && places > 1) {
    const down = value.round(1, Big.roundDown);
    const up = value.round(1, Big.roundUp);
    return fail('above-one-decimals', [...new Set([formatDecimal(down), formatDecimal(up)])]);
  }
  return { ok: true, percent: value.times(100).toNumber() };
}

/** The nearest computes below and above `percent` that split evenly over `cards`. */
function nearestSplittableComputes(percent: number, cards: number): string[] {
  const fits = (p: number) => isValidComputePercent(p) && p % cards === 0 && p <= 100 * cards;
  const suggestions: string[] = [];
  for (let p = Math.min(percent - 1, 100 * cards); p >= 1; p--) {
    if (fits(p)) {
      suggestions.push(cardsText(p));
      break;
    }
  }
  for (let p = percent + 1; p <= 100 * cards; p++) {
    if (fits(p)) {
      suggestions.push(cardsText(p));
      break;
    }
  }
  return suggestions;
}

/** Whole GiB amounts nearest to `memory` that give every one of `cards` an integer MiB in range. */
function nearestWholeGiB(memory: Big, cards: number): string[] {
  const fits = (gib: number) =>
    (gib * 1024) % cards === 0 && gib >= cards && gib <= (PER_CARD_MEMORY_MAX_MIB / 1024) * cards;
  // Only amounts inside the per-card range can be suggested, which bounds both searches.
  const highest = (PER_CARD_MEMORY_MAX_MIB / 1024) * cards;
  const floor = memory.gt(highest) ? highest + 1 : memory.round(0, Big.roundDown).toNumber();
  const suggestions: string[] = [];
  for (let gib = Math.min(memory.eq(floor) ? floor - 1 : floor, highest); gib >= cards; gib--) {
    if (fits(gib)) {
      suggestions.push(String(gib));
      break;
    }
  }
  for (let gib = Math.max(floor + 1, cards); gib <= highest; gib++) {
    if (fits(gib)) {
      suggestions.push(String(gib));
      break;
    }
  }
  return suggestions;
}

/** The most whole GiB that `cards` cards of `perCardMiB` hold, split into integer MiB per card. */
function largestWholeGiB(perCardMiB: number, cards: number): number {
  let gib = Math.floor((perCardMiB * cards) / 1024);
  while (gib > 0 && (gib * 1024) % cards !== 0) gib--;
  return gib;
}

interface MgpuReading {
  cards?: number;
  wholeCards?: boolean;
  computePercent?: number;
  memoryMiB?: Big;
}

/** Every mGPU rule of spec §3 that reads only the container's own fields. */
function evaluateMgpuContainer(
  gpu: GpuRequest,
  container: string,
  base: string,
  violations: Violation[],
): MgpuReading {
  const reading: MgpuReading = {};
  // `cards-range`: only multi-card sharing has a card count; otherwise one card (or whole cards).
  let cards: number | undefined = 1;
  if (gpu.multiCard) {
    cards = parseCards(gpu.cards);
    if (cards === undefined) {
      violations.push({
        rule: 'cards-range',
        path: `${base}.cards`,
        params: { container, value: gpu.cards === undefined ? '' : quoteTyped(String(gpu.cards)) },
      });
    }
  }

  const compute = readCompute(gpu.compute ?? '', container, `${base}.compute`);
  let perCardPercent: number | undefined;
  let sliceWithBadSplit = false;
  if (!compute.ok) {
    violations.push(compute.violation);
  } else {
    const percent = compute.percent;
    reading.computePercent = percent;
    if (!gpu.multiCard) {
      if (percent <= 100) {
        perCardPercent = percent;
      } else if (percent % 100 === 0) {
        // Above one card without multi-card sharing: whole cards, c of them.
        perCardPercent = 100;
        cards = percent / 100;
      } else {
        const whole = Math.floor(percent / 100);
        const split = cardCountsThatSplit(percent).find((n) => n > 1);
        violations.push({
          rule: 'compute-whole-cards',
          path: `${base}.compute`,
          params: {
            container,
            value: gpu.compute ?? '',
            wholeCards: [String(whole), String(whole + 1)],
            ...(split ? { multiCard: { cards: split, perCardPercent: percent / split } } : {}),
          },
        });
      }
    } else if (cards !== undefined) {
      const n = cards;
      const precise = percent % n === 0;
      const withinCard = percent <= 100 * n;
      if (!precise) {
        violations.push({
          rule: 'per-card-compute-precision',
          path: `${base}.compute`,
          params: {
            container,
            compute: gpu.compute ?? '',
            cards: n,
            perCardPercent: percentText(percent, n),
            computeSuggestions: nearestSplittableComputes(percent, n),
            cardSuggestions: cardCountsThatSplit(percent).filter((other) => other !== n),
          },
        });
      }
      if (!withinCard) {
        const needed = cardCountsThatSplit(percent).find((other) => other > n);
        violations.push({
          rule: 'per-card-compute-max',
          path: `${base}.compute`,
          params: {
            container,
            compute: gpu.compute ?? '',
            cards: n,
            perCardPercent: percentText(percent, n),
            ...(needed ? { cardsNeeded: needed } : {}),
            maxCompute: String(n),
          },
        });
      }
      if (precise && withinCard) perCardPercent = percent / n;
      // Less than a card per card is a slice however it splits: memory is still required.
      else if (percent < 100 * n) sliceWithBadSplit = true;
    }
  }
  reading.cards = cards;
  if (perCardPercent !== undefined) reading.wholeCards = perCardPercent === 100;

  const memoryText = (gpu.memoryGiB ?? '').trim();
  if (reading.wholeCards === true) {
    // `memory-with-whole-card`: a whole card brings all its memory.
    if (memoryText !== '') {
      violations.push({
        rule: 'memory-with-whole-card',
        path: `${base}.memoryGiB`,
        params: { container, value: quoteTyped(gpu.memoryGiB ?? '') },
      });
    }
    return reading;
  }
  const memory = parseDecimal(memoryText);
  const minimumGiB = String(cards ?? 1);
  if (memoryText === '') {
    // Only a known slice needs memory; with compute still unreadable the compute error suffices.
    if (reading.wholeCards === false || sliceWithBadSplit) {
      violations.push({
        rule: 'memory-required',
        path: `${base}.memoryGiB`,
        params: { container, value: '', minimumGiB, perCardPercent },
      });
    }
    return reading;
  }
  if (memory === null || memory.lte(0)) {
    violations.push({
      rule: 'memory-required',
      path: `${base}.memoryGiB`,
      params: { container, value: quoteTyped(gpu.memoryGiB ?? ''), minimumGiB },
    });
    return reading;
  }
  if (cards === undefined) return reading;

  const totalMiB = memory.times(1024);
  const perCardMiB = totalMiB.div(cards);
  const perCardMiBText =
    isInteger(totalMiB) && totalMiB.mod(cards).eq(0)
      ? formatDecimal(perCardMiB)
      : formatDecimal(perCardMiB, 2);
  const memoryGiB = formatDecimal(memory);
  const integral = isInteger(totalMiB) && totalMiB.mod(cards).eq(0);
  if (!integral) {
    violations.push({
      rule: 'per-card-memory-integer',
      path: `${base}.memoryGiB`,
      params: {
        container,
        memoryGiB,
        cards,
        perCardMiB: perCardMiBText,
        suggestions: nearestWholeGiB(memory, cards),
      },
    });
  }
  const computeFits = (n: number) =>
    gpu.multiCard &&
    n !== cards &&
    (reading.computePercent === undefined ||
      (reading.computePercent % n === 0 && reading.computePercent / n <= 100));
  const tooSmall = totalMiB.lt(PER_CARD_MEMORY_MIN_MIB * cards);
  const tooLarge = totalMiB.gt(PER_CARD_MEMORY_MAX_MIB * cards);
  if (tooSmall || tooLarge) {
    const fewer = memory.div(1).round(0, Big.roundDown).toNumber();
    const more = memory
      .div(PER_CARD_MEMORY_MAX_MIB / 1024)
      .round(0, Big.roundUp)
      .toNumber();
    const suggestion = tooSmall ? fewer : more;
    violations.push({
      rule: 'per-card-memory-range',
      path: `${base}.memoryGiB`,
      params: {
        container,
        memoryGiB,
        cards,
        perCardMiB: perCardMiBText,
        problem: tooSmall ? 'too-small' : 'too-large',
        boundGiB: String(tooSmall ? cards : (PER_CARD_MEMORY_MAX_MIB / 1024) * cards),
        ...(suggestion >= 1 && suggestion <= MAX_CARDS && computeFits(suggestion)
          ? { cardsSuggestion: suggestion }
          : {}),
      },
    });
  }
  if (integral && !tooSmall && !tooLarge) reading.memoryMiB = totalMiB;
  return reading;
}

/** The cluster-aware rules of spec §3 for one container whose own fields are valid. */
/**
 * The form checks the whole request on every keystroke, but a keystroke changes one container:
 * the others' readings come from this cache. `evaluateMgpuContainer` reads only these fields
 * and is pure, and its violations are never changed afterwards, so sharing them is safe.
 */
const mgpuReadings = new Map<string, { reading: MgpuReading; violations: Violation[] }>();
const MGPU_READINGS_KEPT = 64;

function evaluateMgpuContainerCached(
  gpu: GpuRequest,
  container: string,
  base: string,
  violations: Violation[],
): MgpuReading {
  const key = JSON.stringify([
    gpu.multiCard,
    gpu.cards,
    gpu.compute,
    gpu.memoryGiB,
    container,
    base,
  ]);
  let known = mgpuReadings.get(key);
  if (known === undefined) {
    const own: Violation[] = [];
    known = { reading: evaluateMgpuContainer(gpu, container, base, own), violations: own };
    if (mgpuReadings.size >= MGPU_READINGS_KEPT) {
      const oldest = mgpuReadings.keys().next().value;
      if (oldest !== undefined) mgpuReadings.delete(oldest);
    }
    mgpuReadings.set(key, known);
  }
  violations.push(...known.violations);
  return known.reading;
}

function evaluateAgainstInventory(
  share: ContainerShare,
  policy: ComputePolicy | undefined,
  unknownPolicy: boolean,
  inventory: GpuInventory,
  violations: Violation[],
): void {
  const base = `containers.${share.index}.gpu`;
  const container = share.name;
  const model = share.model;
  if (model !== undefined && !inventory.pools.some((pool) => pool.model === model)) {
    violations.push({
      rule: 'model-unknown',
      path: `${base}.model`,
      params: { container, model, known: knownModels(inventory) },
    });
    return;
  }
  const ofType = inventory.pools.filter(
    (pool) => pool.resourceType === share.type && (model === undefined || pool.model === model),
  );
  const maxOf = (pools: GpuPool[], read: (pool: GpuPool) => number) =>
    pools.reduce((max, pool) => Math.max(max, read(pool)), 0);

  if (share.perCard.memoryMiB !== null && ofType.length > 0) {
    const modelMiB = maxOf(ofType, (pool) => pool.memoryMiBPerCard);
    if (share.perCard.memoryMiB > modelMiB) {
      const total = share.memoryMiB ?? 0;
      const needed = Math.ceil(total / modelMiB);
      violations.push({
        rule: 'per-card-memory-exceeds-model',
        path: `${base}.memoryGiB`,
        params: {
          container,
          ...(model !== undefined ? { model } : {}),
          perCardMiB: share.perCard.memoryMiB,
          modelMiB,
          maxGiB: String(largestWholeGiB(modelMiB, share.cards)),
          ...(needed <= MAX_CARDS &&
          share.computePercent % needed === 0 &&
          share.computePercent / needed <= 100
            ? { cardsSuggestion: needed }
            : {}),
        },
      });
    }
  }

  // Fractional pods go only to pools of their own policy; whole-card pods skip the match (§5).
  const podPolicy = policy ?? DEFAULT_NODE_POLICY;
  const fractional = share.type === 'mgpu' && !share.wholeCards;
  const schedulable =
    fractional && !unknownPolicy ? ofType.filter((pool) => pool.policy === podPolicy) : ofType;
  const maxCards = maxOf(schedulable, (pool) => pool.cardsPerNode);
  if (share.cards > maxCards) {
    // Without multi-card sharing, whole mGPU cards are counted by the compute field.
    const cardsField = share.type === 'mgpu' && !share.multiCard ? 'compute' : 'cards';
    violations.push({
      rule: 'cards-exceed-node',
      path: `${base}.${cardsField}`,
      params: {
        container,
        field: cardsField,
        cards: share.cards,
        ...(model !== undefined ? { model } : {}),
        ...(fractional && !unknownPolicy ? { policy: podPolicy } : {}),
        maxCards,
      },
    });
  }
}

/**
 * How many pods of these containers an empty cluster could hold at most: per matching node, the
 * fewest of each container's and of the whole pod's fits by the 16-instance, 100 % and memory
 * limits of its cards; summed over nodes. It over-counts (largest card count per pool, no
 * packing losses), so a request it refuses can never be placed. Undefined for pods of mixed types.
 */
export function podsClusterHolds(
  shares: readonly ContainerShare[],
  policy: ComputePolicy | undefined,
  unknownPolicy: boolean,
  inventory: GpuInventory,
): number | undefined {
  const first = shares[0];
  if (first === undefined || shares.some((share) => share.type !== first.type)) return undefined;
  const model = shares.find((share) => share.model !== undefined)?.model;
  const podPolicy = policy ?? DEFAULT_NODE_POLICY;
  const fractional = shares.some((share) => share.type === 'mgpu' && !share.wholeCards);
  const pools = inventory.pools.filter(
    (pool) =>
      pool.resourceType === first.type &&
      (model === undefined || pool.model === model) &&
      (!fractional || unknownPolicy || pool.policy === podPolicy),
  );
  let total = 0;
  for (const pool of pools) {
    const cards = pool.cardsPerNode;
    const cardMiB = pool.memoryMiBPerCard;
    let perNode = Number.POSITIVE_INFINITY;
    let instances = 0;
    let percent = 0;
    let mib = 0;
    for (const share of shares) {
      if (share.cards > cards) {
        perNode = 0;
        break;
      }
      const whole = share.wholeCards;
      const memory = share.perCard.memoryMiB;
      // How many instances of this container one card takes: 16, 100 % and its memory bound it.
      const perCard = whole
        ? 1
        : Math.min(
            MAX_INSTANCES_PER_CARD,
            Math.floor(100 / share.perCard.computePercent),
            memory === null || memory === 0 ? MAX_INSTANCES_PER_CARD : Math.floor(cardMiB / memory),
          );
      perNode = Math.min(perNode, Math.floor((perCard * cards) / share.cards));
      instances += share.cards;
      percent += share.computePercent;
      mib += whole ? cardMiB * share.cards : (share.memoryMiB ?? 0);
    }
    if (perNode > 0) {
      perNode = Math.min(
        perNode,
        Math.floor((MAX_INSTANCES_PER_CARD * cards) / instances),
        Math.floor((100 * cards) / percent),
        mib > 0 ? Math.floor((cardMiB * cards) / mib) : perNode,
      );
    }
    total += perNode * pool.nodes;
  }
  return total;
}

/** Evaluates every rule on a request; the language-free core of `checkRequest` and `lint`. */
export function evaluateRequest(
  request: WorkloadRequest,
  inventory?: GpuInventory,
  options: EvaluateOptions = {},
): Evaluation {
  const violations: Violation[] = [];
  const shares: ContainerShare[] = [];

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
    const reserved = options.reservedNamespaces ?? DEFAULT_RESERVED_NAMESPACES;
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

  const seenNames = new Set<string>();
  const multiCardContainers: string[] = [];
  let firstModel: string | undefined;
  request.containers.forEach((container, index) => {
    const label = containerLabel(container, index);
    const base = `containers.${index}`;
    if (!isDns1123Label(container.name)) {
      const suggestion = suggestName(container.name, 'label');
      violations.push({
        rule: 'container-name-format',
        path: `${base}.name`,
        params: { value: quoteTyped(container.name), ...(suggestion ? { suggestion } : {}) },
      });
    } else if (seenNames.has(container.name)) {
      violations.push({
        rule: 'container-name-unique',
        path: `${base}.name`,
        params: { value: quoteTyped(container.name) },
      });
    }
    seenNames.add(container.name);
    if (container.image.trim() === '') {
      violations.push({
        rule: 'image-required',
        path: `${base}.image`,
        params: { container: label },
      });
    } else {
      const problem = imageReferenceProblem(container.image);
      if (problem !== undefined) {
        violations.push({
          rule: 'image-reference',
          path: `${base}.image`,
          params: { container: label, value: quoteTyped(container.image), problem },
        });
      }
    }

    const gpu = container.gpu;
    if (gpu === undefined || gpu.type === 'none') {
      if (gpu?.multiCard) {
        violations.push({
          rule: 'multi-card-mgpu-only',
          path: `${base}.gpu.multiCard`,
          params: { container: label, type: 'none' },
        });
      }
      return;
    }
    const model = gpu.model?.trim() ? gpu.model.trim() : undefined;
    if (model !== undefined) {
      if (firstModel === undefined) firstModel = model;
      else if (firstModel !== model) {
        violations.push({
          rule: 'model-conflict',
          path: `${base}.gpu.model`,
          params: { container: label, model, other: firstModel },
        });
      }
    }

    // `annotation-key-too-long`: the scheduler writes gpu-index-container-<name> for every GPU
    // container, the tightest of the keys that carry the name (checked after the nvidia share).
    const keyTooLong =
      container.name.length > MAX_GPU_CONTAINER_NAME &&
      (gpu.multiCard || isDns1123Label(container.name));
    const annotationKeyViolation: Violation = {
      rule: 'annotation-key-too-long',
      path: `${base}.name`,
      params: {
        container: label,
        length: container.name.length,
        prefix: VKE.gpuIndexAnnotationPrefix,
        max: MAX_GPU_CONTAINER_NAME,
      },
    };
    const before = violations.length;
    if (gpu.type === 'nvidia') {
      if (gpu.multiCard) {
        violations.push({
          rule: 'multi-card-mgpu-only',
          path: `${base}.gpu.multiCard`,
          params: { container: label, type: 'nvidia' },
        });
      }
      const cards = gpu.cards === undefined ? 1 : parseCards(gpu.cards);
      if (cards === undefined) {
        violations.push({
          rule: 'cards-range',
          path: `${base}.gpu.cards`,
          params: { container: label, value: quoteTyped(String(gpu.cards)) },
        });
      } else if (violations.length === before) {
        shares.push({
          index,
          name: container.name,
          type: 'nvidia',
          multiCard: false,
          wholeCards: true,
          cards,
          perCard: { computePercent: 100, memoryMiB: null },
          computePercent: cards * 100,
          memoryMiB: null,
          ...(model !== undefined ? { model } : {}),
        });
      }
      if (keyTooLong) violations.push(annotationKeyViolation);
      return;
    }

    if (gpu.multiCard) multiCardContainers.push(label);
    if (keyTooLong) violations.push(annotationKeyViolation);
    const gpuViolations: Violation[] = [];
    const reading = evaluateMgpuContainerCached(gpu, label, `${base}.gpu`, gpuViolations);
    violations.push(...gpuViolations);
    if (
      gpuViolations.length === 0 &&
      reading.cards !== undefined &&
      reading.computePercent !== undefined &&
      reading.wholeCards !== undefined
    ) {
      const memoryMiB = reading.memoryMiB?.toNumber() ?? null;
      shares.push({
        index,
        name: container.name,
        type: 'mgpu',
        multiCard: gpu.multiCard,
        wholeCards: reading.wholeCards,
        cards: reading.cards,
        perCard: {
          computePercent: reading.computePercent / reading.cards,
          memoryMiB: memoryMiB === null ? null : memoryMiB / reading.cards,
        },
        computePercent: reading.computePercent,
        memoryMiB,
        ...(model !== undefined ? { model } : {}),
      });
    }
  });

  // `multi-card-policy`: multi-card sharing needs native-burst-share on the pod.
  if (multiCardContainers.length > 0 && policy !== 'native-burst-share') {
    violations.push({
      rule: 'multi-card-policy',
      path: 'computePolicy',
      params: { containers: multiCardContainers, ...(policy ? { policy } : {}) },
    });
  }

  if (inventory !== undefined) {
    const known = policy !== undefined && isComputePolicy(policy) ? policy : undefined;
    const unknownPolicy = policy !== undefined && known === undefined;
    const before = violations.length;
    for (const share of shares)
      evaluateAgainstInventory(share, known, unknownPolicy, inventory, violations);
    const gpuContainers = request.containers.filter(
      (container) => container.gpu !== undefined && container.gpu.type !== 'none',
    ).length;
    // `replicas-exceed-cluster` only when every GPU container is understood and fits some node.
    if (
      violations.length === before &&
      shares.length > 0 &&
      shares.length === gpuContainers &&
      Number.isInteger(request.replicas)
    ) {
      const max = podsClusterHolds(shares, known, unknownPolicy, inventory);
      if (max !== undefined && request.replicas > max) {
        violations.push({
          rule: 'replicas-exceed-cluster',
          path: 'replicas',
          params: {
            value: request.replicas,
            max,
            ...(firstModel !== undefined ? { model: firstModel } : {}),
          },
        });
      }
    }
  }
  return { violations, shares };
}

/** Checks a workload request against every rule (spec §3) and builds its manifest when valid. */
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
    ...(valid ? { manifest: buildDeployment(request, shares, options) } : {}),
  };
}
