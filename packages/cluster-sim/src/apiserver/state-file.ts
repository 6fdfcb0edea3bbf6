/**
 * The `--state-file`: the store's objects and resourceVersion counter as JSON, written
 * atomically (temp file, fsync, rename) so a crash mid-write never leaves a torn file.
 */
import { open, readFile, rename, unlink } from 'node:fs/promises';
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
  const parsed: unknown = JSON.parse(text);
  if (
    !isRecord(parsed) ||
    typeof parsed.resourceVersion !== 'string' ||
    !Array.isArray(parsed.objects)
  ) {
    throw new Error(`${path} is not a cluster state file`);
  }
  return parsed as unknown as StoreSnapshot;
}

export async function writeStateFile(path: string, snapshot: StoreSnapshot): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  const handle = await open(temporary, 'w');
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
