/**
 * The `--state-file`: the store's objects and resourceVersion counter as JSON, written
 * atomically (temp file, fsync, rename, fsync of the directory) with mode 0600, so a crash
 * mid-write never leaves a torn file.
 *
 * Durability: an answered write survives kill -9. Of the two ways (an fsynced append-only log
 * compacted now and then, or the whole snapshot written before answering) this is the second:
 * the API server awaits `commit()` before it answers a mutating request. Requests that arrive
 * while a write is on the disk share the next one (group commit), so a burst costs a couple of
 * snapshots, not one each. Chosen for its simplicity — one file format, no replay, nothing to
 * compact; its cost grows with the store (a JSON.stringify of everything per commit), which is
 * fine for a simulator's few thousand objects (bench/cluster-sim/state-file-latency.ts).
 * Changes nobody asked for (garbage collection, event expiry) still go on the debounce.
 */
import { chmod, open, readFile, rename, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { isRecord } from './kube-object.js';
import type { StoreSnapshot } from './object-store.js';

export async function loadStateFile(path: string): Promise<StoreSnapshot | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isRecord(error) && error.code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${path} is not a cluster state file: ${errorText(error)}`);
  }
  if (
    !isRecord(parsed) ||
    typeof parsed.resourceVersion !== 'string' ||
    !Array.isArray(parsed.objects)
  ) {
    throw new Error(`${path} is not a cluster state file`);
  }
  // One bad entry refuses the start: dropping it would lose it at the next write.
  parsed.objects.forEach((entry: unknown, index) => {
    const problem = entryProblem(entry);
    if (problem) throw new Error(`${path}: objects[${index}] ${problem}`);
  });
  // Files from before 0600 was the rule: the state holds Secrets.
  await chmod(path, 0o600);
  return parsed as unknown as StoreSnapshot;
}

/** Why a state-file entry is not an object the store can keep, or undefined when it is. */
function entryProblem(entry: unknown): string | undefined {
  if (!isRecord(entry))
    return `is ${entry === null ? 'null' : Array.isArray(entry) ? 'an array' : `a ${typeof entry}`}, not an object`;
  if (typeof entry.apiVersion !== 'string' || typeof entry.kind !== 'string')
    return 'has no apiVersion or kind';
  const metadata = entry.metadata;
  if (!isRecord(metadata) || typeof metadata.name !== 'string' || metadata.name === '')
    return `(${entry.kind}) has no metadata.name`;
  return undefined;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export async function writeStateFile(path: string, snapshot: StoreSnapshot): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  const handle = await open(temporary, 'w', 0o600);
  try {
    await handle.writeFile(JSON.stringify(snapshot));
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  // The rename itself is only durable once the directory is.
  const directory = await open(dirname(path), 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/** Coalesces bursts of changes into one write per `delayMs`; `flush` writes what is pending. */
export class StateFileWriter {
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;

  constructor(
    private readonly path: string,
    private readonly snapshot: () => StoreSnapshot,
    private readonly delayMs: number,
  ) {}

  schedule(): void {
    this.dirty = true;
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, this.delayMs);
  }

  /**
   * Resolves once every change made before the call is on the disk; rejects if that write
   * failed. What the API server awaits before it answers a write.
   */
  commit(): Promise<void> {
    if (!this.dirty) return this.writing;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const write = this.writing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      try {
        await writeStateFile(this.path, this.snapshot());
      } catch (error) {
        this.dirty = true;
        throw error;
      }
    });
    this.writing = write.catch((error: unknown) => {
      process.stderr.write(`cluster-sim: could not write ${this.path}: ${String(error)}\n`);
    });
    return write;
  }

  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.writing = this.writing
      .then(async () => {
        if (!this.dirty) return;
        this.dirty = false;
        await writeStateFile(this.path, this.snapshot());
      })
      .catch((error: unknown) => {
        process.stderr.write(`cluster-sim: could not write ${this.path}: ${String(error)}\n`);
      });
    return this.writing;
  }
}
