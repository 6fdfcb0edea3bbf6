/**
 * Leadership among the console's replicas (issue 30): work that must happen once per cluster
 * (history sampling) runs where `leading` is true. `LeaderElector` holds a coordination.k8s.io
 * Lease as kube-controller-manager does (client-go's leaderelection); `ALWAYS_LEADING` is one
 * replica without a lease.
 */
import { performance } from 'node:perf_hooks';
import {
  type CoordinationV1Api,
  type KubeConfig,
  type V1Lease,
  type V1LeaseSpec,
  V1MicroTime,
} from '@kubernetes/client-node';
import { makeClients } from './clients.js';
import { type KubeError, toKubeError } from './errors.js';

export interface Leadership {
  /** Whether this process holds the lease now. */
  readonly leading: boolean;
  /** Called with true when this process starts leading and false when it stops; returns an unsubscribe. */
  onChange(listener: (leading: boolean) => void): () => void;
}

/** A process that is always the leader (one replica, no lease needed, e.g. tests). */
export const ALWAYS_LEADING: Leadership = {
  leading: true,
  onChange: () => () => {},
};

export interface LeaderElectionOptions {
  /** The console's own account. */
  kubeConfig: KubeConfig;
  namespace: string;
  /** The Lease's name. */
  name: string;
  /** Unique per process: `${hostname}_${randomUUID()}`. */
  identity: string;
  /** How long a holder's claim stands after its last renewal; default 15 (client-go's). */
  leaseDurationSeconds?: number;
  /** A leader that could not renew for this long stops leading; default 10 000. */
  renewDeadlineMs?: number;
  /** Between attempts to acquire or renew; default 2 000. */
  retryPeriodMs?: number;
  log?: (message: string) => void;
}

/** What an attempt to acquire or renew came to. */
type Attempt = 'holding' | 'held-elsewhere' | 'failed';

/** client-go's JitterFactor for acquiring: replicas that start together do not ask in step. */
const ACQUIRE_JITTER = 1.2;

/** The fields whose change restarts the lease's clock: client-go compares the raw record. */
function recordKey(spec: V1LeaseSpec | undefined): string {
  return JSON.stringify([
    spec?.holderIdentity ?? '',
    spec?.leaseDurationSeconds ?? 0,
    String(spec?.acquireTime ?? ''),
    String(spec?.renewTime ?? ''),
    spec?.leaseTransitions ?? 0,
  ]);
}

/** What `within` rejects with when the answer did not come in time. */
export class AttemptTimeout extends Error {
  constructor(readonly ms: number) {
    super(`the API server did not answer within ${ms} ms`);
  }
}

/**
 * `promise`, or an AttemptTimeout after `ms`: a request into a dead network (a TCP connection
 * whose peer vanished) never answers, and whatever waits on it would wait for ever.
 */
