import {
  type AllocationRecord,
  instancesPerCard,
  type UsageReadings,
  UsageWorkloadsInputSchema,
  UsageWorkloadsSchema,
  type WorkloadUsage,
  workloadVerdict,
} from '@mgpu/shared';
import { visibleItems } from '../identity/filtered-reads.js';
import type { BffContext } from '../trpc/context.js';
import { publicProcedure } from '../trpc/init.js';
import { heldInstances, readUsage } from '../usage/read-usage.js';
import { listWorkloads } from './workload-list.js';

/**
 * Every listed workload's usage (the same workloads `workload.list` shows), joined with the
 * instances its allocation records say it holds. Whether a card is shared is read over the whole
 * cluster's records, whoever may see them: a card's other holders make its figure the card's.
 */
export function workloadUsageRows(
  ctx: BffContext,
  readings: UsageReadings,
  namespace?: string,
): WorkloadUsage[] {
  const all = heldInstances(ctx.allocations.snapshot());
  const onCard = instancesPerCard(all);
  const heldBy = new Map<string, AllocationRecord[]>();
  for (const record of all) {
    if (namespace && record.namespace !== namespace) continue;
    const key = `${record.namespace}/${record.workload}`;
    const held = heldBy.get(key);
    if (held) held.push(record);
    else heldBy.set(key, [record]);
  }
  return listWorkloads(ctx, namespace).map((workload) => ({
    namespace: workload.namespace,
    workload: workload.name,
    kind: workload.kind,
    ...workloadVerdict(
      heldBy.get(`${workload.namespace}/${workload.name}`) ?? [],
      readings,
      ctx.usage,
      onCard,
    ),
  }));
}

/**
 * `usage.workloads` (spec §9 "Usage"): per workload what it holds, what it uses over the window,
 * its efficiency and whether it sits idle; unknown figures null with their reason, never 0. A
 * signed-in operator sees the workloads of the namespaces they may list pods in.
 */
export const usageWorkloads = publicProcedure
  .input(UsageWorkloadsInputSchema)
  .output(UsageWorkloadsSchema)
  .query(async ({ ctx, input }) => {
    const readings = await readUsage(ctx.usage, input?.windowMinutes);
    return [...(await visibleItems(ctx, workloadUsageRows(ctx, readings, input?.namespace)))];
  });
