import { describe, expect, it } from 'vitest';
import { SessionSeal } from './session-seal.js';

const KEY = `${'k'.repeat(24)}first-key-of-the-file`;
const OTHER = `${'o'.repeat(24)}second-key-of-the-file`;
const later = (ms: number) => Date.now() + ms;

describe('the session seal (--session-key-file)', () => {
  it('opens on a console with the same key what another sealed, and nowhere else', async () => {
    const sealed = await SessionSeal.fromText(KEY).seal('session', { sid: 'a' }, later(60_000));
    expect(await SessionSeal.fromText(`${KEY}\n`).unseal('session', sealed)).toMatchObject({
      sid: 'a',
    });
    expect(await SessionSeal.fromText(OTHER).unseal('session', sealed)).toBeUndefined();
    expect(await SessionSeal.ephemeral().unseal('session', sealed)).toBeUndefined();
  });

  it('hides what it carries: a token inside is not in the sealed text, even deflated', async () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.operator-token-of-alice';
    const sealed = await SessionSeal.fromText(KEY).seal('session', { tok: token }, later(60_000));
    expect(sealed).not.toContain('alice');
    expect(Buffer.from(sealed.split('.')[3] ?? '', 'base64url').toString('latin1')).not.toContain(
      'alice',
    );
  });

  it('refuses a value sealed for another purpose, altered, or expired', async () => {
    const seal = SessionSeal.fromText(KEY);
    const signIn = await seal.seal('oidc-sign-in', { state: 's' }, later(60_000));
    expect(await seal.unseal('session', signIn)).toBeUndefined();
    expect(await seal.unseal('oidc-sign-in', signIn)).toMatchObject({ state: 's' });
    const altered = `${signIn.slice(0, -3)}${signIn.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    expect(await seal.unseal('oidc-sign-in', altered)).toBeUndefined();
    const expired = await seal.seal('session', { sid: 'b' }, Date.now() - 1);
    expect(await seal.unseal('session', expired)).toBeUndefined();
    expect(await seal.unseal('session', 'not a jwe')).toBeUndefined();
  });

  it('rotates: a new first line seals, the old second line still opens what it sealed', async () => {
    const before = await SessionSeal.fromText(KEY).seal('session', { sid: 'old' }, later(60_000));
    const rotated = SessionSeal.fromText(`${OTHER}\n${KEY}\n`);
    expect(await rotated.unseal('session', before)).toMatchObject({ sid: 'old' });
    const after = await rotated.seal('session', { sid: 'new' }, later(60_000));
    expect(await SessionSeal.fromText(OTHER).unseal('session', after)).toMatchObject({
      sid: 'new',
    });
    expect(await SessionSeal.fromText(KEY).unseal('session', after)).toBeUndefined();
  });

  it('refuses a key file that is empty or has a short line, naming the line', () => {
    expect(() => SessionSeal.fromText('\n \n')).toThrow(/no key/);
    expect(() => SessionSeal.fromText(`${KEY}\nshort`)).toThrow(/line 2 has 5 characters/);
  });
});
