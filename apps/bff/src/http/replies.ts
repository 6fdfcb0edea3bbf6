import type { FastifyReply } from 'fastify';

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
