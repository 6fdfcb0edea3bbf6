/** Changes within this window are answered with one recomputed state. */
const DEFAULT_COALESCE_MS = 25;

/**
 * Wakes one waiting loop however many changes arrived since it last looked: no queue that grows
 * when the cluster changes faster than the state is recomputed.
 */
export class ChangeSignal {
  private dirty = false;
  private wake: (() => void) | undefined;

  constructor(private readonly coalesceMs = DEFAULT_COALESCE_MS) {}

  notify(): void {
    this.dirty = true;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Resolves once something changed (and a short window for its siblings passed), or on abort. */
  async changed(signal: AbortSignal | undefined): Promise<boolean> {
    if (signal?.aborted) return false;
    if (!this.dirty) {
      await new Promise<void>((resolve) => {
        const done = () => {
          signal?.removeEventListener('abort', done);
          resolve();
        };
        this.wake = done;
        signal?.addEventListener('abort', done, { once: true });
      });
    }
    if (signal?.aborted) return false;
    await new Promise((resolve) => setTimeout(resolve, this.coalesceMs));
    this.dirty = false;
    return !signal?.aborted;
  }
}
