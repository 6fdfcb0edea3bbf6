import {
  indexAfterCursor,
  PendingGroupsInputSchema,
  type PendingGroupsPage,
  PendingGroupsSchema,
  pendingGroupCursor,
} from '@mgpu/shared';
import { pendingGroupListing, pendingGroupsFor } from '../live/pending-cut.js';
import { publicProcedure } from '../trpc/init.js';

/**
 * `cluster.pendingGroups`: the pending pods grouped by request shape, oldest group first, one
 * page at a time — the verdict once per group, its first `podLimit` pods listed and all counted
 * (issue 25). With `key`, only that group: the dashboard's "show more" of its pods.
 */
export const clusterPendingGroups = publicProcedure
  .input(PendingGroupsInputSchema)
  .output(PendingGroupsSchema)
  .query(async ({ ctx, input }): Promise<PendingGroupsPage> => {
    const { limit = 100, podLimit = 20 } = input ?? {};
    const visible = await pendingGroupsFor(ctx, input?.namespace);
    const all = input?.key ? visible.filter((group) => group.key === input.key) : visible;
    const start = indexAfterCursor(all, input?.cursor, pendingGroupCursor);
    const page = all.slice(start, start + limit);
    const last = page.at(-1);
    return {
      groups: page.map((group) => pendingGroupListing(group, podLimit)),
      nextCursor:
        last !== undefined && start + limit < all.length ? pendingGroupCursor(last) : null,
      groupCount: all.length,
      podCount: all.reduce((sum, group) => sum + group.podCount, 0),
    };
  });
