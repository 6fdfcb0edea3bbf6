import type { RuleError, ServerRuleError } from '@mgpu/shared';
import { initTRPC, TRPCError } from '@trpc/server';
import { ZodError } from 'zod';
import { auditTarget, failureOutcome } from '../identity/audit.js';
import type { BffContext } from './context.js';

/** Carries rule errors (field path + rule id + message + fix) from a procedure to the client. */
export class RuleErrors extends Error {
  override readonly name = 'RuleErrors';
  constructor(readonly errors: (RuleError | ServerRuleError | InputRuleError)[]) {
    super(
      errors
        .map((error) => `${error.path || '(form)'}: [${error.rule}] ${error.message}`)
        .join('; '),
    );
  }
}

export function ruleFailure(
  code: TRPCError['code'],
  errors: (RuleError | ServerRuleError | InputRuleError)[],
): TRPCError {
  const cause = new RuleErrors(errors);
  return new TRPCError({ code, message: cause.message, cause });
}

/** Zod issues as rule errors: the field path, `invalid-input`, zod's message and a fix. */
export function inputRuleErrors(error: ZodError): RuleErrorShape[] {
  return error.issues.map((issue) => ({
    path: issue.path.join('.'),
    rule: 'invalid-input',
    message: issue.message,
    fix: "Send the field as spec §7 describes it (see the procedure's input schema).",
  }));
}

/** An input the schema takes but the server cannot serve, as the schema's refusals read. */
type InputRuleError = RuleErrorShape & { rule: 'invalid-input' };

/** BAD_REQUEST on one input field (rule `invalid-input`), with why and what to send instead. */
export const inputRuleFailure = (path: string, message: string, fix: string): TRPCError =>
  ruleFailure('BAD_REQUEST', [{ path, rule: 'invalid-input', message, fix }]);

export interface RuleErrorShape {
  path: string;
  rule: string;
  message: string;
  fix?: string;
}

/**
 * A silent stream gets a ping this often; the client reconnects after the longer silence. A
 * connection that dies without closing (a proxy, a suspended laptop) is noticed — and the
 * dashboard's stale banner shown — within the second figure. A subscriber that reads nothing of
 * what it left unread for the third is cut off.
 */
export const SSE_TIMING = {
  pingIntervalMs: 5_000,
  reconnectAfterInactivityMs: 12_000,
  stalledAfterMs: 30_000,
} as const;

const t = initTRPC.context<BffContext>().create({
  // Plain JSON on the wire (spec §7): curl and scripts can call every procedure.
  errorFormatter({ shape, error, path }) {
    const cause = error.cause;
    // An input that does not parse: one sentence as the message (tRPC's is zod's JSON dump),
    // and each issue as a rule error the form can put on its field.
    const inputErrors = cause instanceof ZodError ? inputRuleErrors(cause) : undefined;
    return {
      ...shape,
      message: inputErrors
        ? `The input of ${path ?? 'this procedure'} is not valid: ${inputErrors[0]?.path || '(input)'}: ${inputErrors[0]?.message ?? 'invalid'}${inputErrors.length > 1 ? ` (and ${inputErrors.length - 1} more)` : ''}.`
        : shape.message,
      data: {
        ...shape.data,
        // Never leak server stack traces to the browser.
        stack: undefined,
        ruleErrors: cause instanceof RuleErrors ? cause.errors : inputErrors,
        issues:
          cause instanceof ZodError
            ? inputErrors?.map(({ path, message }) => ({ path, message }))
            : undefined,
      },
    };
  },
  // Subscriptions are served by `SseTransport` (server.ts); tRPC's own producer only answers if
  // a subscription ever reached its handler, with the same timing.
  sse: {
    ping: { enabled: true, intervalMs: SSE_TIMING.pingIntervalMs },
    client: { reconnectAfterInactivityMs: SSE_TIMING.reconnectAfterInactivityMs },
  },
});

export const router = t.router;
/**
 * Every mutation writes one audit line (spec §8) — who, which procedure, namespace/name, and
 * the outcome — whichever transport called it; queries and subscriptions pass straight through.
 */
const auditMutations = t.middleware(async ({ ctx, type, path, getRawInput, next }) => {
  if (type !== 'mutation' || ctx.audit === undefined) return next();
  const result = await next();
  const target = auditTarget(await getRawInput().catch(() => undefined));
  ctx.audit({
    user: ctx.operator?.username ?? null,
    groups: ctx.operator?.groups ?? [],
    procedure: path,
    ...target,
    ...(result.ok ? { outcome: 'ok', status: 200 } : failureOutcome(result.error)),
  });
  return result;
});

export const publicProcedure = t.procedure.use(auditMutations);
export const createCallerFactory = t.createCallerFactory;
