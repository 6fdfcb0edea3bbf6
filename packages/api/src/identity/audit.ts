import { TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';

/**
 * One audit line (spec §8): who did what to which object, and how it ended. Written for every
 * mutation and every sign-in and sign-out, through the console's logger as `{ audit: … }`.
 */
export interface AuditEntry {
  /** The signed-in operator; null without per-user auth (loopback, `--token`): the console's account acted. */
  user: string | null;
  groups: readonly string[];
  /** `workload.create`, …, `session.sign-in`, `session.sign-out`. */
  procedure: string;
  namespace?: string;
  name?: string;
  /** `ok`, the first rule id of a refusal (`forbidden`, `conflict`, …), or the HTTP status. */
  outcome: string;
  /** The HTTP status the caller got. */
  status: number;
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** namespace/name of a mutation's input: top level (update, scale, delete) or in its `request` (create). */
export function auditTarget(input: unknown): { namespace?: string; name?: string } {
  if (typeof input !== 'object' || input === null) return {};
  const fields = input as Record<string, unknown>;
  const nested =
    typeof fields.request === 'object' && fields.request !== null
      ? (fields.request as Record<string, unknown>)
      : {};
  const namespace = text(fields.namespace) ?? text(nested.namespace);
  const name = text(fields.name) ?? text(nested.name);
  return { ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) };
}

/** A failed mutation's outcome: its first rule id when it carries rule errors, else its HTTP status. */
export function failureOutcome(error: unknown): { outcome: string; status: number } {
  const trpc =
    error instanceof TRPCError
      ? error
      : new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: error });
  const status = getHTTPStatusCodeFromError(trpc);
  const rules = (trpc.cause as { errors?: { rule?: unknown }[] } | undefined)?.errors;
  const rule = Array.isArray(rules) ? text(rules[0]?.rule) : undefined;
  return { outcome: rule ?? String(status), status };
}
