import type { CardAssignment, CardState, NodeState, PodDemand } from '../placement/types.js';
import { MAX_INSTANCES_PER_CARD } from '../vke.js';
import type { CardClaim, GpuClaim, PodClaims } from './claim.js';

/** Rounding slack of the compute check: shares such as 100/3 must still fill a card. */
const EPSILON = 1e-9;

/** A card with nothing booked on it. */
export const emptyCard = (index: number): CardState => ({
  index,
  usedCompute: 0,
  usedMemoryMiB: 0,
  instances: 0,
  wholeNvidia: false,
});

/** Nothing on the card at all: what a whole-card container needs. */
export const isIdleCard = (card: CardState): boolean =>
  !card.wholeNvidia && card.instances === 0 && card.usedCompute === 0;

/** The card can take one more mGPU instance (the public scheduler's 16 per card). */
export const hasInstanceSlot = (card: CardState): boolean =>
  !card.wholeNvidia && card.instances < MAX_INSTANCES_PER_CARD;

/** Compute percent still free on the card (none on a whole nvidia card). */
export const freeComputeOn = (card: CardState): number =>
  card.wholeNvidia ? 0 : 100 - card.usedCompute;

/** MiB still free on the card (none on a whole nvidia card). */
export const freeMemoryOn = (card: CardState, memoryMiBPerCard: number): number =>
  card.wholeNvidia ? 0 : memoryMiBPerCard - card.usedMemoryMiB;

/** The MiB a claim takes on one card: a whole card brings all of its memory. */
export const claimMemoryMiB = (claim: CardClaim, memoryMiBPerCard: number): number =>
  claim.memoryMiB ?? memoryMiBPerCard;

/** The card's compute percent once `claim` is booked on it, as `bookOnCard` would leave it. */
export const computeAfterBooking = (card: CardState, claim: GpuClaim): number =>
  claim.type === 'nvidia' ? 100 : card.usedCompute + claim.perCard.computePercent;

/** The card's used MiB once `claim` is booked on it, as `bookOnCard` would leave it. */
export const memoryAfterBooking = (
  card: CardState,
  claim: GpuClaim,
  memoryMiBPerCard: number,
): number =>
  claim.type === 'nvidia'
    ? memoryMiBPerCard
    : card.usedMemoryMiB + claimMemoryMiB(claim.perCard, memoryMiBPerCard);

/** The claim's compute fits on the card without going over 100 %. */
export const computeFitsOn = (card: CardState, claim: CardClaim): boolean =>
  !card.wholeNvidia && card.usedCompute + claim.computePercent <= 100 + EPSILON;

/** The claim's memory fits in what the card has left. */
export const memoryFitsOn = (
  card: CardState,
  claim: CardClaim,
  memoryMiBPerCard: number,
): boolean =>
  !card.wholeNvidia &&
  card.usedMemoryMiB + claimMemoryMiB(claim, memoryMiBPerCard) <= memoryMiBPerCard;

/**
 * Whether one card has room for one card's share of a container: whole cards need an idle
 * card; an mGPU share needs a free instance slot, the compute and the memory — never over-commit.
 */
export function fitsOnCard(
  card: CardState,
  claim: { wholeCards: boolean; perCard: CardClaim },
  memoryMiBPerCard: number,
): boolean {
  if (claim.wholeCards) return isIdleCard(card);
  return (
    hasInstanceSlot(card) &&
    computeFitsOn(card, claim.perCard) &&
    memoryFitsOn(card, claim.perCard, memoryMiBPerCard)
  );
}

/**
 * How many shares like `claim` one idle card holds: a whole card once, an mGPU share as often as
 * the 16-instance limit, 100 % compute and the card's memory allow (`fitsOnCard`, repeated).
 */
export function claimsPerIdleCard(
  claim: { wholeCards: boolean; perCard: CardClaim },
  memoryMiBPerCard: number,
): number {
  if (claim.wholeCards) return 1;
  const { computePercent, memoryMiB } = claim.perCard;
  return Math.min(
    MAX_INSTANCES_PER_CARD,
    Math.floor((100 + EPSILON) / computePercent),
    memoryMiB === null || memoryMiB === 0
      ? MAX_INSTANCES_PER_CARD
      : Math.floor(memoryMiBPerCard / memoryMiB),
  );
}

/**
 * Books (sign 1) or gives back (sign -1) one container's share on one card — the one place a
 * card's usage changes. A whole nvidia card is taken entire and freed entire; an mGPU share adds
 * one instance, its compute and its memory, and giving back never goes below zero.
 */
export function bookOnCard(
  card: CardState,
  claim: GpuClaim,
  memoryMiBPerCard: number,
  sign: 1 | -1 = 1,
): void {
  if (claim.type === 'nvidia') {
    card.wholeNvidia = sign === 1;
    card.usedCompute = sign === 1 ? 100 : 0;
    card.usedMemoryMiB = sign === 1 ? memoryMiBPerCard : 0;
    return;
  }
  card.usedCompute = Math.max(0, card.usedCompute + sign * claim.perCard.computePercent);
  card.usedMemoryMiB = Math.max(
    0,
    card.usedMemoryMiB + sign * claimMemoryMiB(claim.perCard, memoryMiBPerCard),
  );
  card.instances = Math.max(0, card.instances + sign);
}

/** Recomputes the free totals that prune nodes before the card search. */
export function refreshNodeTotals(state: NodeState): void {
  let freeCompute = 0;
  let freeMemoryMiB = 0;
  let idleCards = 0;
  let freeInstanceSlots = 0;
  for (const card of state.cards) {
    if (card.wholeNvidia) continue;
    freeCompute += freeComputeOn(card);
    freeMemoryMiB += freeMemoryOn(card, state.memoryMiBPerCard);
    freeInstanceSlots += MAX_INSTANCES_PER_CARD - card.instances;
    if (isIdleCard(card)) idleCards += 1;
  }
  state.freeCompute = freeCompute;
  state.freeMemoryMiB = freeMemoryMiB;
  state.idleCards = idleCards;
  state.freeInstanceSlots = freeInstanceSlots;
  state.version += 1;
}

/** The claims a successful `placePod` implies, for the scheduler's assume cache. */
export function allocationOf(demand: PodDemand, node: string, cards: CardAssignment): PodClaims {
  return {
    key: demand.key,
    node,
    containers: demand.containers.map((container) => ({
      name: container.name,
      type: container.type,
      cards: cards[container.name] ?? [],
      perCard: container.perCard,
    })),
  };
}

function changeAllocation(state: NodeState, claims: PodClaims, sign: 1 | -1): void {
  for (const container of claims.containers) {
    for (const index of container.cards) {
      const card = state.cards[index];
      if (card !== undefined) bookOnCard(card, container, state.memoryMiBPerCard, sign);
    }
  }
  state.pods = Math.max(0, state.pods + sign);
  refreshNodeTotals(state);
}

/** Books a pod's cards on its node (a bound pod, or one the scheduler has just assumed). */
export function applyAllocation(state: NodeState, claims: PodClaims): void {
  changeAllocation(state, claims, 1);
}

/** Gives a pod's cards back when it goes away. */
export function releaseAllocation(state: NodeState, claims: PodClaims): void {
  changeAllocation(state, claims, -1);
}
