import { setTimeout as sleep } from 'node:timers/promises';
import { toKubeError } from '@mgpu/kube-client';
import {
  describeServerError,
  LogLineSplitter,
  POD_LOG_LIMIT_BYTES,
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
 * `pod.logs` (spec §9, a subscription): the container's last `tailLines` lines, then each new
 * one, read as the operator. The log API bounds the bytes (`limitBytes`); the BFF holds one
 * chunk at a time, read only when the subscriber caught up. A log that cannot be had is said in
 * a typed event (`unavailable`, with why) rather than an error: a container not started yet is
 * asked again until it has; a control plane without kubelets (kube-apiserver cannot reach one)
 * ends the stream. A refusal of the operator's RBAC is an error naming verb and resource.
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

    for (;;) {
      let stream: Awaited<ReturnType<typeof ctx.cluster.podReads.log>>;
      try {
        stream = await ctx.cluster.podReads.log(
          {
            namespace,
            pod,
            container,
            tailLines,
            limitBytes: POD_LOG_LIMIT_BYTES,
            follow: true,
            timestamps: true,
          },
          abort,
        );
      } catch (error) {
        if (abort.aborted) return;
        const why = unavailable(error);
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
      stream.setEncoding('utf8');
      try {
        // A reconnect, or a container that started since, begins the view afresh with its tail.
        // Inside the try: a subscriber that leaves on this very event still ends the log call.
        yield event({ type: 'lines', reset: true, lines: [] });
        for await (const chunk of stream as AsyncIterable<string>) {
          bytes += Buffer.byteLength(chunk);
          const lines = splitter.push(chunk);
          if (lines.length > 0) yield event({ type: 'lines', reset: false, lines });
        }
      } catch (error) {
        if (abort.aborted) return;
        throw kubeFailure(error, lang);
      } finally {
        stream.destroy();
      }
      const rest = splitter.flush();
      if (rest.length > 0) yield event({ type: 'lines', reset: false, lines: rest });
      yield event({ type: 'ended', reason: bytes >= POD_LOG_LIMIT_BYTES ? 'limit' : 'closed' });
      return;
    }
  });
