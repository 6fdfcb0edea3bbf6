import type { ServerResponse } from 'node:http';
import { preparedJson } from '@mgpu/api';
import {
  type AnyTRPCRouter,
  type inferRouterContext,
  isTrackedEnvelope,
  type TRPCError,
} from '@trpc/server';
import {
  getErrorShape,
  getTRPCErrorFromUnknown,
  isAbortError,
  sseHeaders,
} from '@trpc/server/unstable-core-do-not-import';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { callInputOf, callSearchOf } from './call-input.js';

/**
 * Server-sent events for tRPC subscriptions, written straight to the socket.
 *
 * tRPC's own SSE producer runs every event through a chain of web streams per subscriber (three
 * string chunks, a TextEncoderStream, a re-wrapping ReadableStream, then Fastify's reader): about
 * 100 µs of CPU and a pile of garbage per event per subscriber, so 1,000 open dashboards put a
 * change 300+ ms behind (issue 6 wants p95 < 50 ms). This transport keeps tRPC for everything
 * that matters — the procedure is called through the router with its input and output
 * validation, errors are shaped by the router's error formatter — and only replaces the last
 * step: each event is serialised once and the same bytes go to every subscriber that shares it.
 *
 * The wire format is tRPC's (`httpSubscriptionLink` and any EventSource read it): a `connected`
 * event with the client options, `data:` + `id:` per tracked event, `ping` while idle, `return`
 * at the end, `serialized-error` with the formatted error shape.
 */

export interface SseTransportOptions<TRouter extends AnyTRPCRouter> {
  router: TRouter;
  /** The context of one request: who is signed in on it decides whose identity its calls use. */
  createContext: (request: FastifyRequest) => inferRouterContext<TRouter>;
  /** How long a stream may stay silent before a `ping` keeps proxies and the client's timer happy. */
  pingIntervalMs: number;
  /** Sent in the `connected` event: the client reconnects after this much silence. */
  reconnectAfterInactivityMs: number;
  /**
   * Bytes a subscriber may leave unread before its stream waits for it to read them ('drain')
   * instead of sending more: a snapshot's parts, or one event larger than this, reach a client
   * that reads however large they are together, at its pace (issue 20).
   */
  maxBufferedBytes: number;
  /**
   * A subscriber that reads nothing of what it left unread for this long is cut off: it then
   * reconnects with `Last-Event-ID` and resumes from the feed's log (or a fresh snapshot)
   * instead of the server holding its stream without end.
   */
  stalledAfterMs: number;
  /**
   * Whether the request that opened a stream would still be let in (its session has not ended),
   * asked for every open stream at each ping tick: a stream whose answer turns false is ended
   * without `return`, so the client reconnects and meets the 401 a new request gets.
   */
  stillAdmitted?: (request: FastifyRequest) => boolean;
  onError?: (error: TRPCError, path: string) => void;
}

interface StreamState {
  lastWrite: number;
  /**
   * While the stream waits for the subscriber to read: the bytes it had unread when last seen
   * reading, and since when it has read nothing. No ping is due meanwhile.
   */
  unread: { bytes: number; since: number } | undefined;
  request: FastifyRequest;
  /** Ends the stream from outside (its session ended): the procedure is aborted, no `return`. */
  end: () => void;
}

interface Frame {
  id: string | undefined;
  bytes: Buffer;
}

const frameOf = (fields: { event?: string; data: string; id?: string }): Buffer => {
  let text = '';
  if (fields.event !== undefined) text += `event: ${fields.event}\n`;
  text += `data: ${fields.data}\n`;
  if (fields.id !== undefined) text += `id: ${fields.id}\n`;
  return Buffer.from(`${text}\n`);
};

const PING = frameOf({ event: 'ping', data: '' });
const RETURN = frameOf({ event: 'return', data: '' });

/** What tRPC's fetch adapter does: `Last-Event-ID` (header or query) joins the input. */
function inputWithLastEventId(request: FastifyRequest, input: unknown): unknown {
  const query = request.query as Record<string, string | undefined>;
  const header = request.headers['last-event-id'];
  const lastEventId =
    (typeof header === 'string' ? header : undefined) ??
    query.lastEventId ??
    query['Last-Event-Id'];
  if (!lastEventId) return input;
  if (typeof input === 'object' && input !== null) return { ...input, lastEventId };
  return input ?? { lastEventId };
}

/**
 * A subscription's input from `?input=`: JSON, and with `?batch=1` the first entry of tRPC's
 * batch wrapper `{ "0": … }` — read as the input itself, the wrapper would pass a schema of
 * optional fields and subscribe to everything.
 */
