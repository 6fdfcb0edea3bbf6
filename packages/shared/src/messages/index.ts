import { type Translate, translator } from '../i18n.js';
import { QUOTA_CORE, QUOTA_MEMORY } from '../quota.js';
import type { Lang, RuleId, RuleParams, Violation } from '../rules.js';
import { en } from './en.js';
import type { RuleText, Words } from './words.js';
import { zhCN } from './zh-cn.js';

export type { RuleText } from './words.js';

/**
 * The rule messages on the console's one i18n mechanism (`i18n.ts`): one message per rule id, a
 * function of that rule's own parameters. Which sentence a rule says, and the parts it names
 * (labels, lists, amounts), is chosen here once for every language; each language's table
 * (`en.ts`, `zh-cn.ts`, typed by `Words`) only has the words.
 */
type RuleCatalog = { readonly [R in RuleId]: (params: RuleParams[R]) => RuleText };

/** Field labels exactly as the form shows them (spec §7), so a message names what to change. */
export const FIELD_LABELS = { 'zh-CN': zhCN.labels, en: en.labels } as const;

const QUOTA_FIELD_LABEL = { compute: 'compute', memoryGiB: 'memory', cards: 'cards' } as const;

const withFix = (fix: string | undefined) => (fix ? { fix } : {});

