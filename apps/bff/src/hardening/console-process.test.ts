/**
 * The console as a process (issue 14), killed and stopped as an operator's machine would:
 * kill -9 in the middle of parallel creates on `--state-file`, then a restart and the form's
 * retries; and SIGTERM while it carries load it accepted. Embedded cluster only: the state file
 * is the embedded cluster's. Bounded waits only; nothing here asserts how fast anything is.
 */

import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkloadRequestInput, WorkloadSummary } from '@mgpu/shared';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, seedRequest } from '../test-support/bff-harness.js';
import { type ConsoleProcess, startConsoleProcess } from '../test-support/console-process.js';
import { type Answer, exchange, mutation, queryUrl, rawSubscriber } from './hardening-support.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mgpu-console-process-'));
});
afterAll(async () => rm(dir, { recursive: true, force: true, maxRetries: 5 }));

/** A console that a failed assertion left running is not left behind. */
const running: ConsoleProcess[] = [];
afterAll(async () => {
  for (const leftover of running) {
    leftover.signal('SIGKILL');
    await leftover.exit;
  }
});
const start = (args: string[]) => {
  const started = startConsoleProcess(args);
  running.push(started);
  return started;
};

const create = (url: string, request: WorkloadRequestInput, clientRequestId: string) =>
  mutation(url, 'workload.create', JSON.stringify({ request, clientRequestId, lang: 'en' }));

interface Created {
  name: string;
  uid: string;
  created: boolean;
}
const createdOf = (answer: Answer): Created =>
  (JSON.parse(answer.text) as { result: { data: Created } }).result.data;

const list = async (url: string): Promise<WorkloadSummary[]> => {
  const answer = await exchange(queryUrl(url, 'workload.list', '{}'));
  expect(answer.status, answer.text.slice(0, 300)).toBe(200);
  return (JSON.parse(answer.text) as { result: { data: WorkloadSummary[] } }).result.data;
};

