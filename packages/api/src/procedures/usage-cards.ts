import {
  cardFigures,
  DEFAULT_USAGE_WINDOW_MINUTES,
  instancesPerCard,
  ownCardFigures,
  UsageCardsInputSchema,
  UsageCardsSchema,
} from '@mgpu/shared';
import { seesNodes } from '../identity/cluster-view.js';
import { visibleItems } from '../identity/filtered-reads.js';
import { publicProcedure } from '../trpc/init.js';
import { heldInstances, readUsage } from '../usage/read-usage.js';

/**
 * `usage.cards` (issue 28 "On every card"): each card's own figures beside what it allocated,
 * and each instance's use where the source has per-instance series, for the nodes named (a
 * page's, in one call: one join however many nodes it shows) or all. On a shared card a
 * signed-in operator sees only the instances of the namespaces they may list pods in. Who may
 * `list nodes` sees the cards' own figures (as `cluster.nodes`); who may not (the usual team)
 * sees only the cards holding their own instances, with those instances' figures and the
 * cards' own withheld (`withheld`), so nothing of another namespace reaches them.
 */
export const usageCards = publicProcedure
  .input(UsageCardsInputSchema)
  .output(UsageCardsSchema)
  .query(async ({ ctx, input }) => {
    const readings = await readUsage(ctx.usage, input?.windowMinutes);
    const all = heldInstances(ctx.allocations.snapshot());
    const onCard = instancesPerCard(all);
    const nodes = input?.nodes ? new Set(input.nodes) : undefined;
    const inNodes = nodes ? all.filter((record) => nodes.has(record.node)) : all;
    const visible = await visibleItems(ctx, inNodes);
    const cards = (await seesNodes(ctx))
      ? cardFigures(visible, readings, onCard, inNodes).filter(
          (card) => !nodes || nodes.has(card.node),
        )
      : ownCardFigures(visible, readings, onCard);
    return {
      source: readings.source,
      simulated: readings.simulated,
      windowMinutes: input?.windowMinutes ?? DEFAULT_USAGE_WINDOW_MINUTES,
      idleThresholdPercent: ctx.usage.idleThresholdPercent,
      idleAfterSeconds: ctx.usage.idleAfterSeconds,
      cards,
    };
  });
