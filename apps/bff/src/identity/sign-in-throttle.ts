/**
 * Wrong credentials counted per client address in fixed one-minute windows: guessing a token
 * through any door — `Authorization: Bearer` on `/trpc`, `POST /session`, the OIDC callback, in
 * every auth mode — is slowed to `limit` tries a minute, after which every credential from that
 * address is answered 429 until the window ends. The address is `request.ip`: behind a proxy
 * named by `--trust-proxy` the client's own, else the peer's.
 */
export class SignInThrottle {
  private readonly windows = new Map<string, { start: number; failures: number }>();
  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000,
  ) {}

  /** Seconds until this address may try again, or 0 when it may now. */
  retryAfterSeconds(address: string, now = Date.now()): number {
    const window = this.windows.get(address);
    if (window === undefined || now - window.start >= this.windowMs) return 0;
    return window.failures >= this.limit
      ? Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000))
      : 0;
  }

  failed(address: string, now = Date.now()): void {
    const window = this.windows.get(address);
    if (window === undefined || now - window.start >= this.windowMs) {
      // Old windows are dropped as new ones start, so the map holds only recent addresses.
      for (const [key, old] of this.windows)
        if (now - old.start >= this.windowMs) this.windows.delete(key);
      this.windows.set(address, { start: now, failures: 1 });
    } else window.failures += 1;
  }
}
