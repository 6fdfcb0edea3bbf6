import { describe, expect, it } from 'vitest';
import { uiTranslator } from '../i18n/i18n.js';
import {
  ConsoleNotReady,
  notReadyWords,
  retryDelayWhileNotReady,
  retryWhileNotReady,
  SIGN_OUTS_NOT_READ,
  sessionStateOf,
} from './session-answer.js';

/** What the waiting page says for this answer, in English and in Chinese. */
const wordsOf = (notReady: unknown) => {
  const words = notReadyWords(notReady as ConsoleNotReady);
  return (['en', 'zh-CN'] as const).map((lang) => uiTranslator(lang)(words.text));
};

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
    // Worded as the console's own reason: its sign-outs, not some proxy's.
    expect(error).toMatchObject({ reason: SIGN_OUTS_NOT_READ, retryAfterSeconds: 5 });
    const [english, chinese] = wordsOf(error);
    expect(english).toContain('Secret of sign-outs');
    expect(chinese).toContain('Secret');
    // Asked again however long it lasts (an account that may not read the Secret is no sign-out).
    expect(retryWhileNotReady(0, error)).toBe(true);
    expect(retryWhileNotReady(50, error)).toBe(true);
  });

  it('waits for a proxy with no ready console behind it too, without blaming the sign-outs', async () => {
    const proxy = new Response('no healthy upstream', { status: 503 });
    const error = await sessionStateOf(proxy).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(ConsoleNotReady);
    // No reason of ours: the page says only that the console is not available yet.
    expect(error).toMatchObject({ reason: undefined, retryAfterSeconds: undefined });
    expect(retryWhileNotReady(7, error)).toBe(true);
    expect(wordsOf(error)).toEqual([
      'The console is not available yet; retrying…',
      '控制台暂不可用，正在重试…',
    ]);

    // A JSON 503 with another reason is no word on the sign-outs either.
    const otherReason = answer(503, { error: { message: 'draining', reason: 'SHUTTING_DOWN' } });
    const other = await sessionStateOf(otherReason).catch((failure: unknown) => failure);
    expect(other).toBeInstanceOf(ConsoleNotReady);
    expect(wordsOf(other)).toEqual(wordsOf(error));
  });

  it("asks again no later than the console's Retry-After, and otherwise with TanStack's backoff", async () => {
    const error = await sessionStateOf(signOutsNotRead()).catch((failure: unknown) => failure);
    // Backoff 1 s, 2 s, 4 s, then the console's 5 s instead of 8 s, 16 s, 30 s.
    const delays = [0, 1, 2, 3, 4, 10].map((failures) => retryDelayWhileNotReady(failures, error));
    expect(delays).toEqual([1000, 2000, 4000, 5000, 5000, 5000]);

    const proxy = await sessionStateOf(new Response('', { status: 503 })).catch(
      (failure: unknown) => failure,
    );
    const proxyDelays = [0, 3, 10].map((failures) => retryDelayWhileNotReady(failures, proxy));
    expect(proxyDelays).toEqual([1000, 8000, 30_000]);

    // An HTTP-date is not read (it would need both clocks to agree): the backoff stands.
    const dated = answer(503, {}, { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' });
    const datedError = await sessionStateOf(dated).catch((failure: unknown) => failure);
    expect(retryDelayWhileNotReady(4, datedError)).toBe(16_000);
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
