import { z } from 'zod';
import {
  UsageSourceKindSchema,
  UsageWindowMinutesSchema,
  UsedFiguresSchema,
} from './usage-workloads.js';

/** `usage.cards`: used beside allocated on every card (of one node, or all), over the window. */
export const UsageCardsInputSchema = z
  .object({ node: z.string().optional(), windowMinutes: UsageWindowMinutesSchema.optional() })
  .optional();

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
export type CardUsageFigures = z.infer<typeof CardUsageFiguresSchema>;
export type UsageCards = z.infer<typeof UsageCardsSchema>;
