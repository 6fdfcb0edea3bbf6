import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { authorizationFor } from '../embedded.js';

const ROOT = fileURLToPath(new URL('../../../..', import.meta.url));

export interface SimProcess {
  /** The API's URL once the sim prints `ready`; rejects if it exits or stays silent first. */
  url: Promise<string>;
  exit: Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** SIGTERM to the launcher, as an operator's Ctrl-C or a service manager would send. */
  stop(): void;
  /** SIGKILL to the launcher and everything under it at once: a crash, no shutdown code runs. */
  killHard(): void;
}

/** The Authorization header for the sim that wrote `kubeconfig` (`--kubeconfig FILE`). */
export function authorizationFrom(kubeconfig: string): { authorization: string } {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfig);
  const token = config.getCurrentUser()?.token;
  if (!token) throw new Error(`no token in ${kubeconfig}`);
  return authorizationFor({ token });
}

/** The pids under `root` (from /proc, Linux). */
function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  for (let queue = [root]; queue.length > 0; ) {
    const pid = queue.shift() as number;
    for (const child of children.get(pid) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
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
  const exit = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (code) => resolve({ code, stdout, stderr })),
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
  return {
    url,
    exit,
    stop: () => child.kill('SIGTERM'),
    killHard: () => {
      // The sim itself first: it stops gracefully when it sees its launcher gone.
      for (const pid of descendantsOf(child.pid ?? 0).reverse()) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      child.kill('SIGKILL');
    },
  };
}
