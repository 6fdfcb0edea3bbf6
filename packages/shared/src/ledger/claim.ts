import { z } from 'zod';

/**
 * The ledger's unit: what one container takes on each of its cards (spec §5). The scheduler
 * books it, the node agents create instances from it, and every per-card sum (node states,
 * pools, stranded capacity, the dashboard) is made of it.
 */
export interface CardClaim {
  type: 'mgpu' | 'nvidia';
  /** Percent of one card's compute, on each of the container's cards (100 for whole cards). */
  perCardCompute: number;
  /** MiB on each of its cards; null for whole cards, which bring all their memory. */
  perCardMemoryMiB: number | null;
}

/** One container's claim: the cards the scheduler gave it and the same share on each. */
export interface ContainerClaim extends CardClaim {
  name: string;
  /** Card indexes on the node, as `gpu-index-container-<name>` lists them. */
  cards: number[];
}

/** What one bound (or assumed) pod holds on its node. */
export interface PodClaims {
  /** `namespace/name`. */
  key: string;
  node: string;
  containers: ContainerClaim[];
}

/** A whole `nvidia.com/gpu` card: all its compute and memory, no mGPU instance beside it. */
export const WHOLE_CARD_CLAIM: CardClaim = {
  type: 'nvidia',
  perCardCompute: 100,
  perCardMemoryMiB: null,
};

/**
 * A claim's per-card share as the wire spells it: the check result's `perCard` (spec §7) and an
 * allocation record's `requested` (spec §8). The same two numbers as `CardClaim`, named as those
 * JSON contracts fixed them; `shareOfClaim` and `claimOfShare` are the one mapping between them.
 */
export interface CardShare {
  /** `CardClaim.perCardCompute`. */
  computePercent: CardClaim['perCardCompute'];
  /** `CardClaim.perCardMemoryMiB`. */
  memoryMiB: CardClaim['perCardMemoryMiB'];
}

export const CardShareSchema = z.object({
  computePercent: z.number(),
  memoryMiB: z.number().nullable(),
}) satisfies z.ZodType<CardShare>;

export const shareOfClaim = (claim: CardClaim): CardShare => ({
  computePercent: claim.perCardCompute,
  memoryMiB: claim.perCardMemoryMiB,
});

/** The claim a share stands for: whole nvidia cards are always `WHOLE_CARD_CLAIM`. */
export const claimOfShare = (type: CardClaim['type'], share: CardShare): CardClaim =>
  type === 'nvidia'
    ? WHOLE_CARD_CLAIM
    : { type, perCardCompute: share.computePercent, perCardMemoryMiB: share.memoryMiB };
