import { z } from 'zod';
import { RejectionSchema } from './api/building-blocks.js';

/**
 * The one verdict on a request (spec §9), computed once from the check result and the placement
 * and sent in the preview's answer, so the form, the edit page, the scale dialog and scripts all
 * read the same words:
 * - `invalid`: a rule fails; nothing can be sent;
 * - `placeable`: every replica fits a node now;
 * - `waiting`: the request is valid, but Kubernetes will keep some replicas Pending — the ones
 *   from `firstWaiting` (1-based) on, `waitingCount` of them, for the reasons in `rejections`.
 *
 * Not to be confused with `placement/verdict.ts`, one node's rejection of one pod.
 */
export const RequestVerdictSchema = z.discriminatedUnion('verdict', [
  z.object({
    verdict: z.literal('invalid'),
    /** The failing rules' ids, each once. */
    rules: z.array(z.string()),
  }),
  z.object({
    verdict: z.literal('placeable'),
    /** How many replicas the verdict is about (for a scale, those it adds). */
    replicas: z.number(),
  }),
  z.object({
    verdict: z.literal('waiting'),
    replicas: z.number(),
    /** The first replica (1-based, as the placement shows it) that would stay Pending. */
    firstWaiting: z.number(),
    /** How many would: that one and every later one (they need the same room). */
    waitingCount: z.number(),
    /** Why no node takes the first of them, per node group. */
    rejections: z.array(RejectionSchema),
  }),
]);

export type RequestVerdict = z.infer<typeof RequestVerdictSchema>;

/** What the verdict is made of: the rules' answer and each placed (or refused) replica. */
export interface VerdictInputs {
  check: { valid: boolean; errors: readonly { rule: string }[] };
  /** Replicas to place, counted from `firstReplica` (0-based). */
  wanted: number;
  /** The index of the first replica to place: 0 for a new workload, the running ones for a scale. */
  firstReplica?: number;
  /** The placement's rows: `replica` is 0-based; placement stops at the first that does not fit. */
  placement: readonly {
    replica: number;
    ok: boolean;
    rejections: z.infer<typeof RejectionSchema>[];
  }[];
}

/**
 * `invalid` when a rule fails; otherwise `waiting` from the first replica no node takes (every
 * later one needs the same room on a cluster only fuller), else `placeable`.
 */
export function requestVerdict({
  check,
  wanted,
  firstReplica = 0,
  placement,
}: VerdictInputs): RequestVerdict {
  if (!check.valid) {
    return { verdict: 'invalid', rules: [...new Set(check.errors.map((error) => error.rule))] };
  }
  const refused = placement.find((row) => !row.ok);
  if (refused === undefined) return { verdict: 'placeable', replicas: wanted };
  const end = firstReplica + wanted;
  return {
    verdict: 'waiting',
    replicas: wanted,
    firstWaiting: refused.replica + 1,
    waitingCount: Math.max(1, end - refused.replica),
    rejections: refused.rejections,
  };
}
