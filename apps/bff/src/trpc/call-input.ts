import { TRPCError } from '@trpc/server';
import { isObject } from '@trpc/server/unstable-core-do-not-import';

/**
 * A call's input as tRPC's JSON wire format carries it, read once for both transports that
 * answer in tRPC's place (single calls, subscriptions).
 */

/** The request's query string as tRPC reads it (`URLSearchParams`: the first of repeated keys). */
export function callSearchOf(url: string): URLSearchParams {
  const start = url.indexOf('?');
  return new URLSearchParams(start === -1 ? '' : url.slice(start + 1));
}

/**
 * The input in `text` (a GET's `?input=`, a POST's body): its JSON, or with `?batch=1` entry `0`
 * of the `{ "0": … }` wrapper; undefined without text. Refused as tRPC refuses it: 400 with the
 * parser's words (an empty POST body too), or tRPC's for a batch wrapper that is not an object.
 */
export function callInputOf(text: string | undefined, batch: boolean): unknown {
  if (text === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new TRPCError({ code: 'BAD_REQUEST', cause });
  }
  if (!batch) return parsed;
  if (!isObject(parsed))
    throw new TRPCError({
      code: 'BAD_REQUEST',
      message: '"input" needs to be an object when doing a batch call',
    });
  return parsed['0'];
}
