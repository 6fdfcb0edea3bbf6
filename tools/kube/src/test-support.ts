import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ApiException, KubeConfig } from '@kubernetes/client-node';
import { testTier } from '@mgpu/shared/test-tier';
import { contextName } from './kubeconfig.js';
import type { TokenUser } from './pki.js';

const tier = testTier();
/** The real tier's kubeconfig (with-real-cluster.sh): this package's cluster tests need it. */
export const testKubeconfig = tier.kind === 'real' ? tier.kubeconfig : undefined;

/** The test cluster's KubeConfig as one of cluster:real's token users. */
export function kubeConfigAs(id: TokenUser['id']): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromString(readFileSync(testKubeconfig ?? '', 'utf8'));
  kc.setCurrentContext(contextName(id));
  return kc;
}

export interface KubectlResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** The machine's real kubectl (1.32), as an outside client would call it. */
export function kubectl(id: TokenUser['id'], args: string[], input?: string): KubectlResult {
  const result = spawnSync(
    'kubectl',
    ['--kubeconfig', testKubeconfig ?? '', '--context', contextName(id), ...args],
    { encoding: 'utf8', input, timeout: 60_000 },
  );
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

export function kubectlJson<T>(id: TokenUser['id'], args: string[]): T {
  const out = execFileSync(
    'kubectl',
    ['--kubeconfig', testKubeconfig ?? '', '--context', contextName(id), ...args, '-o', 'json'],
    { encoding: 'utf8', timeout: 60_000 },
  );
  return JSON.parse(out) as T;
}

/** The Status object of a failed call (client-node hands it over as text or parsed). */
export function statusOf(error: unknown): Record<string, unknown> | undefined {
  if (!(error instanceof ApiException)) return undefined;
  const body: unknown = typeof error.body === 'string' ? JSON.parse(error.body) : error.body;
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : undefined;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `check` returns a value; real controllers converge in seconds, not instantly. */
export async function eventually<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs = 45_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await check();
    if (value !== undefined) return value;
    await delay(250);
  }
  throw new Error(`timed out waiting for ${what}`);
}
