import { TRPCError } from '@trpc/server';
import type { BffContext } from '../trpc/context.js';
import type { AccessReviews } from './access-reviews.js';
import { seesNodes } from './cluster-view.js';
import type { Operator } from './operator.js';

/**
 * What the shared informers' data an operator may see (spec §8 "Operator identity"): a
 * namespace's pods, allocations, workloads, pending pods and quotas where they may `list pods`
 * there; nodes, cards and pools where they may `list nodes` (the reads every operator needs to
 * create are cut to fit in `cluster-view.ts`). Without an operator (no per-user auth) everything
 * is visible, as before.
 */

/** The message the web app shows in place of cluster-wide figures (`cluster-wide-forbidden`). */
export const LIST_NODES_FORBIDDEN =
  'You may not list nodes: the cluster-wide figures (nodes, cards, pools) need RBAC permission to list nodes.';

/** Throws FORBIDDEN unless the request's operator, if any, may `list nodes`. */
export async function requireListNodes(ctx: BffContext): Promise<void> {
  if (!(await seesNodes(ctx)))
    throw new TRPCError({ code: 'FORBIDDEN', message: LIST_NODES_FORBIDDEN });
}

/** Throws FORBIDDEN unless the request's operator, if any, may `list pods` in `namespace`. */
export async function requireListPods(ctx: BffContext, namespace: string): Promise<void> {
  if (ctx.operator && !(await ctx.accessReviews.mayListPods(ctx.operator, namespace)))
    throw new TRPCError({
      code: 'FORBIDDEN',
      message: `You may not list pods in namespace ${namespace}: the console shows a namespace's workloads only to those who may.`,
    });
}

/**
 * `items` cut to the namespaces the request's operator may list pods in; all of them without
 * an operator (the same array, so shared lists stay shared).
 */
export async function visibleItems<T extends { namespace: string }>(
  ctx: BffContext,
  items: readonly T[],
): Promise<readonly T[]> {
  if (!ctx.operator) return items;
  const visible = await ctx.accessReviews.podNamespaces(
    ctx.operator,
    items.map((item) => item.namespace),
  );
  return items.filter((item) => visible.has(item.namespace));
}

/**
 * One open stream's view for one operator: which namespaces it has decided on, so that every
 * TTL it can ask again (through the cache) and notice a RoleBinding granted or revoked.
 */
export class OperatorView {
  private readonly decided = new Map<string, boolean>();

  constructor(
    private readonly reviews: AccessReviews,
    private readonly operator: Operator,
  ) {}

  /** How often a stream re-checks: a revoked namespace is cut within the cache's time. */
  get recheckMs(): number {
    return this.reviews.ttlMs;
  }

  /** The namespaces of `namespaces` this operator may list pods in, remembered for `recheck`. */
  async visible(namespaces: Iterable<string>): Promise<Set<string>> {
    const distinct = [...new Set(namespaces)];
    const known = distinct.filter((ns) => this.decided.has(ns));
    // Decided namespaces keep their answer until `recheck`, so one event is judged as the
    // snapshot before it was (no namespace flickering in and out between two rechecks).
    const unknown = distinct.filter((ns) => !this.decided.has(ns));
    const allowed = await this.reviews.podNamespaces(this.operator, unknown);
    for (const ns of unknown) this.decided.set(ns, allowed.has(ns));
    return new Set([...known, ...unknown].filter((ns) => this.decided.get(ns) === true));
  }

  /** Whether this operator may see `namespace` (as `visible` decides it). */
  async allows(namespace: string): Promise<boolean> {
    return (await this.visible([namespace])).has(namespace);
  }

  /** Asks again for every namespace decided so far; true when any answer changed. */
  async recheck(): Promise<boolean> {
    const namespaces = [...this.decided.keys()];
    const allowed = await this.reviews.podNamespaces(this.operator, namespaces);
    let changed = false;
    for (const ns of namespaces) {
      const now = allowed.has(ns);
      if (this.decided.get(ns) !== now) changed = true;
      this.decided.set(ns, now);
    }
    return changed;
  }
}
