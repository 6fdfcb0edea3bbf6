import {
  type CheckResult,
  checkRequest,
  type Lang,
  type WorkloadRequest,
  type WorkloadRequestInput,
} from '@mgpu/shared';
import { createContext, useContext, useSyncExternalStore } from 'react';
import {
  type EngagedFields,
  errorShown,
  errorsByPath,
  type FieldError,
  isFieldPath,
  mergeErrors,
  requestOfDraft,
} from './draft.js';

/** What the form, the per-card panel, the YAML and the submit button read of the draft. */
export interface DraftSnapshot {
  /** The draft as the rules and the BFF take it, or undefined while it does not parse. */
  readonly request: WorkloadRequest | undefined;
  /** The request's identity ('' while there is none). */
  readonly requestJson: string;
  /** The browser's own check of the request: its errors and what each card gets. */
  readonly local: CheckResult | undefined;
  /** Every error shown: the local check's, the preview's cluster-aware ones, the server's. */
  readonly errors: readonly FieldError[];
  /** The errors by request path. A path whose errors did not change keeps its array. */
  readonly errorsByPath: ReadonlyMap<string, readonly FieldError[]>;
  /** Errors on paths without an input, shown above the submit button. */
  readonly formErrors: readonly FieldError[];
  /** The request once typing paused for the settle delay: what the cluster is asked about. */
  readonly settledJson: string;
  /** The fields whose errors are shown (`errorsShown`): quiet until touched. */
  readonly engaged: EngagedFields;
}

interface RemoteErrors {
  /** The request they are about: they say nothing once the draft moved on. */
  forJson: string;
  errors: readonly FieldError[];
}

const NO_ERRORS: readonly FieldError[] = [];

const sameError = (a: FieldError, b: FieldError) =>
  a.path === b.path && a.rule === b.rule && a.message === b.message && a.fix === b.fix;

/** `next`, or `previous` when it shows the same: a consumer compares by identity. */
const keepIfSame = (previous: readonly FieldError[], next: readonly FieldError[]) =>
  previous.length === next.length &&
  previous.every((error, i) => {
    const other = next[i];
    return other !== undefined && sameError(error, other);
  })
    ? previous
    : next;

/**
 * The form's one draft and everything derived from it, outside React. React Hook Form owns the
 * values; on every change this store parses and checks the request once and each part of the page
 * subscribes to the slice it shows. A keystroke then re-renders the field typed into, the panel's
 * group for that container and whatever else it really changed, not the whole form.
 */
export class DraftStore {
  readonly #listeners = new Set<() => void>();
  readonly #settleDelayMs: number;
  #lang: Lang;
  #preview: RemoteErrors | undefined;
  #server: RemoteErrors | undefined;
  #settleTimer: ReturnType<typeof setTimeout> | undefined;
  #snapshot: DraftSnapshot;
  #engaged: EngagedFields = new Set<string>();

