import {
  type NamespaceUsage,
  namespaceVerdict,
  UsageNamespacesInputSchema,
  UsageNamespacesSchema,
  type WorkloadUsage,
} from '@mgpu/shared';
import { visibleItems } from '../identity/filtered-reads.js';
import { publicProcedure } from '../trpc/init.js';
import { readUsage } from '../usage/read-usage.js';
import { workloadUsageRows } from './usage-workloads.js';

/**
 * `usage.namespaces` (spec §9 "Usage"): per namespace (team) the sums of its workloads' rows of
 * `usage.workloads`, so the two tables always agree. Namespaces whose workloads hold no cards
 * are left out; a signed-in operator sees only the namespaces they may list pods in.
 */
export const usageNamespaces = publicProcedure
  .input(UsageNamespacesInputSchema)
  .output(UsageNamespacesSchema)
  .query(async ({ ctx, input }) => {
    const readings = await readUsage(ctx.usage, input?.windowMinutes);
    const rows = await visibleItems(ctx, workloadUsageRows(ctx, readings));
    const byNamespace = new Map<string, WorkloadUsage[]>();
    for (const row of rows) {
      const team = byNamespace.get(row.namespace);
      if (team) team.push(row);
      else byNamespace.set(row.namespace, [row]);
    }
    const namespaces: NamespaceUsage[] = [];
    for (const [namespace, team] of byNamespace) {
      const verdict = namespaceVerdict(team, readings);
      if (verdict.workloads > 0) namespaces.push({ namespace, ...verdict });
    }
    return namespaces.sort((a, b) => a.namespace.localeCompare(b.namespace));
  });
