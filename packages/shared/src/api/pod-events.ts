import { z } from 'zod';
import { isDns1123Label, isDns1123Subdomain } from '../kubernetes-names.js';
import { LangSchema } from './building-blocks.js';

/** A pod by namespace and name, in the shapes Kubernetes allows. */
export const PodRefSchema = z.object({
  namespace: z
    .string()
    .min(1)
    .refine(isDns1123Label, 'A namespace is a DNS label (a-z, 0-9, -; at most 63).'),
  pod: z
    .string()
    .min(1)
    .refine(isDns1123Subdomain, 'A pod name is a DNS subdomain (a-z, 0-9, -, .).'),
});

/** `pod.events` (spec §9): asked as the operator, whose RBAC must let them read the pod. */
export const PodEventsInputSchema = PodRefSchema.extend({
  /** The language of a refusal's message (the events are the cluster's own English). */
  lang: LangSchema.default('zh-CN'),
});

/** One Kubernetes Event about the pod, as `kubectl describe pod` lists it. */
export const PodEventSchema = z.object({
  /** `Normal` or `Warning`. */
  type: z.string(),
  reason: z.string(),
  message: z.string(),
  /** How many times it happened (repeats are one Event whose count grows). */
  count: z.number().int(),
  firstTime: z.string().nullable(),
  lastTime: z.string().nullable(),
  /** The component that reported it (`mgpu-scheduler`, `kubelet`, …). */
  source: z.string().nullable(),
});

/** The pod's Events, newest first. */
export const PodEventsSchema = z.object({
  namespace: z.string(),
  pod: z.string(),
  /** The pod's containers, in its spec's order: the ones whose log `pod.logs` can show. */
  containers: z.array(z.string()),
  events: z.array(PodEventSchema),
});

export type PodEvent = z.infer<typeof PodEventSchema>;
export type PodEvents = z.infer<typeof PodEventsSchema>;
