/**
 * One value many callers read, refreshed by one read at a time: the console's whole-cluster usage
 * (per window), its pool history from Prometheus and the history a leader published are each read
 * through one of these, so ten operators polling cost one read, not ten.
 *
 * A value is fresh for `maxAgeMs` from the start of its read (or from its end, `agedFromEnd`)
 * or, when the source says when it changes (`version`), exactly while that version holds. Past
 * fresh, callers still get the last value while the next read runs, until it is `staleFactor`
 * times `maxAgeMs` old; after that they wait for the new one (a console nobody asked for a while
 * never answers with figures from long ago). Callers during a read share it.
 */
export interface SharedReadOptions<T, A> {
  /**
   * Reads the source now. A rejection reaches the callers waiting for this read and keeps the
   * last value; with none waiting (the last value was served meanwhile), it is dropped.
   */
  read: (arg: A) => Promise<T>;
  /** 0: every call waits for a read of its own (or joins one already running). */
  maxAgeMs: number;
  /**
   * Up to this many times `maxAgeMs` old, the last value is served while the next read runs;
   * 1: never.
   */
  staleFactor: number;
  /** The source's version now, when it has one: a value is then fresh while it is unchanged. */
  version?: () => unknown;
  /**
   * Age a value from the end of its read: a read slower than `maxAgeMs` (a timeout) then still
   * answers the callers after it for `maxAgeMs`, instead of each of them starting and waiting for
   * another slow read. For a source read with `staleFactor` 1.
   */
  agedFromEnd?: boolean;
  now?: () => number;
}

interface Read<T> {
  value: T;
  /** When its age counts from: the start of its read, or its end (`agedFromEnd`). */
  at: number;
  version: unknown;
}

export class SharedRead<T, A = void> {
  private latest: Read<T> | undefined;
  private running: Promise<T> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: SharedReadOptions<T, A>) {
    this.now = options.now ?? Date.now;
  }

  /** The value, shared as the header says; `arg` goes to a read this call starts. */
  get(arg: A): Promise<T> {
    const { maxAgeMs, staleFactor } = this.options;
    const version = this.options.version?.();
    const { latest } = this;
    const age = latest ? this.now() - latest.at : Number.POSITIVE_INFINITY;
    const versioned = version !== undefined;
    if (latest && (versioned ? latest.version === version : age < maxAgeMs))
      return Promise.resolve(latest.value);
    const next = this.running ?? this.start(arg, version);
    if (latest && !versioned && age < maxAgeMs * staleFactor) {
      // Nobody waits for this read: its failure must not go unhandled (it keeps the last value).
      next.catch(() => {});
      return Promise.resolve(latest.value);
    }
    return next;
  }

  /** The last value read, if any (what a failed read may answer instead). */
  last(): T | undefined {
    return this.latest?.value;
  }

  private start(arg: A, version: unknown): Promise<T> {
    const startedAt = this.now();
    const running = this.options.read(arg).then(
      (value) => {
        const at = this.options.agedFromEnd ? this.now() : startedAt;
        this.latest = { value, at, version };
        this.running = undefined;
        return value;
      },
      (error: unknown) => {
        this.running = undefined;
        throw error;
      },
    );
    this.running = running;
    return running;
  }
}
