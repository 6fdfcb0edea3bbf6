/**
 * client-go's token bucket (flowcontrol.NewTokenBucketRateLimiter): `burst` tokens at most,
 * refilled at `qps` per second; a take without a token is refused, never waited for.
 */
export class TokenBucket {
  private tokens: number;
  private refilledAt: number;

  constructor(
    private readonly qps: number,
    private readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.refilledAt = now();
  }

  /** TryAccept: takes a token when there is one. */
  tryTake(): boolean {
    this.refill();
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Milliseconds until the next token (0 when one is there). */
  msUntilToken(): number {
    this.refill();
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.qps) * 1000);
  }

  /**
   * Reserve (client-go's rate.Limiter.Reserve): takes a token even when none is there yet, going
   * into debt, and says how many milliseconds until that token will have been refilled.
   */
  reserve(): number {
    this.refill();
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.qps;
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.qps);
    this.refilledAt = now;
  }
}
