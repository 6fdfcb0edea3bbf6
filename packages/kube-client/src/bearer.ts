import { timingSafeEqual } from 'node:crypto';

/**
 * Whether `authorization` is `Bearer <token>`, in constant time on buffers made once: the header
 * (Node gives header bytes as latin1 characters) is written into a scratch buffer of the expected
 * length and compared with `timingSafeEqual`, so a request allocates nothing. A header of another
 * length is refused at once: the length of a token is no secret. Two HMACs a request cost more.
 * The embedded API server's token and the console's `--token` are both checked with this; the
 * check is synchronous, so its scratch buffer is never shared by two requests at once.
 */
export function bearerCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = Buffer.from(`Bearer ${token}`);
  const given = Buffer.alloc(expected.length);
  return (authorization) => {
    if (authorization?.length !== expected.length) return false;
    given.write(authorization, 'latin1');
    return timingSafeEqual(given, expected);
  };
}
