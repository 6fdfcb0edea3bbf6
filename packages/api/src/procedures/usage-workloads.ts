import {
  type HeldCard,
  instancesPerCard,
  type UsageReadings,
  UsageWorkloadsInputSchema,
  UsageWorkloadsSchema,
  WORKLOAD_KINDS,
  type WorkloadKind,
  type WorkloadUsage,
  workloadOfPod,
  workloadVerdict,
} from '@mgpu/shared';
import { visibleItems } from '../identity/filtered-reads.js';
import type { BffContext } from '../trpc/context.js';
import { publicProcedure } from '../trpc/init.js';
import { heldCards, readUsage } from '../usage/read-usage.js';
import { listWorkloads } from './workload-list.js';

/**
 * Every listed workload's usage (the same workloads `workload.list` shows), joined with the
 * instances its allocation records say it holds and the whole cards its pods hold, then the
 * owners of the cards no listed workload holds. Whether a card is shared is read over the whole cluster's records, whoever may see
 * them: a card's other holders make its figure the card's.
 */
export function workloadUsageRows(
  ctx: BffContext,
  readings: UsageReadings,
  namespace?: string,
): WorkloadUsage[] {
  const all = heldCards(ctx.allocations.snapshot(), ctx.cluster);
  const onCard = instancesPerCard(all);
  const heldBy = new Map<string, HeldCard[]>();
  for (const record of all) {
    if (namespace && record.namespace !== namespace) continue;
    const key = `${record.namespace}/${record.workload}`;
    const held = heldBy.get(key);
    if (held) held.push(record);
    else heldBy.set(key, [record]);
  }
  const rows: WorkloadUsage[] = listWorkloads(ctx, namespace).map((workload) => {
    const key = `${workload.namespace}/${workload.name}`;
    const held = heldBy.get(key) ?? [];
    heldBy.delete(key);
    return {
      namespace: workload.namespace,
      workload: workload.name,
      kind: workload.kind,
      ...workloadVerdict(held, readings, ctx.usage, onCard),
    };
  });
  // Cards held by pods of no listed workload (a bare pod, a controller the console does not
  // list) still count for their team: one row per owner, or per pod when it has none.
  for (const [owner, records] of unlisted(ctx, heldBy))
    rows.push({ ...owner, ...workloadVerdict(records, readings, ctx.usage, onCard) });
  return rows;
}

const isWorkloadKind = (kind: string): kind is WorkloadKind =>
  (WORKLOAD_KINDS as readonly string[]).includes(kind);

type Owner = Pick<WorkloadUsage, 'namespace' | 'workload' | 'kind'>;

/** The records no listed workload took, by the owner their pod names (`workloadOfPod`). */
function unlisted(
  ctx: BffContext,
  heldBy: ReadonlyMap<string, HeldCard[]>,
): Map<Owner, HeldCard[]> {
  const owners = new Map<string, { owner: Owner; records: HeldCard[] }>();
  for (const records of heldBy.values())
    for (const record of records) {
      const pod = ctx.cluster.pods.get(record.pod, record.namespace);
      const read = pod ? workloadOfPod(pod) : undefined;
      const owner: Owner =
        read && isWorkloadKind(read.kind)
          ? { namespace: record.namespace, workload: read.name, kind: read.kind }
          : { namespace: record.namespace, workload: record.workload ?? record.pod, kind: 'Pod' };
      const key = `${owner.namespace}/${owner.kind}/${owner.workload}`;
      const known = owners.get(key);
      if (known) known.records.push(record);
      else owners.set(key, { owner, records: [record] });
    }
  return new Map([...owners.values()].map(({ owner, records }) => [owner, records]));
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