  constructor(draft: WorkloadRequestInput, lang: Lang, settleDelayMs: number) {
    this.#lang = lang;
    this.#settleDelayMs = settleDelayMs;
    const request = requestOfDraft(draft);
    const requestJson = request ? JSON.stringify(request) : '';
    this.#snapshot = this.#derive({
      request,
      requestJson,
      local: request ? checkRequest(request, { lang }) : undefined,
      settledJson: requestJson,
    });
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  readonly getSnapshot = (): DraftSnapshot => this.#snapshot;

  /** A new draft from the form. One that reads as the same request changes nothing. */
  setDraft(draft: WorkloadRequestInput): void {
    const request = requestOfDraft(draft);
    const requestJson = request ? JSON.stringify(request) : '';
    const current = this.#snapshot;
    if (requestJson === current.requestJson) return;
    this.#publish({
      request,
      requestJson,
      local: request ? checkRequest(request, { lang: this.#lang }) : undefined,
      settledJson: current.settledJson,
    });
    clearTimeout(this.#settleTimer);
    this.#settleTimer = setTimeout(() => {
      this.#publish({ ...this.#snapshot, settledJson: this.#snapshot.requestJson });
    }, this.#settleDelayMs);
  }

  /** The rules' messages follow the operator's language. */
  setLang(lang: Lang): void {
    if (lang === this.#lang) return;
    this.#lang = lang;
    const { request } = this.#snapshot;
    this.#publish({
      ...this.#snapshot,
      local: request ? checkRequest(request, { lang }) : undefined,
    });
  }

  /** The cluster-aware rules' verdict on a settled request (from `workload.preview`). */
  setPreviewErrors(preview: RemoteErrors | undefined): void {
    this.#preview = preview;
    this.#publish(this.#snapshot);
  }

  /** What the server refused a submission of this request for. */
  setServerErrors(server: RemoteErrors | undefined): void {
    this.#server = server;
    this.#publish(this.#snapshot);
  }

  /**
   * The operator changed the field at `path` (react-hook-form's watch names it), or replaced the
   * whole draft (no path: the YAML tab) or submitted it: its errors show from now on.
   */
  engage(path: string | undefined): void {
    const engaged = this.#engaged;
    if (engaged === 'all' || (path !== undefined && engaged.has(path))) return;
    this.#engaged = path === undefined ? 'all' : new Set([...engaged, path]);
    this.#publish(this.#snapshot);
  }

  dispose(): void {
    clearTimeout(this.#settleTimer);
  }

  #publish(parts: Pick<DraftSnapshot, 'request' | 'requestJson' | 'local' | 'settledJson'>): void {
    this.#snapshot = this.#derive(parts, this.#snapshot);
    for (const listener of this.#listeners) listener();
  }

  #derive(
    {
      request,
      requestJson,
      local,
      settledJson,
    }: Pick<DraftSnapshot, 'request' | 'requestJson' | 'local' | 'settledJson'>,
    previous?: DraftSnapshot,
  ): DraftSnapshot {
    const current = (remote: RemoteErrors | undefined) =>
      remote?.forJson === requestJson ? remote.errors : undefined;
    const merged = local
      ? mergeErrors(local, current(this.#preview), current(this.#server) ?? [])
      : [];
    const errors = previous ? keepIfSame(previous.errors, merged) : merged;
    const engaged = this.#engaged;
    if (previous && errors === previous.errors)
      return { ...previous, request, requestJson, local, settledJson, engaged };
    const byPath: Map<string, readonly FieldError[]> = errorsByPath(errors);
    if (previous)
      for (const [path, list] of byPath)
        byPath.set(path, keepIfSame(previous.errorsByPath.get(path) ?? NO_ERRORS, list));
    const formErrors = errors.filter((error) => !isFieldPath(error.path));
    return {
      request,
      requestJson,
      local,
      errors,
      errorsByPath: byPath,
      formErrors: previous ? keepIfSame(previous.formErrors, formErrors) : formErrors,
      settledJson,
      engaged,
    };
  }
}

export const DraftStoreContext = createContext<DraftStore | null>(null);

function useDraftStore(): DraftStore {
  const store = useContext(DraftStoreContext);
  if (!store) throw new Error('useDraft outside the creation form');
  return store;
}

/**
 * One slice of the draft; the component re-renders only when it changes (by identity). Select
 * strings, numbers or the snapshot's own objects, never a fresh object.
 */
export function useDraft<T>(select: (snapshot: DraftSnapshot) => T): T {
  const store = useDraftStore();
  const read = () => select(store.getSnapshot());
  return useSyncExternalStore(store.subscribe, read, read);
}

/**
 * The errors of one field (the same array while they do not change), once the operator touched
 * it or a field one of them would fix (`errorShown`); the submit row still counts them all.
 */
export function useFieldErrors(path: string): readonly FieldError[] {
  return useDraft((snapshot) => {
    const errors = snapshot.errorsByPath.get(path);
    if (errors === undefined) return NO_ERRORS;
    // The field's whole list or none, so the selection keeps its identity between renders.
    return errors.some((error) => errorShown(error, snapshot.engaged)) ? errors : NO_ERRORS;
  });
}