function catalog(w: Words): RuleCatalog {
  const { labels } = w;
  /** A quota amount in its unit: mgpu-core is percent of one card, mgpu-memory MiB. */
  const quota = (resource: string, n: number) =>
    resource === QUOTA_CORE ? w.quotaCores(n) : resource === QUOTA_MEMORY ? `${n} MiB` : String(n);
  const suggestName = (suggestion: string | undefined) =>
    withFix(suggestion ? w.suggestName(suggestion) : undefined);
  /** "<container>'s compute C over N cards is P% per card": both per-card compute rules open so. */
  const perCardCompute = (p: {
    container: string;
    compute: string;
    cards: number;
    perCardPercent: string | number;
  }) =>
    w.spread(
      w.of(labels.compute, p.container),
      w.compute(p.compute),
      w.cards(p.cards),
      `${p.perCardPercent}%`,
    );

  return {
    'compute-format': ({ container, value, problem, suggestions }) => {
      const message = w.computeFormat.message[problem](w.of(labels.compute, container), value);
      const fix = suggestions.length > 0 ? w.suggest(w.or(suggestions)) : undefined;
      switch (problem) {
        case 'empty':
        case 'below-minimum':
        case 'above-maximum':
          return { message, fix: w.computeFormat.fix[problem] };
        case 'not-a-number':
          return { message, fix: fix ?? w.computeFormat.fix[problem] };
        case 'slice-decimals':
        case 'above-one-decimals':
          return { message, ...withFix(fix) };
      }
    },
    'compute-whole-cards': ({ container, value, wholeCards, multiCard }) => ({
      message: w.computeWholeCards.message(w.of(labels.compute, container), value),
      fix:
        w.computeWholeCards.use(w.or(wholeCards)) +
        (multiCard
          ? w.computeWholeCards.orMultiCard(w.cards(multiCard.cards), multiCard.perCardPercent)
          : w.stop),
    }),
    'cards-range': ({ container, value }) => ({
      message: w.cardsRange.message(
        w.of(labels.cards, container),
        value === '' ? '' : w.cardsRange.not(value),
      ),
      fix: w.cardsRange.fix,
    }),
    'per-card-compute-precision': (p) => ({
      message: perCardCompute(p) + w.perCardComputePrecision.rest,
      fix: w.perCardComputePrecision.either(
        [
          p.computeSuggestions.length > 0
            ? w.perCardComputePrecision.tryCompute(w.or(p.computeSuggestions))
            : '',
          p.cardSuggestions.length > 0
            ? w.perCardComputePrecision.useCards(w.or(p.cardSuggestions))
            : '',
        ].filter(Boolean),
      ),
    }),
    'per-card-compute-max': (p) => ({
      message: perCardCompute(p) + w.perCardComputeMax.rest,
      fix: p.cardsNeeded
        ? w.perCardComputeMax.moreCards(p.cardsNeeded, p.maxCompute)
        : w.perCardComputeMax.lessCompute(p.maxCompute),
    }),
    'memory-required': ({ container, value, perCardPercent, minimumGiB }) => {
      const field = w.of(labels.memory, container);
      const t = w.memoryRequired;
      return {
        message:
          value.trim() === ''
            ? t.required(field, perCardPercent === undefined ? '' : t.slice(perCardPercent))
            : /^[\d.]+…$/.test(value)
              ? t.tooManyDigits(field)
              : t.notGiB(field, value),
        fix: t.fix(minimumGiB),
      };
    },
    'memory-with-whole-card': ({ container }) => ({
      message: w.memoryWithWholeCard.message(w.of(labels.memory, container)),
      fix: w.memoryWithWholeCard.fix,
    }),
    'per-card-memory-integer': ({ container, memoryGiB, cards, perCardMiB, suggestions }) => ({
      message:
        w.spread(
          w.of(labels.memory, container),
          `${memoryGiB} GiB`,
          w.cards(cards),
          `${perCardMiB} MiB`,
        ) + w.perCardMemoryInteger.rest,
      ...(suggestions.length > 0
        ? { fix: w.suggest(w.or(suggestions.map((s) => `${s} GiB`))) }
        : {}),
    }),
    'per-card-memory-range': (p) => ({
      message:
        w.spread(
          w.of(labels.memory, p.container),
          `${p.memoryGiB} GiB`,
          w.cards(p.cards),
          `${p.perCardMiB} MiB`,
        ) + w.perCardMemoryRange.rest,
      fix:
        (p.problem === 'too-small'
          ? w.perCardMemoryRange.atLeastGiB(p.boundGiB)
          : w.atMostGiB(p.boundGiB)) +
        (p.cardsSuggestion ? w.perCardMemoryRange.orCards(w.cards(p.cardsSuggestion)) : '') +
        w.stop,
    }),
    'multi-card-policy': ({ containers, policy }) => ({
      message: w.multiCardPolicy.message(
        w.multiCardPolicy.containers(containers),
        policy ? w.multiCardPolicy.not(policy) : '',
      ),
      fix: w.multiCardPolicy.fix,
    }),
    'annotation-key-too-long': ({ container, length, prefix, max }) => ({
      message: w.annotationKeyTooLong.message(container, length, prefix, max),
      fix: w.annotationKeyTooLong.fix(max),
    }),
    'model-unknown': ({ container, model, known }) => ({
      message: w.modelUnknown.message(w.of(labels.model, container), model),
      fix: known.length > 0 ? w.modelUnknown.choose(w.or(known)) : w.modelUnknown.any,
    }),
    'per-card-memory-exceeds-model': (p) => {
      const t = w.perCardMemoryExceedsModel;
      return {
        message: t.message(
          w.of(labels.memory, p.container),
          p.perCardMiB,
          p.model ? t.model(p.model) : t.anyModel,
          p.modelMiB,
        ),
        fix:
          w.atMostGiB(p.maxGiB) +
          (p.cardsSuggestion ? t.orMultiCard(w.cards(p.cardsSuggestion)) : '') +
          w.stop,
      };
    },
    'cards-exceed-node': ({ container, field, cards, model, policy, maxCards }) => {
      const none = maxCards === 0;
      const t = none ? w.cardsExceedNode.none : w.cardsExceedNode.over;
      const where = (model ? t.model(model) : '') + (policy ? t.policy(policy) : '');
      const label = w.of(labels[field], container);
      return none
        ? { message: w.cardsExceedNode.none.message(label, where), fix: w.cardsExceedNode.none.fix }
        : {
            message: w.cardsExceedNode.over.message(label, w.cards(cards), where, maxCards),
            fix: w.cardsExceedNode.over.fix(w.cards(maxCards)),
          };
    },
    'name-format': ({ value, suggestion }) => ({
      message: value === '' ? w.required(labels.name) : w.nameFormat.message(value),
      ...suggestName(suggestion),
    }),
    'namespace-format': ({ value, suggestion }) => ({
      message: w.namespaceFormat.message(value),
      ...suggestName(suggestion),
    }),
    'containers-required': () => ({ ...w.containersRequired }),
    'container-name-format': ({ value, suggestion }) => ({
      message:
        value === '' ? w.required(labels.containerName) : w.containerNameFormat.message(value),
      ...suggestName(suggestion),
    }),
    'container-name-unique': ({ value }) => ({
      message: w.containerNameUnique.message(value),
      fix: w.containerNameUnique.fix,
    }),
    'image-required': ({ container }) => ({
      message: w.imageRequired.message(container),
      fix: w.imageRequired.fix,
    }),
    'replicas-range': ({ value }) => ({
      message: w.replicasRange.message(value),
      fix: w.replicasRange.fix,
    }),
    'replicas-exceed-cluster': ({ value, max, model, nodes }) => {
      const { byPods, byShape } = w.replicasExceedCluster;
      return nodes !== undefined
        ? { message: byPods.message(value, nodes, max), fix: byPods.fix(max) }
        : {
            message: byShape.message(value, model ? byShape.model(model) : '', max),
            fix: byShape.fix(max),
          };
    },
    'namespace-reserved': ({ value, reserved }) => ({
      message: w.namespaceReserved.message(value, w.and(reserved)),
      fix: w.namespaceReserved.fix,
    }),
    'image-reference': ({ container, value, problem }) => ({
      message: w.imageReference.message(container, value, w.imageReference.problems[problem]),
      fix: w.imageReference.fix,
    }),
    'name-too-long': ({ length, max }) => ({
      message: w.nameTooLong.message(length, max),
      fix: w.nameTooLong.fix(max),
    }),
    'containers-max': ({ count, max }) => ({
      message: w.containersMax.message(count, max),
      fix: w.containersMax.fix(max),
    }),
    'statefulset-name': ({ value, problem, length, max, suggestion }) => {
      const t = w.statefulsetName;
      return {
        message: problem === 'dns-1035' ? t.dns1035(value) : t.tooLong(length, max),
        fix: t.fix(suggestion ? t.suggest(suggestion) : t.use, max),
      };
    },
    'compute-policy-unknown': ({ value }) => ({
      message: w.computePolicyUnknown.message(value),
      fix: w.computePolicyUnknown.fix,
    }),
    'multi-card-mgpu-only': ({ container, type }) => ({
      message: w.multiCardMgpuOnly.message(container, type),
      fix: w.multiCardMgpuOnly.fix,
    }),
    'model-conflict': ({ container, model, other }) => ({
      message: w.modelConflict.message(w.of(labels.model, container), model, other),
      fix: w.modelConflict.fix,
    }),
    'requests-equal-limits': ({ container, resource }) => ({
      message: w.requestsEqualLimits.message(container, resource),
      fix: w.requestsEqualLimits.fix,
    }),
    'quota-exceeded': (p) => {
      const t = w.quotaExceeded;
      const amount = (n: number) => quota(p.resource, n);
      const field = w.of(labels[QUOTA_FIELD_LABEL[p.field]], p.container);
      const limits = t.limits(p.quota, p.namespace, p.resource, amount(p.limit));
      const describe = `kubectl describe resourcequota ${p.quota} -n ${p.namespace}`;
      if (p.surge !== undefined) {
        const { maxSurge, fits } = p.surge;
        return {
          message: t.surge.message(
            limits,
            p.replicas,
            p.perPod,
            maxSurge,
            amount(p.requested),
            field,
          ),
          fix: t.surge.fix(fits, fits === 0 ? t.surge.unavailable : '') + t.raise(describe),
        };
      }
      return {
        message: t.used.message(
          limits,
          amount(p.used),
          p.replicas === 1 ? t.used.onePod : t.used.replicas(p.replicas, p.perPod),
          amount(p.requested),
          field,
        ),
        fix:
          p.maxPerPod > 0
            ? t.fix.perPod(amount(p.maxPerPod)) +
              (p.replicas > 1 && p.maxReplicas > 0 ? t.fix.orReplicas(p.maxReplicas) : '') +
              t.raise(describe)
            : (p.maxReplicas > 0 ? t.fix.runAtMost(p.maxReplicas) : t.fix.exhausted) +
              t.fix.free(describe),
      };
    },
  };
}

const RULE_TEXT: Record<Lang, Translate<RuleCatalog>> = {
  en: translator<RuleCatalog>(catalog(en)),
  'zh-CN': translator<RuleCatalog>(catalog(zhCN)),
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
