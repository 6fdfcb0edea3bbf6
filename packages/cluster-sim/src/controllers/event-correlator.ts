/**
 * The event correlator of client-go (tools/record/events_cache.go), in TypeScript: before an
 * Event is written, identical ones become one Event with a count, similar ones (same object
 * and reason, other message) are combined once there are many, and a per-object token bucket
 * holds back a long tail of spam. Pure: no API calls, time comes from `now`.
 *
 * The Events are core/v1, as client-go's `tools/record` recorder writes them: a repeat raises
 * `count` and `lastTimestamp` on the same Event. `series` (count and lastObservedTime) is a field
 * of events.k8s.io/v1 Events, which client-go's other recorder (`tools/events`) writes; a core/v1
 * Event has no such field, and an events.k8s.io reader sees our count as `deprecatedCount`.
 */
import type { CoreV1Event } from '@kubernetes/client-node';
import { TokenBucket } from './token-bucket.js';

export interface EventCorrelatorOptions {
  /** Entries of each LRU cache (client-go: 4096). */
  cacheSize?: number;
  /** Distinct messages of one object and reason before they are combined (client-go: 10). */
  maxSimilar?: number;
  /** A similar event after this long starts a fresh group (client-go: 10 minutes). */
  similarIntervalMs?: number;
  /** Events about one object written in a burst (client-go: 25). */
  spamBurst?: number;
  /** Refill of that bucket per second (client-go: one per 5 minutes). */
  spamQps?: number;
  now?: () => number;
}

export interface CorrelatedEvent {
  /** What to write: the event itself, or the combined one; count and first time from earlier. */
  event: CoreV1Event;
  /** One key per Event object on the server: later occurrences update the same Event. */
  key: string;
  /** The first occurrence under this key: written with a create, every later one with a patch. */
  first: boolean;
  /**
   * Held back by the spam filter: only ever a repeat. Unlike client-go, the first event of a
   * key always passes (an outcome such as Scheduled after 25 FailedScheduling must be seen);
   * a held-back repeat is still counted, so the next write of the key carries it.
   */
  skip: boolean;
}

/** A least-recently-used map of bounded size, as groupcache's lru.Cache. */
export class LruCache<V> {
  private readonly entries = new Map<string, V>();

  constructor(private readonly maxEntries: number) {}

  get(key: string): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: string, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}

const SEPARATOR = '\u0000';

/** The object an event is about, as a key part (source, kind, namespace, name, uid, version). */
function objectPart(event: CoreV1Event): string[] {
  const object = event.involvedObject;
  return [
    event.source?.component ?? '',
    event.source?.host ?? '',
    object.kind ?? '',
    object.namespace ?? '',
    object.name ?? '',
    object.uid ?? '',
    object.apiVersion ?? '',
  ];
}

/** getEventKey: identical events (object, field, type, reason and message) share one Event. */
export function eventKey(event: CoreV1Event): string {
  const object = event.involvedObject;
  return [
    ...objectPart(event),
    object.fieldPath ?? '',
    event.type ?? '',
    event.reason ?? '',
    event.message ?? '',
  ].join(SEPARATOR);
}

/** EventAggregatorByReasonFunc: similar events differ only in their message. */
export function aggregateKey(event: CoreV1Event): string {
  return [
    ...objectPart(event),
    event.type ?? '',
    event.reason ?? '',
    event.reportingComponent ?? '',
    event.reportingInstance ?? '',
  ].join(SEPARATOR);
}

/** The message of an Event that stands for many similar ones (client-go's wording). */
export const combinedMessage = (message: string) => `(combined from similar events): ${message}`;

interface SimilarGroup {
  messages: Set<string>;
  lastSeen: number;
}

interface Observation {
  count: number;
  firstTimestamp: Date;
  name: string;
}

let nameSequence = 0;
/**
 * client-go names an Event `<object>.<unix nanoseconds in hex>`; a sequence keeps them unique,
 * and a long object name is cut so the Event's name stays a DNS subdomain (≤ 253).
 */
