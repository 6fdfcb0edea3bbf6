import { AuthorizationV1Api, type KubeConfig } from '@kubernetes/client-node';
import type { Operator } from './operator.js';

/** One RBAC question: may this operator `verb` `resource` (of `group`), in `namespace` or cluster-wide. */
export interface AccessQuestion {
  verb: string;
  resource: string;
  /** The API group; '' (the default) is the core group. */
  group?: string;
  /** Unset: cluster-wide (every namespace, or a cluster-scoped resource). */
  namespace?: string;
}

/** How long a decision is trusted: a revoked RoleBinding stops showing within this time. */
export const DEFAULT_ACCESS_REVIEW_TTL_MS = 5_000;

export interface AccessReviewsOptions {
  ttlMs?: number;
  /** The clock; tests of the TTL pass their own. */
  now?: () => number;
}

interface Decision {
  /** Settles once; concurrent askers of one key share it (one request in flight per key). */
  allowed: Promise<boolean>;
  /** When the answer arrived; undefined while the review is in flight. */
  decidedAt: number | undefined;
}

/**
 * RBAC decisions for the shared informers' data: what one operator may see of it (spec §8).
 *
 * Asked as a SelfSubjectAccessReview with the operator's own KubeConfig, not as a
 * SubjectAccessReview by the console's account: the API server then judges exactly the
 * identity it authenticated (groups, OIDC claims, extra fields included, none of them restated
 * by us), and the console's account needs no `create subjectaccessreviews`, a cluster-wide
 * power to probe anyone's permissions. Every user may create a SelfSubjectAccessReview
 * (`system:basic-user`).
 *
 * Decisions are cached per user × groups × namespace × verb × resource for `ttlMs` (5 s by
 * default): streams re-check every event against this cache, so the API server sees at most one
 * review per key per TTL however many events and streams there are. A failed review is not
 * cached and counts as "no" (the filter fails closed).
 */
export class AccessReviews {
  readonly ttlMs: number;
  private readonly now: () => number;
  private readonly decisions = new Map<string, Decision>();
  private readonly clients = new WeakMap<KubeConfig, AuthorizationV1Api>();

  constructor(options: AccessReviewsOptions = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_ACCESS_REVIEW_TTL_MS;
    this.now = options.now ?? Date.now;
  }

  /** Whether `operator` may do what `question` asks, from the cache while it is fresh. */
  allows(operator: Operator, question: AccessQuestion): Promise<boolean> {
    const key = keyOf(operator, question);
    const cached = this.decisions.get(key);
    if (cached && (cached.decidedAt === undefined || this.now() - cached.decidedAt < this.ttlMs))
      return cached.allowed;
    const decision: Decision = { allowed: Promise.resolve(false), decidedAt: undefined };
    decision.allowed = this.review(operator, question).then(
      (allowed) => {
        decision.decidedAt = this.now();
        return allowed;
      },
      () => {
        if (this.decisions.get(key) === decision) this.decisions.delete(key);
        return false;
      },
    );
    this.decisions.set(key, decision);
    this.forgetStale();
    return decision.allowed;
  }

  /** `list pods` in `namespace`: what a namespace's allocations, workloads and pending pods need. */
  mayListPods(operator: Operator, namespace: string): Promise<boolean> {
    return this.allows(operator, { verb: 'list', resource: 'pods', namespace });
  }

  /** `list nodes`: what the cluster-wide figures (nodes, cards, pools) need. */
  mayListNodes(operator: Operator): Promise<boolean> {
    return this.allows(operator, { verb: 'list', resource: 'nodes' });
  }

  /** The namespaces of `namespaces` in which `operator` may list pods, asked concurrently. */
  async podNamespaces(operator: Operator, namespaces: Iterable<string>): Promise<Set<string>> {
    const distinct = [...new Set(namespaces)];
    const answers = await Promise.all(distinct.map((ns) => this.mayListPods(operator, ns)));
    return new Set(distinct.filter((_, i) => answers[i]));
  }

  private async review(operator: Operator, question: AccessQuestion): Promise<boolean> {
    let client = this.clients.get(operator.kubeConfig);
    if (client === undefined) {
      client = operator.kubeConfig.makeApiClient(AuthorizationV1Api);
      this.clients.set(operator.kubeConfig, client);
    }
    const review = await client.createSelfSubjectAccessReview({
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: {
          resourceAttributes: {
            verb: question.verb,
            resource: question.resource,
            group: question.group ?? '',
            ...(question.namespace !== undefined ? { namespace: question.namespace } : {}),
          },
        },
      },
    });
    return review.status?.allowed === true;
  }

  /** Drops answers past their TTL, so users who left do not stay in memory. */
  private forgetStale(): void {
    if (this.decisions.size < 1024) return;
    const now = this.now();
    for (const [key, decision] of this.decisions)
      if (decision.decidedAt !== undefined && now - decision.decidedAt >= this.ttlMs)
        this.decisions.delete(key);
  }
}

const keyOf = (operator: Operator, question: AccessQuestion) =>
  JSON.stringify([
    operator.username,
    [...operator.groups].sort(),
    question.namespace ?? '',
    question.verb,
    question.group ?? '',
    question.resource,
  ]);
