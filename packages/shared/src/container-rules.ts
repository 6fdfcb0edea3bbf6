/** The rules of spec §3 that read one container's own fields: name, image and GPU request. */

import {
  type ContainerShare,
  cardCountsThatSplit,
  nearestSplittableComputes,
  nearestWholeGiB,
  parseCards,
  percentText,
} from './card-shares.js';
import { readCompute, workingComputes } from './compute-reading.js';
import { Big, formatDecimal, isInteger, parseDecimal, quoteTyped } from './decimal.js';
import { imageReferenceProblem } from './image-reference.js';
import { isDns1123Label, suggestName } from './kubernetes-names.js';
import { WHOLE_CARD } from './ledger/claim.js';
import { type ContainerRequest, type GpuRequest, MAX_CARDS } from './request.js';
import {
  MAX_GPU_CONTAINER_NAME,
  PER_CARD_MEMORY_MAX_MIB,
  PER_CARD_MEMORY_MIN_MIB,
  type Violation,
} from './rules.js';
import { VKE } from './vke.js';

const containerLabel = (container: ContainerRequest, index: number) =>
  container.name.trim() === '' ? `#${index + 1}` : container.name;

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
  verifyFixes = true,
): MgpuReading {
  const reading: MgpuReading = {};
  /**
   * A suggested value is offered only when, typed in, it passes every rule of the field it fixes
   * and of the fields it changes (0.01 on 2 cards is 0.5 % per card: not a fix for 0.015).
   */
  const accepts = (field: keyof GpuRequest, patch: Partial<GpuRequest>): boolean => {
    if (!verifyFixes) return true;
    const again: Violation[] = [];
    evaluateMgpuContainer({ ...gpu, ...patch }, container, base, again, false);
    const touched = new Set([field, ...Object.keys(patch)].map((key) => `${base}.${key}`));
    return again.every((violation) => !touched.has(violation.path));
  };
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
    const { params } = compute.violation;
    const suggestions = workingComputes(params.suggestions, gpu, cards, (value) =>
      accepts('compute', { compute: value }),
    );
    violations.push({ ...compute.violation, params: { ...params, suggestions } });
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
        const split = cardCountsThatSplit(percent).find(
          (n) => n > 1 && accepts('compute', { multiCard: true, cards: n }),
        );
        violations.push({
          rule: 'compute-whole-cards',
          path: `${base}.compute`,
          params: {
            container,
            value: gpu.compute ?? '',
            wholeCards: [String(whole), String(whole + 1)].filter(
              (value) => Number(value) <= MAX_CARDS && accepts('compute', { compute: value }),
            ),
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
            computeSuggestions: nearestSplittableComputes(percent, n).filter((value) =>
              accepts('compute', { compute: value }),
            ),
            cardSuggestions: cardCountsThatSplit(percent).filter(
              (other) => other !== n && accepts('compute', { cards: other }),
            ),
          },
        });
      }
      if (!withinCard) {
        const needed = cardCountsThatSplit(percent).find(
          (other) => other > n && accepts('compute', { cards: other }),
        );
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
        suggestions: nearestWholeGiB(memory, cards).filter((value) =>
          accepts('memoryGiB', { memoryGiB: value }),
        ),
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
        ...(suggestion >= 1 &&
        suggestion <= MAX_CARDS &&
        computeFits(suggestion) &&
        accepts('memoryGiB', { cards: suggestion })
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

/** What the containers' rules tell the pod-level and cluster-aware rules. */
export interface ContainersReading {
  /** Labels of the containers that ask for multi-card sharing. */
  multiCardContainers: string[];
  /** The first GPU model a container names. */
  firstModel: string | undefined;
}

/** Every container's own rules, in order; a share for each GPU container whose fields are valid. */
export function evaluateContainers(
  containers: readonly ContainerRequest[],
  violations: Violation[],
  shares: ContainerShare[],
): ContainersReading {
  const seenNames = new Set<string>();
  const multiCardContainers: string[] = [];
  let firstModel: string | undefined;
  containers.forEach((container, index) => {
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
          perCard: WHOLE_CARD,
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
  return { multiCardContainers, firstModel };
}
