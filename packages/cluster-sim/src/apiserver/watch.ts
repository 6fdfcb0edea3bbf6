/**
 * Watch serving: newline-delimited JSON events from the Registry's watch, in the representation
 * asked for, with BOOKMARKs, the initial-events-end marker and timeoutSeconds.
 */
import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { KubeObject } from './kube-object.js';
import type { Registry, WatchEvent } from './registry.js';
import { first, type Query } from './request-options.js';
import type { ResourceDefinition } from './resource-table.js';
import { partialMetadata, type Representation, table } from './responses.js';
import { badRequest } from './status.js';

/** JSON of stored objects already sent to a watcher; stored objects are never mutated. */
const serializedObjects = new WeakMap<object, string>();

/** The open watches, so closing the server ends them. */
export class WatchStreams {
  /** Each open watch's response, with the function that sends what waits and ends it. */
  private readonly open = new Map<ServerResponse, () => void>();

  add(response: ServerResponse, end: () => void, cleanup: () => void): void {
    this.open.set(response, end);
    response.on('close', () => {
      this.open.delete(response);
      cleanup();
    });
  }

  closeAll(): void {
    for (const end of [...this.open.values()]) end();
    this.open.clear();
  }
}

/** What serving a watch needs from the server. */
export interface WatchServing {
  registry: Registry;
  watches: WatchStreams;
  /** How often watches with allowWatchBookmarks get a BOOKMARK. */
  bookmarkIntervalMs: number;
}

export function streamWatch(
  serving: WatchServing,
  reply: FastifyReply,
  definition: ResourceDefinition,
  namespace: string | undefined,
  query: Query,
  representation: Representation,
): FastifyReply {
  const { registry, watches, bookmarkIntervalMs } = serving;
  const store = registry.store;
  const timeoutText = first(query.timeoutSeconds);
  const timeoutSeconds = timeoutText === undefined ? undefined : Number(timeoutText);
  if (timeoutSeconds !== undefined && (!Number.isFinite(timeoutSeconds) || timeoutSeconds < 0)) {
    throw badRequest(`invalid timeoutSeconds "${timeoutText}"`);
  }
  const includeObject = first(query.includeObject);
  const sendInitialEvents = first(query.sendInitialEvents) === 'true';
  const watchOptions = {
    ...(first(query.labelSelector) !== undefined
      ? { labelSelector: first(query.labelSelector) }
      : {}),
    ...(first(query.fieldSelector) !== undefined
      ? { fieldSelector: first(query.fieldSelector) }
      : {}),
    ...(!sendInitialEvents && first(query.resourceVersion) !== undefined
      ? { resourceVersion: first(query.resourceVersion) }
      : {}),
  };
  // Parse selectors before the 200 goes out, so a bad one is a plain 400 Status.
  registry.list(definition, namespace, { ...watchOptions, limit: 1, resourceVersion: undefined });
  const response = reply.raw;
  let headersSent = false;
  reply.hijack();
  response.writeHead(200, {
    'content-type': 'application/json',
    'cache-control': 'no-cache, private',
  });
  response.flushHeaders();
  // A watcher that went away mid-write must not take the server down with an 'error' event.
  response.on('error', () => undefined);
  // Lines wait for the end of this turn of the event loop and go out as one chunk: under
  // load many requests commit in one turn, and a socket write per event per watcher (a
  // syscall, and on loopback the receiver's TCP work with it) was the server's largest cost.
  // kube-apiserver's watch server likewise flushes only once its event channel is drained.
  let pending = '';
  let flushing: NodeJS.Immediate | undefined;
  const flush = (): void => {
    flushing = undefined;
    const lines = pending;
    pending = '';
    if (lines !== '' && !response.writableEnded && !response.destroyed) response.write(lines);
  };
  const end = (): void => {
    if (flushing) clearImmediate(flushing);
    flush();
    response.end();
  };
  const write = (event: WatchEvent): void => {
    if (response.writableEnded || response.destroyed) return;
    let object: unknown = event.object;
    if (event.type !== 'ERROR' && event.type !== 'BOOKMARK') {
      if (representation === 'table') {
        object = table(
          definition,
          [event.object as KubeObject],
          { resourceVersion: (event.object as KubeObject).metadata.resourceVersion },
          includeObject,
          !headersSent,
        );
        headersSent = true;
      } else if (representation === 'metadata') {
        object = partialMetadata(event.object as KubeObject);
      }
    }
    // The same stored object goes to every watcher: serialise it once, not once per watcher.
    let serialized =
      typeof object === 'object' && object !== null ? serializedObjects.get(object) : undefined;
    if (serialized === undefined) {
      serialized = JSON.stringify(object);
      if (object === event.object && typeof object === 'object' && object !== null) {
        serializedObjects.set(object, serialized);
      }
    }
    pending += `{"type":"${event.type}","object":${serialized}}\n`;
    flushing ??= setImmediate(flush);
  };
  const timers: NodeJS.Timeout[] = [];
  let stop = (): void => undefined;
  watches.add(response, end, () => {
    stop();
    if (flushing) clearImmediate(flushing);
    for (const timer of timers) clearTimeout(timer);
  });
  const started = registry.watch(definition, namespace, watchOptions, write);
  if ('expired' in started) {
    write({ type: 'ERROR', object: started.expired });
    end();
    return reply;
  }
  stop = started.stop;
  const bookmark = (annotations?: Record<string, string>): void => {
    write({
      type: 'BOOKMARK',
      object: {
        kind: definition.kind,
        apiVersion: definition.group
          ? `${definition.group}/${definition.version}`
          : definition.version,
        metadata: {
          resourceVersion: String(store.resourceVersion),
          ...(annotations ? { annotations } : {}),
        },
      } as KubeObject,
    });
  };
  const bookmarks = first(query.allowWatchBookmarks) === 'true';
  if (sendInitialEvents && bookmarks) bookmark({ 'k8s.io/initial-events-end': 'true' });
  if (bookmarks) timers.push(setInterval(() => bookmark(), bookmarkIntervalMs));
  if (timeoutSeconds !== undefined && timeoutSeconds > 0) {
    timers.push(setTimeout(end, timeoutSeconds * 1000));
  }
  return reply;
}
