/** Addresses tracked at once: a spray of addresses costs bounded memory (the oldest go first). */
const MAX_ADDRESSES = 10_000;

/**
 * Wrong credentials counted per client address in fixed one-minute windows: guessing a token
 * through any door — `Authorization: Bearer` on `/trpc` and `/session`, `POST /session`, the OIDC
 * callback, in every auth mode — is slowed to `limit` tries a minute, after which every
 * credential from that address is answered 429 until the window ends. The address is
 * `request.ip`: behind a proxy named by `--trust-proxy` the client's own, else the peer's.
 *
 * A credential the API server or the issuer must be asked about (a bearer token, a token at
 * `POST /session`, an OIDC callback's code) is checked asynchronously, so `begin` counts
 * the distinct credentials still being checked against the limit too: 500 guesses sent at once
 * get `limit` reviews, not 500. The same credential in flight twice counts once, so a script's
 * parallel calls with its one good token are never refused for each other.
 */
export class SignInThrottle {
  private readonly windows = new Map<string, { start: number; failures: number }>();
  private readonly checking = new Map<string, Map<string, number>>();
  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
  ) {}

  /** Seconds until this address may try again, or 0 when it may now. */
  retryAfterSeconds(address: string, now = Date.now()): number {
    return this.waitFor(address, 0, now);
  }

  private waitFor(address: string, inFlight: number, now: number): number {
    const window = this.windows.get(address);
    const failures =
      window === undefined || now - window.start >= this.windowMs ? 0 : window.failures;
    if (failures + inFlight < this.limit) return 0;
    // Over the limit only with checks in flight: try again once they are answered.
    if (window === undefined || failures === 0) return 1;
    return Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
  }

  /**
   * Before an asynchronous check of `credential` (a digest, never the secret): 0 and the check
   * is counted as in flight until `end`, or the seconds to wait when the address is over.
   */
  begin(address: string, credential: string, now = Date.now()): number {
    const inFlight = this.checking.get(address) ?? new Map<string, number>();
    const others = inFlight.size - (inFlight.has(credential) ? 1 : 0);
    const wait = this.waitFor(address, others, now);
    if (wait > 0) return wait;
    inFlight.set(credential, (inFlight.get(credential) ?? 0) + 1);
    this.checking.set(address, inFlight);
    return 0;
  }

  /** After the check `begin` allowed: a wrong credential counts as a failure. */
  end(address: string, credential: string, wrong: boolean, now = Date.now()): void {
    const inFlight = this.checking.get(address);
    const count = inFlight?.get(credential) ?? 0;
    if (count <= 1) inFlight?.delete(credential);
    else inFlight?.set(credential, count - 1);
    if (inFlight?.size === 0) this.checking.delete(address);
    if (wrong) this.failed(address, now);
  }

  failed(address: string, now = Date.now()): void {
    const window = this.windows.get(address);
    if (window === undefined || now - window.start >= this.windowMs) {
      // Old windows are dropped as new ones start, so the map holds only recent addresses.
      for (const [key, old] of this.windows)
        if (now - old.start >= this.windowMs) this.windows.delete(key);
      this.windows.delete(address);
      if (this.windows.size >= MAX_ADDRESSES) {
        const oldest = this.windows.keys().next().value;
        if (oldest !== undefined) this.windows.delete(oldest);
      }
      this.windows.set(address, { start: now, failures: 1 });
    } else window.failures += 1;
  }
}