function eventName(objectName: string, at: number): string {
  nameSequence = (nameSequence + 1) % 1_000_000;
  const suffix = (BigInt(Math.floor(at)) * 1_000_000n + BigInt(nameSequence)).toString(16);
  const prefix = objectName.slice(0, 253 - 1 - suffix.length).replace(/[-.]+$/, '');
  return `${prefix}.${suffix}`;
}

export class EventCorrelator {
  private readonly similar: LruCache<SimilarGroup>;
  private readonly observed: LruCache<Observation>;
  private readonly buckets: LruCache<TokenBucket>;
  private readonly maxSimilar: number;
  private readonly similarIntervalMs: number;
  private readonly spamBurst: number;
  private readonly spamQps: number;
  private readonly now: () => number;

  constructor(options: EventCorrelatorOptions = {}) {
    const cacheSize = options.cacheSize ?? 4096;
    this.similar = new LruCache(cacheSize);
    this.observed = new LruCache(cacheSize);
    this.buckets = new LruCache(cacheSize);
    this.maxSimilar = options.maxSimilar ?? 10;
    this.similarIntervalMs = options.similarIntervalMs ?? 600_000;
    this.spamBurst = options.spamBurst ?? 25;
    this.spamQps = options.spamQps ?? 1 / 300;
    this.now = options.now ?? Date.now;
  }

  /** EventCorrelate: aggregate, then count against earlier occurrences, then the spam filter. */
  correlate(incoming: CoreV1Event): CorrelatedEvent {
    const now = this.now();
    const { event: aggregated, key } = this.aggregate(incoming, now);
    const last = this.observed.get(key);
    const event: CoreV1Event = {
      ...aggregated,
      metadata: {
        ...aggregated.metadata,
        name:
          last?.name ??
          aggregated.metadata.name ??
          eventName(incoming.involvedObject.name ?? '', now),
      },
      count: (last?.count ?? 0) + 1,
      firstTimestamp: last?.firstTimestamp ?? new Date(now),
      lastTimestamp: new Date(now),
    };
    delete event.metadata.generateName;
    this.observed.set(key, {
      count: event.count ?? 1,
      firstTimestamp: event.firstTimestamp ?? new Date(now),
      name: event.metadata.name ?? '',
    });
    const first = last === undefined;
    const allowed = this.takeToken(incoming);
    return { event, key, first, skip: !first && !allowed };
  }

  /** EventAggregate: past `maxSimilar` distinct messages, one combined Event per object and reason. */
  private aggregate(event: CoreV1Event, now: number): { event: CoreV1Event; key: string } {
    const groupKey = aggregateKey(event);
    let group = this.similar.get(groupKey);
    if (group === undefined || now - group.lastSeen > this.similarIntervalMs) {
      group = { messages: new Set(), lastSeen: now };
    }
    group.messages.add(event.message ?? '');
    group.lastSeen = now;
    this.similar.set(groupKey, group);
    if (group.messages.size < this.maxSimilar) return { event, key: eventKey(event) };
    // Keep the set at its bound: one message out, so it never grows with the spam.
    const any = group.messages.values().next();
    if (!any.done) group.messages.delete(any.value);
    const combined: CoreV1Event = {
      ...event,
      metadata: { namespace: event.metadata.namespace ?? event.involvedObject.namespace ?? '' },
      message: combinedMessage(event.message ?? ''),
    };
    return { event: combined, key: groupKey };
  }

  /** EventSourceObjectSpamFilter: a token bucket per source and object. */
  private takeToken(event: CoreV1Event): boolean {
    const key = objectPart(event).join(SEPARATOR);
    const bucket = this.buckets.get(key) ?? new TokenBucket(this.spamQps, this.spamBurst, this.now);
    this.buckets.set(key, bucket);
    return bucket.tryTake();
  }
}
