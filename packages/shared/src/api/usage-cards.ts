import { z } from 'zod';
import {
  UsageSourceKindSchema,
  UsageWindowMinutesSchema,
  UsedFiguresSchema,
} from './usage-workloads.js';

/**
 * `usage.cards`: used beside allocated on every card of the nodes named (all without `nodes`),
 * over the window. A page asks once for every node it shows (a workload's), never once a node.
 */
export const UsageCardsInputSchema = z
  .object({
    nodes: z.array(z.string()).max(10_000).optional(),
    windowMinutes: UsageWindowMinutesSchema.optional(),
  })
  .optional();

/**
 * Why a card's own figures are null though the source may have them: the operator may not
 * `list nodes` (under `--auth`), so the card's utilisation and memory — every holder's together,
 * other teams' too — are not theirs to see; their own instances' figures still are.
 */
export const CARD_FIGURES_WITHHELD_REASONS = ['needs-list-nodes'] as const;
export const CardFiguresWithheldSchema = z.enum(CARD_FIGURES_WITHHELD_REASONS);

/**
 * One instance's use on its card, keyed by its allocation record id
 * (`<namespace>/<pod>/<container>/<card>`): compute as percent of the card (the unit of its
 * `requested.computePercent`, so the two sit side by side), memory in MiB.
 */
export const InstanceUsageFiguresSchema = z.object({
  id: z.string(),
  used: UsedFiguresSchema,
});

/**
 * A card's own figures (its exporter's series: utilisation 0–100 of the whole card, memory used)
 * and those of the instances on it where the source has per-instance series; a shared card's
 * figure is the card's, never one instance's.
 */
export const CardUsageFiguresSchema = z.object({
  node: z.string(),
  card: z.number(),
  uuid: z.string().nullable(),
  model: z.string().nullable(),
  used: UsedFiguresSchema,
  memoryFreeMiB: z.number().nullable(),
  instances: z.array(InstanceUsageFiguresSchema),
  /** Set when the card's own figures (and uuid, model) are withheld, null when shown. */
  withheld: CardFiguresWithheldSchema.nullable(),
});

/** The source and the idle settings travel with the cards, so a page can say where they come from. */
export const UsageCardsSchema = z.object({
  source: UsageSourceKindSchema,
  simulated: z.boolean(),
  windowMinutes: z.number(),
  idleThresholdPercent: z.number(),
  idleAfterSeconds: z.number(),
  cards: z.array(CardUsageFiguresSchema),
});

export type UsageCardsInput = z.infer<typeof UsageCardsInputSchema>;
export type InstanceUsageFigures = z.infer<typeof InstanceUsageFiguresSchema>;
export type CardFiguresWithheld = z.infer<typeof CardFiguresWithheldSchema>;
export type CardUsageFigures = z.infer<typeof CardUsageFiguresSchema>;
export type UsageCards = z.infer<typeof UsageCardsSchema>;
