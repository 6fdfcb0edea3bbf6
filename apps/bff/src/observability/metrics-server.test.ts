import { request } from 'node:http';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BffHarness, startHarness } from '../test-support/bff-harness.js';
import { serveMetrics } from './metrics-server.js';

/** A GET with the `Host` header a client chose (fetch always sends the URL's own). */
function getWithHost(url: string, host: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { headers: { host } }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

describe('/metrics listens apart from the console', () => {
  let harness: BffHarness;
  beforeAll(async () => {
    // The console opened to every address: its metrics must stay on loopback all the same.
    harness = await startHarness({ host: '0.0.0.0', metricsPort: 0 });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('binds to loopback unless --metrics-host opens it, whatever --host says', () => {
    expect(new URL(harness.bff.metricsUrl ?? '').hostname).toBe('127.0.0.1');
  });

  it('answers its own names and addresses, and refuses a rebound DNS name', async () => {
    const url = harness.bff.metricsUrl ?? '';
    const port = new URL(url).port;
    expect((await getWithHost(url, `localhost:${port}`)).status).toBe(200);
    expect((await getWithHost(url, `127.0.0.1:${port}`)).status).toBe(200);
    const rebound = await getWithHost(url, `attacker.example:${port}`);
    expect(rebound.status).toBe(421);
    expect(rebound.body).not.toContain('mgpu_');
  });
});

describe('a failed scrape', () => {
  it('answers 500 without the internal error text, and logs the error', async () => {
    const logged: unknown[] = [];
    const failing = {
      registry: new Registry(),
      answer: () => Promise.reject(new Error('ECONNREFUSED 10.96.0.1:443 /var/run/secrets/token')),
    };
    const server = await serveMetrics(failing, {
      port: 0,
      host: '127.0.0.1',
      allowedHosts: (port) => new Set([`127.0.0.1:${port}`]),
      log: { error: (entry: unknown) => logged.push(entry), warn: () => {} },
    });
    try {
      const response = await fetch(server.url);
      expect(response.status).toBe(500);
      const body = await response.text();
      expect(body).not.toContain('ECONNREFUSED');
      expect(body).not.toContain('/var/run/secrets');
      expect(logged).toHaveLength(1);
      expect((logged[0] as { err: Error }).err.message).toContain('ECONNREFUSED 10.96.0.1:443');
    } finally {
      await server.close();
    }
  });
});
