import { setTimeout as sleep } from 'node:timers/promises';
import { toKubeError } from '@mgpu/kube-client';
import {
  describeServerError,
  LogLineSplitter,
  LogResumeCursor,
  POD_LOG_FOLLOW_LIMIT_BYTES,
  POD_LOG_MAX_RESUMES,
  POD_LOG_TAIL_LIMIT_BYTES,
  type PodLogEvent,
  PodLogEventSchema,
  PodLogsInputSchema,
  type PodLogUnavailable,
  podLogUnavailableOf,
} from '@mgpu/shared';
import { tracked } from '@trpc/server';
import { publicProcedure, ruleFailure } from '../trpc/init.js';
import { trackedStream } from '../trpc/tracked-stream.js';
import { kubeFailure } from './kube-failure.js';

/** How often a container that has not started is asked for its log again. */
const NOT_STARTED_RETRY_MS = 2_000;

/**
 * How many times a tail cut at its bytes is asked again for fewer lines. `limitBytes` counts from
 * the start of the last-N slice, so a cut tail lost its newest lines (a crashed container's last
 * words); each ask is sized from the lines just seen, so one more nearly always fits.
 */
const TAIL_SHRINKS = 3;
/** A shrunk tail asks for this share of what fitted, against longer lines near the end. */
const TAIL_SHRINK_MARGIN = 0.9;

/**
 * `pod.logs` (spec §9, a subscription): the container's last `tailLines` lines, then each new
 * one, read as the operator. The tail is one call bounded by its own bytes (`limitBytes`, fewer
 * lines asked again when that cut it, so the newest lines are never the ones lost); the
 * follow another, which the BFF bounds (POD_LOG_FOLLOW_LIMIT_BYTES, then "limit") and reopens
 * from the last line's time when the API server ends it while the container still runs (a
 * dropped connection), a bounded number of times. The BFF holds one chunk at a time, read only
 * when the subscriber caught up. A log that cannot be had is said in a typed event
 * (`unavailable`, with why) rather than an error: a container not started yet is asked again
 * until it has; a control plane without kubelets (kube-apiserver cannot reach one) ends the
 * stream. A refusal of the operator's RBAC is an error naming verb and resource.
 */
