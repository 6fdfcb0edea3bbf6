import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** One control-plane process, in its own process group so a stop reaches all it started. */
export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  logFile: string;
  exited: Promise<number | null>;
}

const running = new Set<ManagedProcess>();
let exitHookInstalled = false;

/** Last lines of a component's log, for the error that says why it died. */
export function logTail(file: string, lines = 25): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function killGroup(process_: ManagedProcess, signal: NodeJS.Signals): void {
  const pid = process_.child.pid;
  if (pid === undefined) return;
  try {
    // Negative pid: the whole group, so nothing the component forked outlives it.
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/**
 * Starts `binary` detached in a new process group with stdout and stderr in `logFile`. A
 * synchronous 'exit' hook SIGKILLs every group still running, so even a crash of the launcher
 * leaves nothing behind (only SIGKILL of the launcher itself can't be caught).
 */
export function startProcess(
  name: string,
  binary: string,
  args: string[],
  logFile: string,
): ManagedProcess {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const p of running) killGroup(p, 'SIGKILL');
    });
  }
  const fd = openSync(logFile, 'a');
  const child = spawn(binary, args, { detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const managed: ManagedProcess = {
    name,
    child,
    logFile,
    exited: new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        running.delete(managed);
        resolve(code ?? (signal ? 128 : null));
      });
      child.once('error', () => {
        running.delete(managed);
        resolve(127);
      });
    }),
  };
  running.add(managed);
  return managed;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the group leader is gone. */
export async function stopProcess(managed: ManagedProcess, graceMs = 5000): Promise<void> {
  if (!running.has(managed)) return;
  killGroup(managed, 'SIGTERM');
  const done = await Promise.race([
    managed.exited.then(() => true),
    delay(graceMs).then(() => false),
  ]);
  if (!done) {
    killGroup(managed, 'SIGKILL');
    await managed.exited;
  }
  // The leader may be gone while a child it forked lingers in the group.
  killGroup(managed, 'SIGKILL');
}

/** A port free on 127.0.0.1 right now (the kernel picks it; the race is tiny on loopback). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}
