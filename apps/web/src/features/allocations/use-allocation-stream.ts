import { type AllocationEvent, SnapshotAssembly } from '@mgpu/shared';
import { useCallback, useEffect, useState } from 'react';
import { useTRPCClient } from '../../app/trpc.js';
import type { AllocationModel } from './allocation-model.js';

/**
 * - `connecting`: first connection, nothing shown yet;
 * - `live`: connected, every change arrives;
 * - `reconnecting`: the connection dropped (BFF stopped, network) — what is shown is stale;
 * - `retrying`: the subscription ended with an error; a new one starts after a pause.
 */
export type StreamStatus = 'connecting' | 'live' | 'reconnecting' | 'retrying';

export interface StreamState {
  status: StreamStatus;
  /** When the current status began (ms since epoch). */
  since: number;
  /** Why the connection is down, as the client saw it. */
  error: string | null;
  /** Bumped every time the stream becomes live again, so the page can re-read the node layout. */
  liveCount: number;
}

/** Window event the page dispatches after painting a batch: the benchmark listens for it. */
export const PAINTED_EVENT = 'mgpu:allocations-painted';

export interface PaintedDetail {
  /** performance.now() when each event of the batch arrived. */
  receivedAt: number[];
  /** The BFF's `at` of each event (ISO time the feed saw the change). */
  feedAt: string[];
  /** performance.now() after the frame that shows the batch. */
  paintedAt: number;
  records: number;
}

const RETRY_MS = [1_000, 2_000, 5_000, 10_000];

/**
 * Keeps `model` current from `allocations.watch`: events are collected as they arrive and
 * applied once per animation frame (100 changes a second become ≤ 60 renders), a snapshot drops
 * what was still queued before it (one in parts is applied once its last part is in). The tRPC
 * link reconnects by itself and resumes with `Last-Event-ID` (only missed changes, or a fresh
 * snapshot after a BFF restart or in the middle of one); when the subscription itself fails, a
 * new one starts with a growing pause. `refresh` starts over.
 */
export function useAllocationStream(model: AllocationModel): {
  stream: StreamState;
  refresh(): void;
} {
  const client = useTRPCClient();
  const [generation, setGeneration] = useState(0);
  const [stream, setStream] = useState<StreamState>(() => ({
    status: 'connecting',
    since: Date.now(),
    error: null,
    liveCount: 0,
  }));

  useEffect(() => {
    // The generation is what restarts the effect on a manual refresh.
    void generation;
    let disposed = false;
    let pending: { event: AllocationEvent; receivedAt: number }[] = [];
    let flushScheduled = false;
    let attempts = 0;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let subscription: { unsubscribe(): void } | undefined;
    let wasLive = false;

    const setStatus = (status: StreamStatus, error: string | null = null) =>
      setStream((previous) =>
        previous.status === status && previous.error === error
          ? previous
          : {
              status,
              since: Date.now(),
              error,
              liveCount: previous.liveCount + (status === 'live' ? 1 : 0),
            },
      );

    // A message posted from the next frame runs right after that frame is painted. One channel
    // for the stream's life: a channel per frame would leave ports for the collector to chase.
    const painted: { batch: typeof pending; records: number }[] = [];
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      const next = painted.shift();
      if (next === undefined) return;
      window.dispatchEvent(
        new CustomEvent<PaintedDetail>(PAINTED_EVENT, {
          detail: {
            receivedAt: next.batch.map((item) => item.receivedAt),
            feedAt: next.batch.map((item) => item.event.at),
            paintedAt: performance.now(),
            records: next.records,
          },
        }),
      );
    };
    const announcePaint = (batch: typeof pending, records: number) => {
      painted.push({ batch, records });
      requestAnimationFrame(() => channel.port2.postMessage(null));
    };

    const flush = () => {
      flushScheduled = false;
      if (disposed || pending.length === 0) return;
      const batch = pending;
      pending = [];
      model.apply(batch.map((item) => item.event));
      announcePaint(
        batch,
        batch.reduce((sum, item) => sum + item.event.records.length, 0),
      );
    };

    const scheduleFlush = () => {
      if (flushScheduled) return;
      flushScheduled = true;
      // Hidden tabs get no animation frames: apply at a slower pace so memory does not pile up.
      if (document.hidden) setTimeout(flush, 500);
      else requestAnimationFrame(flush);
    };

    const start = () => {
      subscription = client.allocations.watch.subscribe(
        {},
        {
          onData(value) {
            const event = value.data;
            if (event.type === 'snapshot' && SnapshotAssembly.begins(event)) pending = [];
            pending.push({ event, receivedAt: performance.now() });
            // A large snapshot comes in parts: it is applied (and painted) once the last is in.
            if (!(event.type === 'snapshot' && event.more)) scheduleFlush();
          },
          onConnectionStateChange(state) {
            if (disposed) return;
            if (state.state === 'pending') {
              attempts = 0;
              wasLive = true;
              setStatus('live');
            } else if (state.state === 'connecting') {
              setStatus(wasLive ? 'reconnecting' : 'connecting', state.error?.message ?? null);
            }
          },
          onError(error) {
            if (disposed) return;
            setStatus('retrying', error.message);
            restart();
          },
          onComplete() {
            // The server ended the stream (shutting down): start a new one.
            if (!disposed) restart();
          },
        },
      );
    };

    const restart = () => {
      subscription?.unsubscribe();
      subscription = undefined;
      clearTimeout(retryTimer);
      const pause = RETRY_MS[Math.min(attempts, RETRY_MS.length - 1)] ?? 10_000;
      attempts++;
      retryTimer = setTimeout(() => {
        if (!disposed) start();
      }, pause);
    };

    start();
    return () => {
      disposed = true;
      clearTimeout(retryTimer);
      subscription?.unsubscribe();
      channel.port1.close();
      channel.port2.close();
    };
  }, [client, model, generation]);

  const refresh = useCallback(() => setGeneration((value) => value + 1), []);
  return { stream, refresh };
}
