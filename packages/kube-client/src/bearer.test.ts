import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bearerCheck } from './bearer.js';

const token = randomBytes(32).toString('base64url');
const right = `Bearer ${token}`;

describe('bearerCheck', () => {
  it('accepts the token it was made with', () => {
    expect(bearerCheck(token)(right)).toBe(true);
  });

  it('accepts the scheme in any case, as kube-apiserver does (RFC 9110: case-insensitive)', () => {
    const admits = bearerCheck(token);
    expect(admits(`bearer ${token}`)).toBe(true);
    expect(admits(`BEARER ${token}`)).toBe(true);
    expect(admits(`bEaReR ${token}`)).toBe(true);
    // Only the scheme folds: the token itself is compared byte for byte.
    expect(
      admits(`bearer ${token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase()}`),
    ).toBe(false);
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['the scheme alone', 'Bearer '],
    ['one character short', right.slice(0, -1)],
    ['half of it', right.slice(0, right.length / 2)],
    ['one character more', `${right}x`],
    ['the right one twice', right + right],
    ['100 KiB', `Bearer ${'a'.repeat(100 * 1024)}`],
    ['100 KiB starting with the right one', right + 'a'.repeat(100 * 1024)],
    [
      'the same length, one character changed',
      `${right.slice(0, -1)}${right.endsWith('A') ? 'B' : 'A'}`,
    ],
    ['another scheme', `Basic ${token}`],
    ['a scheme that folds to bearer only by bit tricks', `Be@rer ${token}`],
    ['the token without its scheme', token],
  ])('refuses a header that is %s', (_, header) => {
    expect(bearerCheck(token)(header)).toBe(false);
  });

  it('keeps refusing and accepting in any order (its scratch buffer holds nothing over)', () => {
    const admits = bearerCheck(token);
    // A shorter header right after the right one must not meet the bytes it left behind.
    expect(admits(right)).toBe(true);
    expect(admits(right.slice(0, -3))).toBe(false);
    expect(admits('')).toBe(false);
    expect(admits(`${right}tail`)).toBe(false);
    expect(admits(right)).toBe(true);
    expect(admits(`Bearer ${'z'.repeat(100 * 1024)}`)).toBe(false);
    expect(admits(right)).toBe(true);
  });

  it('compares bytes: a non-ASCII token arrives as Node reads header bytes (latin1)', () => {
    const unicode = 'tök€n';
    const asReceived = Buffer.from(`Bearer ${unicode}`).toString('latin1');
    const admits = bearerCheck(unicode);
    expect(admits(asReceived)).toBe(true);
    expect(admits(asReceived.slice(0, -1))).toBe(false);
  });
});