export function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AttemptTimeout(ms)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Leader election over one Lease, with client-go's semantics: a lease is free when it has no
 * holder or when its record has not changed for leaseDurationSeconds *by this process's clock*
 * (other hosts' clocks are never compared); the leader renews every retryPeriod and stops
 * leading when it could not renew within renewDeadline, which is shorter than the lease, so it
 * has stopped before anyone else may start. Writes carry the read resourceVersion: a 409 means
 * another replica won. After losing the lease it keeps trying to win it back.
 */
export class LeaderElector implements Leadership {
  readonly #leases: CoordinationV1Api;
  readonly #namespace: string;
  readonly #name: string;
  readonly #identity: string;
  readonly #leaseDurationSeconds: number;
  readonly #renewDeadlineMs: number;
  readonly #retryPeriodMs: number;
  readonly #log: (message: string) => void;
  readonly #listeners = new Set<(leading: boolean) => void>();

  #leading = false;
  /**
   * When (performance.now()) the last successful acquire or renewal began: the lease was
   * written after that, so no other replica may take it before this + the lease duration, and
   * this one stops leading at this + renewDeadline, whatever its timers do.
   */
  #renewedAt = Number.NEGATIVE_INFINITY;
  #running = false;
  /** The record last seen and when (performance.now()) this process first saw it. */
  #observedKey: string | undefined;
  #observedSpec: V1LeaseSpec | undefined;
  #observedAt = 0;
  #timer: NodeJS.Timeout | undefined;
  #renewDeadline: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> | undefined;
  /** Bumped when an attempt is abandoned, so its late answer changes nothing. */
  #generation = 0;
  /** What was last logged about the lease's state, so a failure is logged once, not per retry. */
  #reported: string | undefined;

  constructor(options: LeaderElectionOptions) {
    this.#leases = makeClients(options.kubeConfig).coordination;
    this.#namespace = options.namespace;
    this.#name = options.name;
    this.#identity = options.identity;
    this.#leaseDurationSeconds = options.leaseDurationSeconds ?? 15;
    this.#renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.#retryPeriodMs = options.retryPeriodMs ?? 2_000;
    this.#log = options.log ?? (() => {});
    if (this.#renewDeadlineMs >= this.#leaseDurationSeconds * 1000) {
      throw new Error('leader election: renewDeadlineMs must be shorter than the lease duration');
    }
    if (this.#retryPeriodMs >= this.#renewDeadlineMs) {
      throw new Error('leader election: retryPeriodMs must be shorter than renewDeadlineMs');
    }
  }

  get leading(): boolean {
    // The timer that says so may run late (a busy event loop): the deadline itself decides.
    return this.#leading && performance.now() < this.#renewedAt + this.#renewDeadlineMs;
  }

  onChange(listener: (leading: boolean) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#schedule(0);
  }

  /** Stops electing; a leader first stops leading, then releases the lease so another takes over at once. */
  async stop(): Promise<void> {
    if (!this.#running) return;
    this.#running = false;
    clearTimeout(this.#timer);
    clearTimeout(this.#renewDeadline);
    await this.#inFlight;
    const held = this.#observedSpec?.holderIdentity === this.#identity;
    this.#setLeading(false, 'stopped');
    if (held) await this.#release();
  }

  get #lease(): string {
    return `Lease ${this.#namespace}/${this.#name}`;
  }

  #schedule(delayMs: number): void {
    this.#timer = setTimeout(() => {
      this.#inFlight = this.#tick().finally(() => {
        this.#inFlight = undefined;
      });
    }, delayMs);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    const generation = this.#generation;
    const startedAt = performance.now();
    let outcome: Attempt;
    try {
      outcome = await within(this.#tryAcquireOrRenew(generation), this.#renewDeadlineMs);
    } catch (error) {
      this.#generation += 1;
      outcome = 'failed';
      this.#report(
        'timeout',
        `${this.#lease}: ${String(error instanceof Error ? error.message : error)}`,
      );
    }
    if (!this.#running) return;
    if (outcome === 'holding') {
      // From when the attempt began, not when its answer came: the write may have landed (and
      // the others' clocks started) anywhere in between, and a slow answer must not stretch it.
      this.#renewedAt = startedAt;
      const left = startedAt + this.#renewDeadlineMs - performance.now();
      clearTimeout(this.#renewDeadline);
      this.#renewDeadline = setTimeout(() => {
        this.#setLeading(false, `could not renew within ${this.#renewDeadlineMs} ms`);
      }, left);
      this.#renewDeadline.unref();
      if (left > 0) this.#setLeading(true, 'acquired');
      this.#schedule(this.#retryPeriodMs);
    } else {
      this.#schedule(
        this.#leading
          ? this.#retryPeriodMs
          : this.#retryPeriodMs * (1 + Math.random() * ACQUIRE_JITTER),
      );
    }
  }

  async #tryAcquireOrRenew(generation: number): Promise<Attempt> {
    const now = new V1MicroTime();
    const mine: V1LeaseSpec = {
      holderIdentity: this.#identity,
      leaseDurationSeconds: this.#leaseDurationSeconds,
      acquireTime: now,
      renewTime: now,
      leaseTransitions: 0,
    };
    let lease: V1Lease;
    try {
      lease = await this.#leases.readNamespacedLease({
        name: this.#name,
        namespace: this.#namespace,
      });
    } catch (error) {
      const failure = toKubeError(error);
      if (failure.code !== 404) return this.#failed('read', failure);
      return this.#write(generation, 'create', { metadata: { name: this.#name }, spec: mine });
    }
    if (generation !== this.#generation) return 'failed';
    const spec = lease.spec ?? {};
    this.#observe(spec);
    const holder = spec.holderIdentity ?? '';
    const expiresAt = this.#observedAt + (spec.leaseDurationSeconds ?? 0) * 1000;
    if (holder !== '' && holder !== this.#identity && performance.now() < expiresAt) {
      this.#report(`held:${holder}`, `${this.#lease} is held by ${holder}`);
      return 'held-elsewhere';
    }
    const renewing = holder === this.#identity;
    return this.#write(generation, 'replace', {
      ...lease,
      spec: {
        ...mine,
        acquireTime: renewing ? (spec.acquireTime ?? now) : now,
        leaseTransitions: (spec.leaseTransitions ?? 0) + (renewing ? 0 : 1),
      },
    });
  }

  async #write(generation: number, verb: 'create' | 'replace', body: V1Lease): Promise<Attempt> {
    const request = { name: this.#name, namespace: this.#namespace, body };
    let written: V1Lease;
    try {
      written =
        verb === 'create'
          ? await this.#leases.createNamespacedLease(request)
          : await this.#leases.replaceNamespacedLease(request);
    } catch (error) {
      const failure = toKubeError(error);
      // Another replica wrote first (AlreadyExists, or a newer resourceVersion): it won this round.
      if (failure.code === 409) return 'held-elsewhere';
      return this.#failed(verb, failure);
    }
    if (generation !== this.#generation) return 'failed';
    this.#observe(written.spec);
    // Starting to lead is logged by #setLeading; only the end of a logged failure is news here.
    const failing = this.#reported !== undefined && !/^(holding|held:)/.test(this.#reported);
    if (failing) this.#log(`${this.#lease}: written again`);
    this.#reported = 'holding';
    return 'holding';
  }

  #observe(spec: V1LeaseSpec | undefined): void {
    const key = recordKey(spec);
    if (key === this.#observedKey) return;
    this.#observedKey = key;
    this.#observedSpec = spec;
    this.#observedAt = performance.now();
  }

  #failed(verb: string, failure: KubeError): Attempt {
    this.#report(
      `${verb}:${failure.code}:${failure.reason}`,
      `${this.#lease}: could not ${verb} it: ${failure.message}`,
    );
    return 'failed';
  }

  /** Logs `message` only when the state it describes differs from the last one logged. */
  #report(state: string, message: string): void {
    if (state === this.#reported) return;
    this.#reported = state;
    this.#log(message);
  }

  #setLeading(leading: boolean, why: string): void {
    if (leading === this.#leading) return;
    this.#leading = leading;
    this.#log(`${this.#lease}: ${leading ? 'started' : 'stopped'} leading (${why})`);
    if (!leading) {
      clearTimeout(this.#renewDeadline);
      // Holding was logged before: the next time this replica holds it is news again.
      this.#reported = undefined;
    }
    for (const listener of [...this.#listeners]) {
      try {
        listener(leading);
      } catch (error) {
        this.#log(`${this.#lease}: a leadership listener failed: ${String(error)}`);
      }
    }
  }

  /** Clears the holder and shortens the lease to 1 s, as client-go's ReleaseOnCancel does. */
  async #release(): Promise<void> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        const lease = await within(
          this.#leases.readNamespacedLease({ name: this.#name, namespace: this.#namespace }),
          this.#renewDeadlineMs,
        );
        if (lease.spec?.holderIdentity !== this.#identity) return;
        const now = new V1MicroTime();
        await within(
          this.#leases.replaceNamespacedLease({
            name: this.#name,
            namespace: this.#namespace,
            body: {
              ...lease,
              spec: {
                holderIdentity: '',
                leaseDurationSeconds: 1,
                acquireTime: now,
                renewTime: now,
                leaseTransitions: lease.spec.leaseTransitions ?? 0,
              },
            },
          }),
          this.#renewDeadlineMs,
        );
        this.#log(`${this.#lease}: released`);
        return;
      } catch (error) {
        if (error instanceof AttemptTimeout || toKubeError(error).code !== 409) {
          this.#log(`${this.#lease}: could not release it: ${toKubeError(error).message}`);
          return;
        }
      }
    }
  }
}
