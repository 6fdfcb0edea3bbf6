import { describe, expect, it } from 'vitest';
import { ConsoleNotReady, retryWhileNotReady, sessionStateOf } from './session-answer.js';

const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });

/** The BFF's 503 for a cookie it cannot judge before it has read the sign-outs. */
const signOutsNotRead = () =>
  answer(
    503,
    {
      error: {
        message: 'This console cannot judge session cookies yet',
        code: 'SERVICE_UNAVAILABLE',
        reason: 'SIGN_OUTS_NOT_READ',
      },
    },
    { 'retry-after': '5' },
  );

describe("the sign-in gate's reading of GET /session", () => {
  it('never reads a console that is not ready as signed out: it waits and asks again', async () => {
    const reading = sessionStateOf(signOutsNotRead());
    await expect(reading).rejects.toBeInstanceOf(ConsoleNotReady);
    await expect(reading).rejects.toThrow('cannot judge session cookies yet');
    const error = await reading.catch((failure: unknown) => failure);
    // Asked again however long it lasts (an account that may not read the Secret is no sign-out).
    expect(retryWhileNotReady(0, error)).toBe(true);
    expect(retryWhileNotReady(50, error)).toBe(true);
  });

  it('waits for a proxy with no ready console behind it too (a 503 without our body)', async () => {
    const proxy = new Response('no healthy upstream', { status: 503 });
    await expect(sessionStateOf(proxy)).rejects.toBeInstanceOf(ConsoleNotReady);
  });

  it('asks for a sign-in only when the console says this browser is not signed in', async () => {
    const state = await sessionStateOf(answer(200, { required: true, signedIn: false }));
    expect(state).toEqual({ required: true, signedIn: false });
  });

  it('lets an older console without /session through, and does not retry a console it cannot reach', async () => {
    expect(await sessionStateOf(answer(404, {}))).toEqual({ required: false, signedIn: true });
    expect(retryWhileNotReady(0, new TypeError('Failed to fetch'))).toBe(false);
  });
});
