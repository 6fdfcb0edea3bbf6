import type { RuleParams } from '../rules.js';

export interface RuleText {
  message: string;
  fix?: string;
}

type Items = readonly (string | number)[];
type ImageProblem = RuleParams['image-reference']['problem'];
type ComputeProblem = RuleParams['compute-format']['problem'];

/** The form's field labels a message can name (spec §7). */
export type FieldLabel =
  | 'gpuType'
  | 'multiCard'
  | 'compute'
  | 'memory'
  | 'cards'
  | 'model'
  | 'computePolicy'
  | 'name'
  | 'namespace'
  | 'replicas'
  | 'containerName'
  | 'image';

/**
 * One language's words for the rule messages: its sentences, as functions of the parts the
 * shared logic (`index.ts`) has already chosen and put in order. What a message says when, and
 * which parts it names, is decided there once; a language only says it. Each language's table
 * is typed by this, so a missing sentence does not compile.
 */
export interface Words {
  readonly labels: Readonly<Record<FieldLabel, string>>;
  /** A field of one container: "GPU compute of container "c"". */
  of(field: string, container: string): string;
  /** "a, b or c". */
  or(items: Items): string;
  /** "a, b and c". */
  and(items: Items): string;
  /** A number of cards: "1 card", "2 cards". */
  cards(n: number): string;
  /** A compute amount as typed, in cards. */
  compute(compute: string): string;
  /** An mgpu-core quota amount (percent of one card), with its number of cards. */
  quotaCores(n: number): string;
  /** The end of a sentence. */
  stop: string;
  /** A fix offering values: "Try 1 or 2." */
  suggest(list: string): string;
  /** A fix offering one name: "Try "web-1"." */
  suggestName(name: string): string;
  /** A required field left empty. */
  required(label: string): string;
  /** A share spread over cards: "field: amount over 2 cards gives perCard per card; ". */
  spread(field: string, amount: string, cards: string, perCard: string): string;
  /** "Use at most 2 GiB". */
  atMostGiB(gib: string): string;

  computeFormat: {
    message: Readonly<Record<ComputeProblem, (field: string, value: string) => string>>;
    fix: Readonly<Record<'empty' | 'not-a-number' | 'below-minimum' | 'above-maximum', string>>;
  };
  computeWholeCards: {
    message(field: string, value: string): string;
    use(list: string): string;
    orMultiCard(cards: string, perCardPercent: number): string;
  };
  cardsRange: {
    message(field: string, not: string): string;
    not(value: string): string;
    fix: string;
  };
  perCardComputePrecision: {
    rest: string;
    tryCompute(list: string): string;
    useCards(list: string): string;
    /** The fixes that apply, as one sentence. */
    either(fixes: string[]): string;
  };
  perCardComputeMax: {
    rest: string;
    moreCards(cards: number, maxCompute: string): string;
    lessCompute(maxCompute: string): string;
  };
  memoryRequired: {
    required(field: string, why: string): string;
    slice(perCardPercent: number): string;
    tooManyDigits(field: string): string;
    notGiB(field: string, value: string): string;
    fix(minimumGiB: string): string;
  };
  memoryWithWholeCard: { message(field: string): string; fix: string };
  perCardMemoryInteger: { rest: string };
  perCardMemoryRange: {
    rest: string;
    atLeastGiB(gib: string): string;
    orCards(cards: string): string;
  };
  multiCardPolicy: {
    message(containers: string, not: string): string;
    containers(containers: readonly string[]): string;
    not(policy: string): string;
    fix: string;
  };
  annotationKeyTooLong: {
    message(container: string, length: number, prefix: string, max: number): string;
    fix(max: number): string;
  };
  modelUnknown: {
    message(field: string, model: string): string;
    choose(list: string): string;
    any: string;
  };
  perCardMemoryExceedsModel: {
    message(field: string, perCardMiB: number, model: string, modelMiB: number): string;
    model(model: string): string;
    anyModel: string;
    orMultiCard(cards: string): string;
  };
  cardsExceedNode: {
    none: { message(field: string, where: string): string; fix: string } & NodeWhere;
    over: {
      message(field: string, cards: string, where: string, maxCards: number): string;
      fix(cards: string): string;
    } & NodeWhere;
  };
  nameFormat: { message(value: string): string };
  namespaceFormat: { message(value: string): string };
  containersRequired: RuleText;
  containerNameFormat: { message(value: string): string };
  containerNameUnique: { message(value: string): string; fix: string };
  imageRequired: { message(container: string): string; fix: string };
  replicasRange: { message(value: number): string; fix: string };
  replicasExceedCluster: {
    byPods: {
      message(value: number, nodes: number, max: number): string;
      fix(max: number): string;
    };
    byShape: {
      message(value: number, where: string, max: number): string;
      model(model: string): string;
      fix(max: number): string;
    };
  };
  namespaceReserved: { message(value: string, reserved: string): string; fix: string };
  imageReference: {
    message(container: string, value: string, problem: string): string;
    problems: Readonly<Record<ImageProblem, string>>;
    fix: string;
  };
  nameTooLong: { message(length: number, max: number): string; fix(max: number): string };
  containersMax: { message(count: number, max: number): string; fix(max: number): string };
  statefulsetName: {
    dns1035(value: string): string;
    tooLong(length: number, max: number): string;
    fix(lead: string, max: number): string;
    suggest(name: string): string;
    use: string;
  };
  computePolicyUnknown: { message(value: string): string; fix: string };
  multiCardMgpuOnly: { message(container: string, type: string): string; fix: string };
  modelConflict: { message(field: string, model: string, other: string): string; fix: string };
  requestsEqualLimits: { message(container: string, resource: string): string; fix: string };
  quotaExceeded: QuotaWords;
}

/** How a node is narrowed down: " of model A100", " with policy fixed-share". */
interface NodeWhere {
  model(model: string): string;
  policy(policy: string): string;
}

interface QuotaWords {
  /** What the quota allows: "ResourceQuota "q" of Namespace "ns" limits r to 100". */
  limits(quota: string, namespace: string, resource: string, limit: string): string;
  /** ", or have the quota raised (kubectl describe …)." */
  raise(describe: string): string;
  surge: {
    message(
      limits: string,
      replicas: number,
      perPod: number,
      maxSurge: number,
      peak: string,
      field: string,
    ): string;
    fix(fits: number, unavailable: string): string;
    unavailable: string;
  };
  used: {
    message(limits: string, used: string, asker: string, requested: string, field: string): string;
    onePod: string;
    replicas(replicas: number, perPod: number): string;
  };
  fix: {
    perPod(amount: string): string;
    orReplicas(maxReplicas: number): string;
    runAtMost(maxReplicas: number): string;
    exhausted: string;
    free(describe: string): string;
  };
}