export function subscriptionInput(
  request: FastifyRequest,
  path: string,
): { ok: true; input: unknown } | { ok: false; message: string } {
  const search = callSearchOf(request.url);
  let input: unknown;
  try {
    input = callInputOf(search.get('input') || undefined, false);
  } catch {
    return { ok: false, message: `The input of ${path} is not JSON.` };
  }
  const batch = search.get('batch');
  if (batch === null || batch === '0' || input === undefined) return { ok: true, input };
  // Stricter than tRPC's batch read: any entry but `0` would be a second call to ignore.
  if (typeof input !== 'object' || input === null || Object.keys(input).some((key) => key !== '0'))
    return { ok: false, message: `A batched ${path} takes its input as { "0": … }.` };
  return { ok: true, input: (input as Record<string, unknown>)['0'] };
}

export class SseTransport<TRouter extends AnyTRPCRouter> {
  /** One serialised frame per shared event object: the fan-out writes the same bytes everywhere. */
  private readonly frames = new WeakMap<object, Frame>();
  private readonly open = new Map<ServerResponse, StreamState>();
  private readonly pinger: NodeJS.Timeout;
  private readonly connected: Buffer;

  constructor(private readonly options: SseTransportOptions<TRouter>) {
    this.connected = frameOf({
      event: 'connected',
      data: JSON.stringify({ reconnectAfterInactivityMs: options.reconnectAfterInactivityMs }),
    });
    // One timer for every stream rather than one per subscriber.
    this.pinger = setInterval(() => this.tick(), Math.max(options.pingIntervalMs / 2, 50));
    this.pinger.unref();
  }

  /** Names of the router's subscription procedures (the paths this transport answers). */
  static subscriptionPaths(router: AnyTRPCRouter): Set<string> {
    // At run time `_def.procedures` is flat (`'allocations.watch'`), whatever its declared type.
    const procedures = router._def.procedures as unknown as Record<
      string,
      { _def: { type: string } }
    >;
    return new Set(
      Object.entries(procedures)
        .filter(([, procedure]) => procedure._def.type === 'subscription')
        .map(([path]) => path),
    );
  }

  /**
   * An `onRequest` hook for the scope of tRPC's routes: a GET of a subscription streams from
   * here, anything else goes on to tRPC. Register it after the hooks that check the request.
   */
  hook(): (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined> {
    const paths = SseTransport.subscriptionPaths(this.options.router);
    return async (request, reply) => {
      const path = (request.params as { path?: string }).path ?? '';
      if (request.method !== 'GET' || !paths.has(path)) return undefined;
      const read = subscriptionInput(request, path);
      if (!read.ok)
        return reply.code(400).send({ error: { code: 'PARSE_ERROR', message: read.message } });
      const input = read.input;
      this.serve(request, reply, path, input).catch((error: unknown) => {
        request.log.error({ err: error, path }, 'subscription stream failed');
      });
      return reply;
    };
  }

  /** Open streams right now. */
  get streams(): number {
    return this.open.size;
  }

  /**
   * Ends every open stream whose request `opened` matches (a session that signed out), as
   * `stillAdmitted` turning false would; returns how many.
   */
  endStreams(opened: (request: FastifyRequest) => boolean): number {
    let ended = 0;
    for (const state of [...this.open.values()]) {
      if (!opened(state.request)) continue;
      state.end();
      ended++;
    }
    return ended;
  }

  close(): void {
    clearInterval(this.pinger);
    for (const response of this.open.keys()) response.end();
    this.open.clear();
  }

  /** Answers `GET /trpc/<path>?input=…` for a subscription; the caller already validated the input. */
  async serve(
    request: FastifyRequest,
    reply: FastifyReply,
    path: string,
    rawInput: unknown,
  ): Promise<void> {
    const { router, createContext } = this.options;
    const abort = new AbortController();
    const response = reply.raw;
    reply.hijack();
    // Headers set so far by hooks (helmet's security headers, the request id) still apply.
    response.writeHead(200, {
      ...(reply.getHeaders() as Record<string, string>),
      ...sseHeaders,
      // Set by an onSend hook elsewhere, which a hijacked reply never runs.
      'x-request-id': String(request.id),
    });
    // Many small frames: send each at once rather than waiting to coalesce with the next.
    response.socket?.setNoDelay(true);
    const done = () => {
      this.open.delete(response);
      abort.abort();
    };
    const state: StreamState = {
      lastWrite: Date.now(),
      unread: undefined,
      request,
      // Ended now rather than once the procedure notices the abort (it may be waiting on a feed);
      // one waiting for its subscriber to read is closed, as ending would wait for that too.
      end: () => {
        done();
        if (state.unread === undefined) response.end();
        else response.destroy();
      },
    };
    this.open.set(response, state);
    response.on('close', done);
    this.write(response, this.connected);

    const input = inputWithLastEventId(request, rawInput);
    const ctx = createContext(request);
    try {
      const caller = router.createCaller(ctx, { signal: abort.signal });
      const procedure = path
        .split('.')
        .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller) as (
        input: unknown,
      ) => Promise<AsyncIterable<unknown>>;
      const iterable = await procedure(input);
      for await (const value of iterable) {
        if (!this.write(response, this.frameFor(value))) break;
        if (!(await this.caughtUp(response, state))) break;
      }
      if (!abort.signal.aborted) this.write(response, RETURN);
    } catch (cause) {
      if (!(isAbortError(cause) || abort.signal.aborted)) {
        const error = getTRPCErrorFromUnknown(cause);
        this.options.onError?.(error, path);
        const shape = getErrorShape({
          config: router._def._config,
          ctx,
          error,
          input,
          path,
          type: 'subscription',
        });
        this.write(response, frameOf({ event: 'serialized-error', data: JSON.stringify(shape) }));
      }
    } finally {
      response.off('close', done);
      done();
      response.end();
    }
  }

