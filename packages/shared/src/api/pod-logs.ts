import { z } from 'zod';
import { isDns1123Label } from '../kubernetes-names.js';
import {
  POD_LOG_ENDINGS,
  POD_LOG_TAIL_DEFAULT,
  POD_LOG_TAIL_MAX,
  POD_LOG_UNAVAILABLE,
} from '../pod-log.js';
import { LangSchema } from './building-blocks.js';
import { PodRefSchema } from './pod-events.js';

/**
 * `pod.logs` (spec §9, a subscription): the container's last `tailLines` lines, then each new
 * one, asked as the operator. A reconnect starts over with the tail (`reset`), so a browser's
 * buffer never holds a line twice.
 */
export const PodLogsInputSchema = PodRefSchema.extend({
  container: z.string().min(1).refine(isDns1123Label, 'A container name is a DNS label.'),
  tailLines: z.number().int().min(1).max(POD_LOG_TAIL_MAX).default(POD_LOG_TAIL_DEFAULT),
  lang: LangSchema.default('zh-CN'),
  lastEventId: z.string().nullish(),
});

/**
 * One event of the stream: lines (the first batch `reset`s the view), the log being unavailable
 * and why (the stream may go on: a container that starts later is followed then), or the end.
 */
export const PodLogEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('lines'), reset: z.boolean(), lines: z.array(z.string()) }),
  z.object({
    type: z.literal('unavailable'),
    reason: z.enum(POD_LOG_UNAVAILABLE),
    /** The API server's own (English) words, for whoever wants them. */
    detail: z.string(),
  }),
  z.object({ type: z.literal('ended'), reason: z.enum(POD_LOG_ENDINGS) }),
]);

export type PodLogsInput = z.input<typeof PodLogsInputSchema>;
export type PodLogEvent = z.infer<typeof PodLogEventSchema>;
