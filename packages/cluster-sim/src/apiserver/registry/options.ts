/**
 * The options and results of the Registry's operations, independent of HTTP: request-options.ts
 * reads a request's query and body into them; in-process callers build them directly.
 */
import type { KubeObject } from '../kube-object.js';
import type { WatchEventType } from '../object-store.js';
import type { StatusObject } from '../status.js';

export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export interface WriteOptions {
  dryRun: boolean;
  fieldManager?: string;
  /** What to do about fields the kind does not have (absent: Ignore, for in-process callers). */
  fieldValidation?: FieldValidation;
  /** Collects `unknown field "…"` warnings under fieldValidation=Warn. */
  warnings?: string[];
}

export interface ListOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continueToken?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export type PropagationPolicy = 'Background' | 'Foreground' | 'Orphan';

export interface DeleteOptions extends WriteOptions {
  propagationPolicy?: PropagationPolicy;
  /** Requested grace period; absent means the kind's default (pods: terminationGracePeriodSeconds). */
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
  continueToken?: string;
  remainingItemCount?: number;
}

export interface WatchOptions {
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
}

export interface WatchEvent {
  type: WatchEventType | 'BOOKMARK' | 'ERROR';
  object: KubeObject | StatusObject;
}

export type WatchStart = { expired: StatusObject } | { stop(): void };

/** Which part of an object a PUT or PATCH writes: the object, or its status subresource. */
export type WriteTarget = 'main' | 'status';
