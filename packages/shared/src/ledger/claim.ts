import { z } from 'zod';

/** The two kinds of card a GPU container takes: mGPU instances, or whole `nvidia.com/gpu` cards. */
export const CARD_TYPES = ['mgpu', 'nvidia'] as const;
/** The one schema of a card type: every API, report and CLI schema uses this one. */
export const CardTypeSchema = z.enum(CARD_TYPES);
export type CardType = z.infer<typeof CardTypeSchema>;

/**
 * The ledger's unit: what one container takes on each of its cards (spec §5), spelled as the
 * check result's `perCard` (spec §7) and an allocation record's `requested` carry it. The
 * scheduler books it, the node agents create instances from it, and every per-card sum (node
 * states, pools, stranded capacity, the dashboard) is made of it.
 */
export interface CardClaim {
  /** Percent of one card's compute (100 for whole cards). */
  computePercent: number;
  /** MiB on one card; null for whole cards, which bring all their memory. */
  memoryMiB: number | null;
}

export const CardClaimSchema = z.object({
  computePercent: z.number(),
  memoryMiB: z.number().nullable(),
}) satisfies z.ZodType<CardClaim>;

/** Each card's claim of a whole-card container: all its compute and memory. */
export const WHOLE_CARD: CardClaim = { computePercent: 100, memoryMiB: null };

/**
 * A container's claim on each of its cards and the kind of card it is on: what booking a card
 * needs. The check result's containers, the scheduler's demands and the bound pods' claims all
 * carry it under these names.
 */
export interface GpuClaim {
  type: CardType;
  perCard: CardClaim;
}

/** A whole `nvidia.com/gpu` card: all its compute and memory, no mGPU instance beside it. */
export const WHOLE_CARD_CLAIM: GpuClaim = { type: 'nvidia', perCard: WHOLE_CARD };

/** One container's claim: the cards the scheduler gave it and the same share on each. */
export interface ContainerClaim extends GpuClaim {
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