export const podLogs = publicProcedure
  .input(PodLogsInputSchema)
  .output(trackedStream(PodLogEventSchema))
  .subscription(async function* ({ ctx, input, signal }) {
    const { namespace, pod, container, tailLines, lang } = input;
    const abort = signal ?? new AbortController().signal;
    let sequence = 0;
    const event = (data: PodLogEvent) => tracked(`${pod}/${container}/${sequence++}`, data);
    let said: PodLogUnavailable | undefined;
    const unavailable = (error: unknown) => {
      const kube = toKubeError(error);
      const reason = podLogUnavailableOf(kube);
      if (reason === undefined) throw kubeFailure(error, lang);
      return { reason, detail: kube.message };
    };

    // The operator must be allowed to read the pod itself, whatever they may read of its log.
    let spec: string[];
    try {
      const object = await ctx.cluster.podReads.read(namespace, pod);
      spec = (object.spec?.containers ?? []).map((item) => item.name);
    } catch (error) {
      yield event({ type: 'unavailable', ...unavailable(error) });
      return;
    }
    if (!spec.includes(container)) {
      const named = { name: pod, namespace, replicas: 1, containers: [] };
      throw ruleFailure('BAD_REQUEST', [
        describeServerError(
          'container-not-found',
          'container',
          spec.join(', '),
          named,
          lang,
          undefined,
          container,
        ),
      ]);
    }

    // The tail is one call bounded by its own bytes (asked again for fewer lines when cut); the
    // follow is another, reopened from the last line's time when the API server ends it while the
    // container still runs.
    let phase: 'tail' | 'follow-from-now' | 'follow-since' = 'tail';
    let cursor = new LogResumeCursor();
    let tailAsk = tailLines;
    let shrinks = 0;
    let followed = 0;
    let resumes = 0;
    const stillRunning = async () => {
      try {
        const object = await ctx.cluster.podReads.read(namespace, pod);
        return (
          !object.metadata?.deletionTimestamp &&
          (object.status?.containerStatuses ?? []).some(
            (status) => status.name === container && status.state?.running !== undefined,
          )
        );
      } catch {
        return false;
      }
    };
    for (;;) {
      if (phase === 'follow-since') cursor.resume();
      const since = phase === 'follow-since' ? cursor.sinceTime() : undefined;
      let stream: Awaited<ReturnType<typeof ctx.cluster.podReads.log>>;
      try {
        stream = await ctx.cluster.podReads.log(
          {
            namespace,
            pod,
            container,
            timestamps: true,
            ...(phase === 'tail'
              ? { tailLines: tailAsk, limitBytes: POD_LOG_TAIL_LIMIT_BYTES }
              : { follow: true }),
            // The tail stayed cut however it shrank: follow what comes from now.
            ...(phase === 'follow-from-now' ? { tailLines: 0 } : {}),
            ...(since !== undefined ? { sinceTime: since } : {}),
          },
          abort,
        );
      } catch (error) {
        if (abort.aborted) return;
        const why = unavailable(error);
        if (phase !== 'tail') {
          // The container went while the follow was reopened: its log ended.
          yield event({ type: 'ended', reason: 'closed' });
          return;
        }
        if (why.reason !== said) yield event({ type: 'unavailable', ...why });
        said = why.reason;
        if (why.reason !== 'not-started') return;
        try {
          await sleep(NOT_STARTED_RETRY_MS, undefined, { signal: abort });
        } catch {
          return;
        }
        continue;
      }
      const splitter = new LogLineSplitter();
      let bytes = 0;
      let received = 0;
      let overBudget = false;
      stream.setEncoding('utf8');
      try {
        // A view (or a browser's reconnect) begins afresh with its tail. Inside the try: a
        // subscriber that leaves on this very event still ends the log call.
        if (phase === 'tail') yield event({ type: 'lines', reset: true, lines: [] });
        for await (const chunk of stream as AsyncIterable<string>) {
          const size = Buffer.byteLength(chunk);
          bytes += size;
          if (phase !== 'tail') followed += size;
          const whole = splitter.push(chunk);
          received += whole.length;
          const lines = cursor.fresh(whole);
          if (lines.length > 0) yield event({ type: 'lines', reset: false, lines });
          if (followed >= POD_LOG_FOLLOW_LIMIT_BYTES) {
            overBudget = true;
            break;
          }
        }
      } catch (error) {
        if (abort.aborted) return;
        throw kubeFailure(error, lang);
      } finally {
        stream.destroy();
      }
      if (overBudget) {
        yield event({ type: 'ended', reason: 'limit' });
        return;
      }
      if (phase === 'tail') {
        // A cut tail ends mid-line: that part is dropped; a whole one's last line may lack \n.
        const cut = bytes >= POD_LOG_TAIL_LIMIT_BYTES;
        if (cut && shrinks < TAIL_SHRINKS && received > 1) {
          // Ask again for as many lines as fit at the sizes just seen; the view starts over
          // (the tail's first event resets it), and the follow then resumes from its last line.
          shrinks += 1;
          tailAsk = Math.max(
            1,
            Math.floor((received * TAIL_SHRINK_MARGIN * POD_LOG_TAIL_LIMIT_BYTES) / bytes),
          );
          cursor = new LogResumeCursor();
          continue;
        }
        const rest = cut ? [] : cursor.fresh(splitter.flush());
        if (rest.length > 0) yield event({ type: 'lines', reset: false, lines: rest });
        phase = cut ? 'follow-from-now' : 'follow-since';
        continue;
      }
      // The follow ended: the container's log closed, or the connection dropped under it. A
      // line cut by the drop comes again whole from the reopened call.
      if (resumes < POD_LOG_MAX_RESUMES && (await stillRunning())) {
        resumes += 1;
        phase = 'follow-since';
        continue;
      }
      const rest = cursor.fresh(splitter.flush());
      if (rest.length > 0) yield event({ type: 'lines', reset: false, lines: rest });
      yield event({ type: 'ended', reason: 'closed' });
      return;
    }
  });
