import {
  cardFigures,
  DEFAULT_USAGE_WINDOW_MINUTES,
  instancesPerCard,
  UsageCardsInputSchema,
  UsageCardsSchema,
} from '@mgpu/shared';
import { requireListNodes, visibleItems } from '../identity/filtered-reads.js';
import { publicProcedure } from '../trpc/init.js';
import { heldInstances, readUsage } from '../usage/read-usage.js';

/**
 * `usage.cards` (issue 28 "On every card"): each card's own figures beside what it allocated,
 * and each instance's use where the source has per-instance series. Like `cluster.nodes`, a
 * signed-in operator needs `list nodes`, and sees on a shared card only the instances of the
 * namespaces they may list pods in (the card's own figures stay whole).
 */
export const usageCards = publicProcedure
  .input(UsageCardsInputSchema)
  .output(UsageCardsSchema)
  .query(async ({ ctx, input }) => {
    await requireListNodes(ctx);
    const readings = await readUsage(ctx.usage, input?.windowMinutes);
    const all = heldInstances(ctx.allocations.snapshot());
    const onCard = instancesPerCard(all);
    const node = input?.node;
    const visible = await visibleItems(
      ctx,
      node ? all.filter((record) => record.node === node) : all,
    );
    const cards = cardFigures(visible, readings, onCard, all).filter(
      (card) => !node || card.node === node,
    );
    return {
      source: readings.source,
      simulated: readings.simulated,
      windowMinutes: input?.windowMinutes ?? DEFAULT_USAGE_WINDOW_MINUTES,
      idleThresholdPercent: ctx.usage.idleThresholdPercent,
      idleAfterSeconds: ctx.usage.idleAfterSeconds,
      cards,
    };
  });