  private frameFor(value: unknown): Buffer {
    const [id, data] = isTrackedEnvelope(value) ? value : [undefined, value];
    if (typeof data !== 'object' || data === null) {
      return frameOf({ data: JSON.stringify(data), ...(id === undefined ? {} : { id }) });
    }
    const cached = this.frames.get(data);
    if (cached !== undefined && cached.id === id) return cached.bytes;
    const json = preparedJson(data) ?? JSON.stringify(data);
    const bytes = frameOf({ data: json, ...(id === undefined ? {} : { id }) });
    this.frames.set(data, { id, bytes });
    return bytes;
  }

  /** Writes `frame`; false when the subscriber is gone. */
  private write(response: ServerResponse, frame: Buffer): boolean {
    if (response.destroyed || response.writableEnded) return false;
    response.write(frame);
    const state = this.open.get(response);
    if (state) state.lastWrite = Date.now();
    return true;
  }

  /**
   * True once the subscriber has at most `maxBufferedBytes` unread: at once, or after it has
   * read everything it was sent ('drain'); false when it is gone first (`tick` cuts off one that
   * stops reading). The measure is what the subscriber did not read, so a frame larger than the
   * limit never cuts a subscriber off by itself.
   */
  private async caughtUp(response: ServerResponse, state: StreamState): Promise<boolean> {
    if (response.destroyed) return false;
    // Below the socket's own high-water mark no 'drain' comes: that much is never waited for.
    if (response.writableLength <= this.options.maxBufferedBytes || !response.writableNeedDrain)
      return true;
    state.unread = { bytes: response.writableLength, since: Date.now() };
    const drained = await new Promise<boolean>((resolve) => {
      const finish = (outcome: boolean) => {
        response.off('drain', onDrain);
        response.off('close', onClose);
        resolve(outcome);
      };
      const onDrain = () => finish(true);
      const onClose = () => finish(false);
      response.on('drain', onDrain);
      response.on('close', onClose);
    });
    state.unread = undefined;
    return drained;
  }

  /** Ends streams no longer admitted, then pings the idle ones. */
  private tick(): void {
    const { stillAdmitted } = this.options;
    if (stillAdmitted) this.endStreams((request) => !stillAdmitted(request));
    const now = Date.now();
    for (const [response, state] of this.open) {
      if (state.unread !== undefined) this.cutOffIfStalled(response, state.unread, now);
      else if (state.lastWrite <= now - this.options.pingIntervalMs) this.write(response, PING);
    }
  }

  /** Cuts off a subscriber that has read nothing of its unread bytes for `stalledAfterMs`. */
  private cutOffIfStalled(
    response: ServerResponse,
    unread: NonNullable<StreamState['unread']>,
    now: number,
  ): void {
    if (response.writableLength < unread.bytes || !response.writableNeedDrain) {
      unread.bytes = response.writableLength;
      unread.since = now;
    } else if (now - unread.since >= this.options.stalledAfterMs) {
      this.open
        .get(response)
        ?.request.log.warn(
          { buffered: response.writableLength },
          'subscriber stopped reading: stream cut off (it resumes from its Last-Event-ID)',
        );
      response.destroy();
    }
  }
}
