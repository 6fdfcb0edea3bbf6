/**
 * The console as an operator runs it: the built `dist/main.js` (turbo's `test` builds it first)
 * in a process of its own, so a test can SIGKILL or SIGTERM it and start it again. Port 0: the
 * URL is read from its "console ready at …" log line.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface ConsoleProcess {
  /** The console's URL once it logs that it is ready; rejects if it exits first. */
  url: Promise<string>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Its stdout and stderr so far (JSON log lines). */
  output(): string;
  /** SIGKILL (a crash: no shutdown code runs) or SIGTERM (a service manager's stop). */
  signal(signal: 'SIGKILL' | 'SIGTERM'): void;
}

export function startConsoleProcess(
  args: readonly string[],
  readyBoundMs = 120_000,
): ConsoleProcess {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build the BFF first (pnpm build)`);
  const child = spawn(process.execPath, [MAIN, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    // Info: the ready line is an info line.
    env: { ...process.env, LOG_LEVEL: 'info' },
  });
  let output = '';
  // Read always, so a full pipe never blocks the console's logging.
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const url = new Promise<string>((resolve, reject) => {
    const bound = setTimeout(
      () => reject(new Error(`the console did not log "ready": ${output.slice(-2000)}`)),
      readyBoundMs,
    );
    const onData = () => {
      const ready = /console ready at (http:\/\/[^\s"]+)/.exec(output);
      if (!ready?.[1]) return;
      clearTimeout(bound);
      child.stdout.off('data', onData);
      resolve(ready[1]);
    };
    child.stdout.on('data', onData);
    void exit.then(({ code, signal }) => {
      clearTimeout(bound);
      reject(new Error(`the console exited (${code ?? signal}): ${output.slice(-2000)}`));
    });
  });
  // A console that never got ready is only news to a caller that waits for its URL.
  url.catch(() => undefined);
  return {
    url,
    exit,
    output: () => output,
    signal: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}
