import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

export interface SimProcess {
  /** The API's URL once the sim prints `ready`; rejects if it exits or stays silent first. */
  url: Promise<string>;
  exit: Promise<{ code: number | null; stderr: string }>;
  /** SIGTERM to the launcher, as an operator's Ctrl-C or a service manager would send. */
  stop(): void;
}

/** `pnpm --silent sim ARGS` from the workspace root, as an operator starts it. */
export function startSimProcess(args: string[], readyTimeoutMs = 60_000): SimProcess {
  const child = spawn('pnpm', ['--silent', 'sim', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stderr })),
  );
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`sim did not print ready: ${stdout}${stderr}`)),
      readyTimeoutMs,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const ready = /ready at (\S+)/.exec(stdout);
      if (ready?.[1]) {
        clearTimeout(timer);
        resolve(ready[1]);
      }
    });
    void exit.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`sim exited with ${code}: ${stdout}${stderr}`));
    });
  });
  // A sim refused at start never has a URL: only a caller that waits for one hears of it.
  url.catch(() => undefined);
  return { url, exit, stop: () => child.kill('SIGTERM') };
}
