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

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) / 1000) * this.qps);
    this.refilledAt = now;
  }
}
