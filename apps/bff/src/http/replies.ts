import type { FastifyReply } from 'fastify';
import type { Unavailable } from '../identity/operator-access.js';
import { SIGN_OUTS_NOT_READ, SIGN_OUTS_RETRY_SECONDS } from '../replicas/revocations.js';

/** The console's own refusals, shaped like tRPC's errors: `{ error: { message, code } }`. */
export const refuse = (reply: FastifyReply, status: number, code: string, message: string) =>
  reply.code(status).send({ error: { message, code } });

/** 429 with Retry-After: this address sent too many wrong credentials (any way of presenting one). */
export const tooManyWrongTokens = (reply: FastifyReply, waitSeconds: number) => {
  reply.header('retry-after', String(waitSeconds));
  return refuse(
    reply,
    429,
    'TOO_MANY_REQUESTS',
    `Too many wrong tokens from this address; try again in ${waitSeconds} s.`,
  );
};

/** 503, not 401: the token may well be good, the API server could not be asked about it. */
export const tokenNotChecked = (reply: FastifyReply, reason: string) =>
  refuse(
    reply,
    503,
    'SERVICE_UNAVAILABLE',
    `The Kubernetes API server could not check the token: ${reason}`,
  );

/**
 * 503 with Retry-After for a session cookie before the sign-outs are read: not the API server's
 * doing (it may be RBAC on their Secret), so its own words and `reason`, which the sign-in page
 * reads to wait instead of asking for a sign-in the console would answer the same way.
 */
export const signOutsNotRead = (reply: FastifyReply) => {
  reply.header('retry-after', String(SIGN_OUTS_RETRY_SECONDS));
  return reply.code(503).send({
    error: {
      message: SIGN_OUTS_NOT_READ,
      code: 'SERVICE_UNAVAILABLE',
      reason: 'SIGN_OUTS_NOT_READ',
    },
  });
};

/** The 503 for a credential that could be neither admitted nor refused now. */
export const notJudgedYet = (reply: FastifyReply, unavailable: Unavailable) =>
  unavailable.reason === 'sign-outs-not-read'
    ? signOutsNotRead(reply)
    : tokenNotChecked(reply, unavailable.message);
