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
 * Bytes one log stream may carry, tail and follow together (the log API's `limitBytes`): 5,000
 * lines of a few hundred bytes fit; a container that writes without end ends its stream here.
 */
export const POD_LOG_LIMIT_BYTES = 2 * 1024 * 1024;
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
 * a node without a usable address; "error dialing backend" through an egress proxy.
 */
const KUBELET_UNREACHABLE =
  /dial tcp|no preferred addresses found|error dialing backend|\/containerLogs\//i;

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
