import type { RuleErrorSchema } from '@mgpu/shared';
import { TRPCClientError } from '@trpc/client';
import type { z } from 'zod';

/** A failing rule on a request path: the engine's, the cluster's, or the server's own ids. */
export type FieldError = z.infer<typeof RuleErrorSchema>;

/**
 * What a refused mutation said: the rule errors the BFF's error formatter attached (`ruleErrors`),
 * else the error's own message. The one reader of that shape for every page that mutates.
 */
export function mutationFailure(error: unknown): { ruleErrors?: FieldError[]; failure?: string } {
  const ruleErrors =
    error instanceof TRPCClientError
      ? (error.data as { ruleErrors?: FieldError[] } | undefined)?.ruleErrors
      : undefined;
  return ruleErrors && ruleErrors.length > 0
    ? { ruleErrors }
    : { failure: error instanceof Error ? error.message : String(error) };
}

/** A refusal in one line: the rule it broke, when it names one, and the server's words. */
export interface Refusal {
  rule: string | undefined;
  message: string;
}

/** The server's own words for a refused delete or rollback: its first rule error, else the error. */
export function refusalOf(error: unknown): Refusal {
  const { ruleErrors, failure } = mutationFailure(error);
  const first = ruleErrors?.[0];
  return first
    ? { rule: first.rule, message: first.message }
    : { rule: undefined, message: failure ?? '' };
}
