import type { CoreV1Event } from '@kubernetes/client-node';
import { type PodEvent, PodEventsInputSchema, PodEventsSchema } from '@mgpu/shared';
import { publicProcedure } from '../trpc/init.js';
import { kubeFailure } from './kube-failure.js';

/** client-node hands timestamps as Date (or, for a field it did not convert, a string). */
const timeOf = (value: Date | string | undefined): string | null =>
  value === undefined ? null : value instanceof Date ? value.toISOString() : String(value);

/** An Event as `kubectl describe pod` lists it; newer Events carry eventTime and series only. */
function readEvent(event: CoreV1Event): PodEvent {
  const first = timeOf(event.firstTimestamp) ?? timeOf(event.eventTime);
  const last = timeOf(event.series?.lastObservedTime) ?? timeOf(event.lastTimestamp) ?? first;
  return {
    type: event.type ?? 'Normal',
    reason: event.reason ?? '',
    message: event.message ?? '',
    count: event.series?.count ?? event.count ?? 1,
    firstTime: first,
    lastTime: last,
    source: event.source?.component ?? event.reportingComponent ?? null,
  };
}

/**
 * `pod.events` (spec §9): the pod's Events, newest first — what made it wait, pull, start or
 * fail. Read as the operator (their RBAC must let them read the pod, then its Events), so a
 * console that shows a namespace's pods is no way round `kubectl describe`'s permissions.
 */
export const podEvents = publicProcedure
  .input(PodEventsInputSchema)
  .output(PodEventsSchema)
  .query(async ({ ctx, input }) => {
    const { namespace, pod, lang } = input;
    try {
      const object = await ctx.cluster.podReads.read(namespace, pod);
      const events = await ctx.cluster.podReads.events(namespace, pod, object.metadata?.uid);
      // Kubernetes keeps an Event's times in whole seconds: those of one second keep the list's
      // order, which is the order they were made in (names are `<pod>.<nanoseconds in hex>`).
      const read = events.map((event, index) => ({ event: readEvent(event), index }));
      read.sort(
        (a, b) =>
          (b.event.lastTime ?? '').localeCompare(a.event.lastTime ?? '') || b.index - a.index,
      );
      return {
        namespace,
        pod,
        containers: (object.spec?.containers ?? []).map((container) => container.name),
        events: read.map(({ event }) => event),
      };
    } catch (error) {
      throw kubeFailure(error, lang);
    }
  });
