import type { FastifyRequest, FastifyServerOptions } from 'fastify';

/** Query parameters whose values are secrets: never written to a log. */
// `code`: the authorization code of `--auth oidc`'s callback (short-lived, but a bearer of sorts).
const SECRET_PARAMETERS = /([?&](?:token|access_token|code)=)[^&#]*/gi;

/** A URL as logged: secret query values replaced. */
export const redactUrl = (url: string) => url.replace(SECRET_PARAMETERS, '$1[redacted]');

/**
 * The logger with secrets kept out: `?token=` values in the request URL, and the
 * Authorization and Cookie headers should anything log headers.
 */
export function withRedaction(
  logger: FastifyServerOptions['logger'],
): FastifyServerOptions['logger'] {
  if (typeof logger !== 'object' || logger === null) return logger;
  const given = logger as Exclude<FastifyServerOptions['logger'], boolean | undefined> & {
    serializers?: Record<string, (value: never) => unknown>;
  };
  return {
    ...given,
    redact: [
      'req.headers.authorization',
      'req.headers.cookie',
      'headers.authorization',
      'headers.cookie',
    ],
    serializers: {
      ...given.serializers,
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: redactUrl(request.url),
        host: request.host,
        remoteAddress: request.ip,
        remotePort: request.socket?.remotePort,
      }),
    },
  } as FastifyServerOptions['logger'];
}