describe.skipIf(onRealTier())('the console process', { timeout: 240_000 }, () => {
  it('keeps every answered create across kill -9 with --state-file, and a retry finds it', async () => {
    const stateFile = join(dir, 'state.json');
    const args = ['--embedded', '--state-file', stateFile];
    const first = start(args);
    const url = await first.url;

    // 30 parallel submissions of the form, each with its own client request id; the kill comes
    // as the eighth answer arrives, with the others still on their way.
    const submissions = Array.from({ length: 30 }, (_, index) => ({
      name: `crash-${index}`,
      clientRequestId: `submission-crash-${index}`,
    }));
    const answered = new Map<string, Created>();
    let killed = false;
    await Promise.all(
      submissions.map(async ({ name, clientRequestId }) => {
        try {
          const answer = await create(url, seedRequest(name), clientRequestId);
          if (killed || answer.status !== 200) return;
          answered.set(name, createdOf(answer));
          if (answered.size === 8) {
            killed = true;
            first.signal('SIGKILL');
          }
        } catch {
          // The connection died with the process.
        }
      }),
    );
    expect(answered.size).toBe(8);
    expect((await first.exit).signal).toBe('SIGKILL');

    // Nothing half-written, and readable by the console's user alone.
    const text = await readFile(stateFile, 'utf8');
    expect(() => JSON.parse(text)).not.toThrow();
    expect((await stat(stateFile)).mode & 0o777).toBe(0o600);

    const again = start(args);
    const restarted = await again.url;
    // The list is the informers': bounded wait for the first one, then every answered create.
    const listed = await eventually(async () => {
      const items = await list(restarted);
      return [...answered.keys()].every((name) => items.some((item) => item.name === name))
        ? items
        : undefined;
    }, 'every create answered before the kill in workload.list').catch(async () => list(restarted));
    const missing = [...answered.keys()].filter((name) => !listed.some((i) => i.name === name));
    expect(missing).toEqual([]);
    for (const [name, made] of answered)
      expect(listed.find((item) => item.name === name)?.uid).toBe(made.uid);

    // The form retries what it sent (the same clientRequestId): the first workload, not a second.
    for (const { name, clientRequestId } of submissions.filter((s) => answered.has(s.name))) {
      const retry = await create(restarted, seedRequest(name), clientRequestId);
      expect(retry.status, retry.text.slice(0, 300)).toBe(200);
      expect(createdOf(retry)).toMatchObject({ created: false, uid: answered.get(name)?.uid });
    }
    // A create the kill cut off may or may not have been made; its retries make at most one.
    for (const { name, clientRequestId } of submissions.filter((s) => !answered.has(s.name))) {
      const retry = await create(restarted, seedRequest(name), clientRequestId);
      expect(retry.status, retry.text.slice(0, 300)).toBe(200);
      const second = await create(restarted, seedRequest(name), clientRequestId);
      expect(createdOf(second)).toMatchObject({ created: false, uid: createdOf(retry).uid });
    }
    const after = await list(restarted);
    for (const { name } of submissions)
      expect(after.filter((item) => item.name === name).length, name).toBe(1);

    // The same id with another name would make a second workload: refused instead.
    const refused = await create(restarted, seedRequest('crash-other'), 'submission-crash-0');
    expect(refused.status).toBe(409);
    expect(refused.text).toContain('client-request-reused');

    again.signal('SIGTERM');
    await again.exit;
  });

  it('stops on SIGTERM while it carries load it accepted', async () => {
    const consoleProcess = start(['--embedded']);
    const url = await consoleProcess.url;

    // The largest replica count the console accepts for a CPU-only Deployment: its controllers
    // create those pods a burst at a time while the rest goes on.
    const huge = (replicas: number): WorkloadRequestInput => ({
      name: 'huge',
      namespace: 'default',
      replicas,
      containers: [{ name: 'c', image: 'nginx:1.27' }],
    });
    let accepted: number | undefined;
    for (const replicas of [2_147_483_647, 1_000_000, 10_000, 1_000]) {
      const preview = await exchange(
        queryUrl(url, 'workload.preview', JSON.stringify({ request: huge(replicas), lang: 'en' })),
      );
      if (
        preview.status === 200 &&
        (JSON.parse(preview.text) as { result: { data: { valid: boolean } } }).result.data.valid
      ) {
        accepted = replicas;
        break;
      }
    }
    expect(accepted).toBeDefined();
    const made = await create(url, huge(accepted ?? 0), 'submission-huge');
    expect(made.status, made.text.slice(0, 300)).toBe(200);

    // A few hundred dashboards subscribed to the allocations.
    const subscribers: net.Socket[] = [];
    for (let wave = 0; wave < 3; wave++)
      subscribers.push(
        ...(await Promise.all(
          Array.from({ length: 100 }, () =>
            rawSubscriber(url, `/trpc/allocations.watch?input=${encodeURIComponent('{}')}`),
          ),
        )),
      );

    // Operators previewing and creating all the while; their answers are theirs to judge.
    let loading = true;
    let served = 0;
    const operators = Array.from({ length: 12 }, async (_, operator) => {
      for (let round = 0; loading; round++) {
        const name = `load-${operator}-${round}`;
        try {
          if (round % 2 === 0)
            await exchange(
              queryUrl(
                url,
                'workload.preview',
                JSON.stringify({ request: seedRequest(name), lang: 'en' }),
              ),
            );
          else await create(url, seedRequest(name, { replicas: 0 }), `submission-${name}`);
          served++;
        } catch {
          return; // the console stopped
        }
      }
    });

    // Under all of it the console keeps answering its health check.
    for (let check = 0; check < 10; check++) {
      expect((await exchange(`${url}/healthz`)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    expect(served).toBeGreaterThan(0);

    consoleProcess.signal('SIGTERM');
    // Generous: a bound against a console that never stops, not a measurement.
    let bound: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([
      consoleProcess.exit,
      new Promise<'still running'>((resolve) => {
        bound = setTimeout(() => resolve('still running'), 30_000);
      }),
    ]);
    clearTimeout(bound);
    loading = false;
    for (const socket of subscribers) socket.destroy();
    await Promise.all(operators);
    expect(stopped, consoleProcess.output().slice(-2000)).not.toBe('still running');
    // 0, or 1 after main.ts's own grace ran out (it logs that it gave up waiting).
    const { code } = stopped as { code: number | null };
    if (code !== 0) expect(consoleProcess.output()).toContain('stop took longer than 5 s, exiting');
    expect([0, 1]).toContain(code);
  });
});
