import { timingSafeEqual } from 'node:crypto';

/** `bearer`: folding ASCII letters to lower case is setting bit 0x20. */
const SCHEME_LENGTH = 'bearer'.length;

/**
 * Whether `authorization` is `Bearer <token>` (the scheme in any case), in constant time whatever the presented length,
 * on buffers made once: the header (Node gives header bytes as latin1 characters) is written,
 * at most the expected length of it, into a zeroed scratch buffer of the expected length and
 * compared with `timingSafeEqual`; only then is the length match ANDed in, so neither an early
 * return nor the comparison's work tells a caller the token's length. A request allocates
 * nothing and hashes nothing (two HMACs a request cost more). The embedded API server's token
 * and the console's `--token` are both checked with this; the check is synchronous, so its
 * scratch buffer is never shared by two requests at once.
 */
export function bearerCheck(token: string): (authorization: string | undefined) => boolean {
  const expected = Buffer.from(`bearer ${token}`);
  const given = Buffer.alloc(expected.length);
  return (authorization) => {
    const presented = authorization ?? '';
    // Zeroed first: a shorter header must not meet the bytes an earlier request left behind.
    given.fill(0);
    given.write(presented, 0, expected.length, 'latin1');
    // The scheme is case-insensitive (RFC 9110 §11.1; kube-apiserver lowers it too): fold its
    // six letters, which are no secret, before comparing.
    for (let index = 0; index < SCHEME_LENGTH && index < given.length; index += 1)
      given[index] = (given[index] ?? 0) | 0x20;
    const sameBytes = timingSafeEqual(given, expected);
    return sameBytes && presented.length === expected.length;
  };
}
