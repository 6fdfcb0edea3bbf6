/**
 * `--state-file` durability: what the sim answered survives kill -9 (see
 * apiserver/state-file.ts). Sim-only: it kills the process an operator started.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizationFrom, startSimProcess } from './test-support/sim-process.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mgpu-state-crash-'));
});
// The sim outlives its launcher by up to half a second and writes its state file as it stops:
// retry while its last temp file comes and goes.
afterAll(async () => rm(dir, { recursive: true, force: true, maxRetries: 5 }));

// Nobody serves this scheduler: the pods stay as created.
const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', labels: { test: 'state-crash' } },
  spec: { schedulerName: 'nobody', containers: [{ name: 'c', image: 'busybox' }] },
});

let headers = { authorization: '' };

async function create(url: string, name: string): Promise<number> {
  const response = await fetch(`${url}/api/v1/namespaces/default/pods`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(pod(name)),
  });
  await response.text();
  return response.status;
}

async function names(url: string): Promise<Set<string>> {
  const response = await fetch(`${url}/api/v1/namespaces/default/pods`, { headers });
  const list = (await response.json()) as { items: { metadata: { name: string } }[] };
  return new Set(list.items.map((item) => item.metadata.name));
}

describe.skipIf(onRealTier())(
  'pnpm sim --state-file, killed',
  {
    timeout: 120_000,
  },
  () => {
    it('keeps every answered create across kill -9, also when killed during churn', async () => {
      const stateFile = join(dir, 'state.json');
      const answered = new Set<string>();
      const kubeconfig = join(dir, 'kubeconfig');
      const args = ['--port', '0', '--state-file', stateFile, '--kubeconfig', kubeconfig];
      const sim = startSimProcess(args);
      const url = await sim.url;
      headers = authorizationFrom(kubeconfig);
      // A first round fully answered, then churn that the kill cuts short.
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          if ((await create(url, `before-${i}`)) === 201) answered.add(`before-${i}`);
        }),
      );
      expect(answered.size).toBe(20);
      let killed = false;
      const churn = Array.from({ length: 8 }, async (_, worker) => {
        for (let i = 0; !killed; i++) {
          const name = `churn-${worker}-${i}`;
          try {
            if ((await create(url, name)) === 201 && !killed) answered.add(name);
          } catch {
            return; // the connection died with the process
          }
        }
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      // Only what was answered before the kill counts: stop counting, then kill.
      const counted = new Set(answered);
      killed = true;
      sim.killHard();
      await sim.exit;
      await Promise.all(churn);

      const text = await readFile(stateFile, 'utf8');
      expect(() => JSON.parse(text)).not.toThrow();
      expect((await stat(stateFile)).mode & 0o777).toBe(0o600);

      const again = startSimProcess(args);
      try {
        const restartedUrl = await again.url;
        headers = authorizationFrom(kubeconfig);
        const present = await names(restartedUrl);
        const missing = [...counted].filter((name) => !present.has(name));
        expect(missing).toEqual([]);
        expect(counted.size).toBeGreaterThan(20);
        // A retry of an answered create finds the object: 409 AlreadyExists, not a second one.
        expect(await create(restartedUrl, 'before-0')).toBe(409);
      } finally {
        again.stop();
        await again.exit;
      }
    });
  },
);
