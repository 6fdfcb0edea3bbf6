/**
 * What the hardening tests (issue 14) share: the BFF's wire format spoken over loopback with
 * plain `fetch` and raw sockets, as a script or a hostile client would, with every call bounded
 * by an AbortSignal — a bound against hangs, never a claim about speed.
 */
import net from 'node:net';
import { Writable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { type BffOptions, type RunningBff, startBff } from '../server.js';
import type { BffHarness } from '../test-support/bff-harness.js';

/** How long any one answer may take before the test calls it a hang (a busy 2-core machine). */
export const ANSWER_BOUND_MS = 20_000;

export interface Answer {
  status: number;
  contentType: string;
  text: string;
  headers: Headers;
}

/** One HTTP exchange with the BFF; the body is read whole (never for a stream). */
export async function exchange(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_BOUND_MS) });
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: await response.text(),
    headers: response.headers,
  };
}

/** A query as spec §7 sends it: `GET /trpc/<procedure>?input=<url-encoded JSON text>`. */
export const queryUrl = (base: string, procedure: string, inputText: string | undefined) =>
  `${base}/trpc/${procedure}${inputText === undefined ? '' : `?input=${encodeURIComponent(inputText)}`}`;

/** A mutation as spec §7 sends it: a POST of the JSON text, from the console's own Origin. */
export const mutation = (base: string, procedure: string, bodyText: string) =>
  exchange(`${base}/trpc/${procedure}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: bodyText,
  });

export interface StreamStart {
  status: number;
  contentType: string;
  /** The whole body for a non-stream answer; the first events for a stream. */
  text: string;
  /** `event:` names seen in the stream's first events (`connected`, `serialized-error`, …). */
  events: string[];
  /** `data:` lines of the first events, as sent. */
  data: string[];
}

/**
 * Opens a subscription over SSE, reads its opening (the `connected` event and, if it comes
 * within `readMs`, one more), then closes it: a short read, as a probe does.
 */
export async function openStream(url: string, readMs = 1_500): Promise<StreamStart> {
  const controller = new AbortController();
  const bound = setTimeout(() => controller.abort(), ANSWER_BOUND_MS);
  try {
    const response = await fetch(url, {
      headers: { accept: 'text/event-stream' },
      signal: controller.signal,
    });
    const contentType = response.headers.get('content-type') ?? '';
    if (!contentType.includes('text/event-stream')) {
      return {
        status: response.status,
        contentType,
        text: await response.text(),
        events: [],
        data: [],
      };
    }
    const reader = response.body?.getReader();
    const decoder = new TextDecoder();
    let text = '';
    let readUntil = Number.POSITIVE_INFINITY;
    while (reader) {
      const messages = text.split('\n\n').slice(0, -1);
      // The connected event opens the stream; then one more message, or `readMs` of waiting.
      if (messages.length >= 1 && readUntil === Number.POSITIVE_INFINITY)
        readUntil = Date.now() + readMs;
      if (messages.length >= 2 || Date.now() >= readUntil) break;
      const wait =
        readUntil === Number.POSITIVE_INFINITY ? ANSWER_BOUND_MS : readUntil - Date.now();
      const chunk = await Promise.race([
        reader.read(),
        new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), Math.max(wait, 0))),
      ]);
      if (chunk === 'waited') break;
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    controller.abort();
    const lines = text.split('\n');
    return {
      status: response.status,
      contentType,
      text,
      events: lines.filter((line) => line.startsWith('event: ')).map((line) => line.slice(7)),
      data: lines.filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)),
    };
  } finally {
    clearTimeout(bound);
    controller.abort();
  }
}

/** A second BFF on the harness's cluster, with a token and its log lines captured in memory. */
export async function startLoggedBff(
  harness: BffHarness,
  options: Partial<BffOptions> = {},
): Promise<{ bff: RunningBff; logLines: string[] }> {
  const logLines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  // As the console logs in production (main.ts: info level), into memory.
  const bff = await startBff({
    // The harness closes the connection; this BFF only borrows it.
    connection: { ...harness.connection, close: async () => {} },
    port: 0,
    logger: { level: 'info', stream },
    ...options,
  });
  return { bff, logLines };
}

// A full collection on demand, without `--expose-gc` on the command line: the flag is set now and
// a fresh context picks up the `gc` it exposes.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * What this process's JavaScript still holds after a full collection: the heap plus the
 * buffers outside it. Not RSS, which the allocator keeps after the objects are gone (a noisy
 * machine's RSS grew 200.5 MiB over 2,000 subscribers with nothing retained).
 */
export function retainedBytes(): number {
  collectGarbage();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

export const MiB = 1024 * 1024;

export interface HeldSocket {
  socket: net.Socket;
  /** Settles when the server (or anything) closes the socket. */
  closed: Promise<void>;
  isClosed(): boolean;
}

/**
 * A request that never finishes, held open on a raw socket: headers and half of the body it
 * announced (`body`), or half of the header block (`headers`) — what a slow client or a
 * slowloris attacker leaves on a server.
 */
export function holdPartialRequest(base: string, kind: 'body' | 'headers'): Promise<HeldSocket> {
  const { hostname, port, host } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let closed = false;
    const closedPromise = new Promise<void>((done) => {
      socket.once('close', () => {
        closed = true;
        done();
      });
    });
    socket.on('error', () => {});
    socket.on('data', () => {});
    socket.once('connect', () => {
      if (kind === 'body') {
        const body = JSON.stringify({ namespace: 'default', name: 'x'.repeat(200) });
        socket.write(
          `POST /trpc/workload.delete HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${base}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n` +
            body.slice(0, body.length / 2),
        );
      } else {
        socket.write(`GET /trpc/gpu.models HTTP/1.1\r\nHost: ${host}\r\nAccept: applica`);
      }
      resolve({ socket, closed: closedPromise, isClosed: () => closed });
    });
    socket.once('error', reject);
  });
}

/**
 * A light SSE subscriber on a raw socket: resolves once the stream's first data event (the
 * snapshot) has arrived, so thousands of them cost the BFF rather than the test.
 */
export function rawSubscriber(base: string, path: string): Promise<net.Socket> {
  const { hostname, port, host } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let seen = '';
    const bound = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no snapshot on ${path} within the bound`));
    }, ANSWER_BOUND_MS * 3);
    socket.setEncoding('latin1');
    socket.on('error', (error) => {
      clearTimeout(bound);
      reject(error);
    });
    const onSnapshot = (chunk: string) => {
      seen += chunk;
      // The snapshot is the stream's first tracked event: `data: …` followed by its `id: …`.
      if (!/\ndata: [^\n]*\nid: /.test(seen)) return;
      clearTimeout(bound);
      seen = '';
      // Keep reading (and dropping) what comes, as a live client would.
      socket.off('data', onSnapshot);
      socket.on('data', () => {});
      resolve(socket);
    };
    socket.on('data', onSnapshot);
    socket.once('connect', () => {
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept: text/event-stream\r\nConnection: keep-alive\r\n\r\n`,
      );
    });
  });
}
