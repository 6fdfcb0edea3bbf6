import type { KubeStatus } from './kube-failure.js';

/**
 * A pod's container log as the console shows it (spec §9 `pod.logs`): how much is asked, how a
 * byte stream becomes lines, and what a log call that could not be served means. The BFF, the
 * web app and the embedded cluster read these once.
 */

/** Lines of the tail a log view starts with when the operator asks for no number. */
export const POD_LOG_TAIL_DEFAULT = 500;
/** The most lines of tail one may ask for: a browser's buffer holds this many, no more. */
export const POD_LOG_TAIL_MAX = 5_000;
/**
 * Bytes of the tail a log view starts with (the first log call's `limitBytes`): 5,000 lines of
 * a few hundred bytes fit; longer ones are cut here, and the view follows on from the newest.
 */
export const POD_LOG_TAIL_LIMIT_BYTES = 2 * 1024 * 1024;
/**
 * Bytes followed after the tail in one stream (counted by the BFF, over every reopened call): a
 * container that writes without end ends its stream here ("limit"), the operator may open it
 * again.
 */
export const POD_LOG_FOLLOW_LIMIT_BYTES = 4 * 1024 * 1024;
/**
 * Times one stream reopens a follow the API server ended while the container still runs (a
 * dropped connection to the API server or the kubelet); past it the stream says "closed".
 */
export const POD_LOG_MAX_RESUMES = 5;
/** Characters of one line kept; the rest is cut (one blob must not fill the buffers). */
export const POD_LOG_MAX_LINE = 8 * 1024;

/** Why a pod's log cannot be shown, without it being an error the operator has to decode. */
export const POD_LOG_UNAVAILABLE = [
  /** The container has not started (no node yet, image pulling): its log may come later. */
  'not-started',
  /** The API server could not reach the node's kubelet (a control plane without kubelets). */
  'no-kubelet',
  /** The pod is gone. */
  'pod-gone',
] as const;
export type PodLogUnavailable = (typeof POD_LOG_UNAVAILABLE)[number];

/** Why a log stream ended: the byte bound was reached, or the container's log closed. */
export const POD_LOG_ENDINGS = ['limit', 'closed'] as const;
export type PodLogEnding = (typeof POD_LOG_ENDINGS)[number];

/**
 * kube-apiserver's words when it could not reach the node's kubelet (a 500 quoting its own
 * transport error): `Get "https://<node>:10250/containerLogs/…": dial tcp: lookup <node>: no
 * such host` on the real tier, where nodes have no kubelet; "no preferred addresses found" for
 * a node without a usable address; "error dialing backend" through an egress proxy. The
 * embedded cluster without node agents says "no kubelet answers for node <node>" (a 500 too).
 */
const KUBELET_UNREACHABLE =
  /dial tcp|no preferred addresses found|error dialing backend|\/containerLogs\/|no kubelet answers/i;

/**
 * What a refused log call means. kube-apiserver proxies the call to the node's kubelet: when it
 * cannot reach one it answers 5xx quoting the dial error; a container that has not started is a
 * 400 ("waiting to start") and a pod with no node yet a 204 without a body. Anything else (403,
 * an unknown container, an API server failing for its own reasons) is an error the operator sees
 * with its message, not an unavailable log: undefined.
 */
export function podLogUnavailableOf(status: KubeStatus): PodLogUnavailable | undefined {
  // kube-apiserver answers a pod no node holds yet with 204 and no log at all.
  if (status.code === 204) return 'not-started';
  if (status.code === 404) return 'pod-gone';
  if (status.code >= 500 && KUBELET_UNREACHABLE.test(status.message)) return 'no-kubelet';
  if (
    status.code === 400 &&
    /waiting to start|does not have a host assigned|ContainerCreating|PodInitializing/i.test(
      status.message,
    )
  )
    return 'not-started';
  return undefined;
}

/**
 * A log's bytes (as text) into whole lines: a line split across two reads is joined; one longer
 * than `POD_LOG_MAX_LINE` is cut there, so what waits for its end stays bounded.
 */
export class LogLineSplitter {
  private partial = '';

  push(text: string): string[] {
    const parts = (this.partial + text).split('\n');
    this.partial = parts.pop() ?? '';
    if (this.partial.length > POD_LOG_MAX_LINE) {
      parts.push(this.partial.slice(0, POD_LOG_MAX_LINE));
      this.partial = '';
    }
    return parts.map((line) =>
      line.length > POD_LOG_MAX_LINE ? line.slice(0, POD_LOG_MAX_LINE) : line,
    );
  }

  /** The last line when the log ends without a newline. */
  flush(): string[] {
    const rest = this.partial;
    this.partial = '';
    return rest === '' ? [] : [rest];
  }
}

/** The newest `max` lines of `buffer` then `lines`: a follow view's bounded buffer. */
export function appendLogLines(
  buffer: readonly string[],
  lines: readonly string[],
  max: number = POD_LOG_TAIL_MAX,
): string[] {
  const joined = [...buffer, ...lines];
  return joined.length <= max ? joined : joined.slice(-max);
}

/**
 * The time a timestamped line (`timestamps=true`: RFC 3339 in UTC, a space, the text) starts
 * with, its fraction padded to nanoseconds so two times compare as text; undefined without one.
 */
export function logLineTime(line: string): string | undefined {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z /.exec(line);
  return match ? `${match[1]}.${(match[2] ?? '').padEnd(9, '0')}Z` : undefined;
}

/**
 * Where a followed log is, so a call reopened with `sinceTime` (whole seconds, as kube-apiserver
 * passes it on) continues it: the lines it sends again — older than the last one forwarded, or
 * those of that same time already forwarded — are dropped.
 */
export class LogResumeCursor {
  private last: string | undefined;
  private sameTime = 0;
  private skip = 0;
  private resuming = false;

  /** `sinceTime` for the reopened call (the last line's second); undefined before any line. */
  sinceTime(): string | undefined {
    return this.last === undefined ? undefined : `${this.last.slice(0, 19)}Z`;
  }

  /** A reopened call starts: what it sends first may have been forwarded already. */
  resume(): void {
    this.resuming = this.last !== undefined;
    this.skip = this.sameTime;
  }

  /** The lines of `lines` not forwarded yet, each then counted as forwarded. */
  fresh(lines: readonly string[]): string[] {
    const kept: string[] = [];
    for (const line of lines) {
      const time = logLineTime(line);
      if (this.resuming && time !== undefined && this.last !== undefined) {
        if (time < this.last) continue;
        if (time === this.last && this.skip > 0) {
          this.skip -= 1;
          continue;
        }
        this.resuming = false;
      }
      kept.push(line);
      if (time === undefined) continue;
      if (time === this.last) this.sameTime += 1;
      else {
        this.last = time;
        this.sameTime = 1;
      }
    }
    return kept;
  }
}
