import { readFileSync } from 'node:fs';

/** The parent pid of a process, from /proc (Linux); undefined elsewhere or when it is gone. */
function parentOf(pid: number): number | undefined {
  try {
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis don't.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : undefined;
  } catch {
    return undefined;
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * Calls `onGone` once any launcher above this process (sh, pnpm, tsx: up to four ancestors) has
 * exited. pnpm 12 dies on SIGTERM without passing it on, as does a SIGKILLed test runner, which
 * would leave a server (`pnpm sim`, `pnpm cluster:real`) running as an orphan for nobody.
 */
export function whenLauncherExits(onGone: () => void): void {
  const ancestors: number[] = [];
  for (let pid = process.ppid; pid > 1 && ancestors.length < 4; pid = parentOf(pid) ?? 0)
    ancestors.push(pid);
  const timer = setInterval(() => {
    if (!ancestors.some((pid) => !alive(pid))) return;
    clearInterval(timer);
    onGone();
  }, 500);
  timer.unref();
}
