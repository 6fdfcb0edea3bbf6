/**
 * What each simulated container wrote: the node agents' side of `kubectl logs`. A kubelet keeps
 * a container's log on its node and kube-apiserver proxies `pods/<name>/log` to it; here the
 * node agents append to this store and the embedded API server reads it (embedded.ts wires the
 * two), so the log API behaves as kube-apiserver's does with no kubelet process.
 */

/** One line as a container runtime keeps it: when it was written, and the text. */
export interface ContainerLogLine {
  time: string;
  text: string;
}

/** Lines kept per container; older ones are dropped, as a kubelet rotates its log files. */
const MAX_LINES_PER_CONTAINER = 10_000;

/** A container's log, by pod uid: a pod deleted and made again under its name starts empty. */
interface ContainerLog {
  podUid: string;
  lines: ContainerLogLine[];
  listeners: Set<(line: ContainerLogLine | 'closed') => void>;
}

const keyOf = (namespace: string, pod: string, container: string) =>
  `${namespace}/${pod}/${container}`;

export class ContainerLogStore {
  private readonly logs = new Map<string, ContainerLog>();

  /** Starts a container's log (again, empty, when the pod is a new one of the same name). */
  open(namespace: string, pod: string, podUid: string, container: string): void {
    const key = keyOf(namespace, pod, container);
    const existing = this.logs.get(key);
    if (existing?.podUid === podUid) return;
    if (existing) this.closeLog(key, existing);
    this.logs.set(key, { podUid, lines: [], listeners: new Set() });
  }

  /** Appends a line the container wrote; followers get it at once. */
  write(namespace: string, pod: string, container: string, text: string, at = new Date()): void {
    const log = this.logs.get(keyOf(namespace, pod, container));
    if (!log) return;
    const line = { time: at.toISOString(), text };
    log.lines.push(line);
    if (log.lines.length > MAX_LINES_PER_CONTAINER) log.lines.shift();
    for (const listener of log.listeners) listener(line);
  }

  /** The pod's containers stopped: followers' streams end, the lines go. */
  close(namespace: string, pod: string): void {
    const prefix = `${namespace}/${pod}/`;
    for (const [key, log] of this.logs) if (key.startsWith(prefix)) this.closeLog(key, log);
  }

  /** The container's lines so far; undefined when it has not started (no log yet). */
  lines(
    namespace: string,
    pod: string,
    container: string,
  ): readonly ContainerLogLine[] | undefined {
    return this.logs.get(keyOf(namespace, pod, container))?.lines;
  }

  /**
   * Calls `listener` with each new line, then `'closed'` when the container's log ends; the
   * returned function stops it (a follower that went away).
   */
  follow(
    namespace: string,
    pod: string,
    container: string,
    listener: (line: ContainerLogLine | 'closed') => void,
  ): () => void {
    const log = this.logs.get(keyOf(namespace, pod, container));
    if (!log) {
      listener('closed');
      return () => undefined;
    }
    log.listeners.add(listener);
    return () => log.listeners.delete(listener);
  }

  /**
   * Ends every stream following the container's log while the container runs on (its lines
   * stay): what a client sees when its connection to the API server, or the API server's to the
   * kubelet, drops.
   */
  dropFollowers(namespace: string, pod: string, container: string): void {
    const log = this.logs.get(keyOf(namespace, pod, container));
    if (!log) return;
    for (const listener of log.listeners) listener('closed');
    log.listeners.clear();
  }

  /** How many streams follow the container's log now (a client that left is no longer one). */
  followers(namespace: string, pod: string, container: string): number {
    return this.logs.get(keyOf(namespace, pod, container))?.listeners.size ?? 0;
  }

  private closeLog(key: string, log: ContainerLog): void {
    this.logs.delete(key);
    for (const listener of log.listeners) listener('closed');
    log.listeners.clear();
  }
}
