/**
 * `pnpm --silent sim`'s own flags, on the process an operator starts (the sim itself in both
 * tiers: these check its command line, not the cluster behind MGPU_TEST_KUBECONFIG).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GPU_METRICS } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import { parseDuration } from './duration.js';
import { eventually } from './test-support/controller-cluster.js';
import { parseExposition } from './test-support/prometheus-text.js';
import { authorizationFrom, startSimProcess } from './test-support/sim-process.js';

describe('parseDuration reads Go durations as kube-apiserver does', () => {
  it.each([
    ['1h', 3_600_000],
    ['1h0m0s', 3_600_000],
    ['30m', 1_800_000],
    ['90s', 90_000],
    ['1.5s', 1_500],
    ['500ms', 500],
    ['1m30s', 90_000],
  ])('%s is %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '60', '0s', '-1h', '1d', 'h', '1 h', '1h junk', 'banana'])('refuses %j', (text) => {
    expect(parseDuration(text)).toBeUndefined();
  });
});

describe('pnpm sim --help', { timeout: 90_000 }, () => {
  it('prints the usage on stdout and exits 0; an unknown flag gets it on stderr with exit 2', async () => {
    const help = await startSimProcess(['--help']).exit;
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: sim --port P');
    expect(help.stderr).not.toMatch(/^\s+at /m);
    const unknown = await startSimProcess(['--no-such-flag']).exit;
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--no-such-flag'");
    expect(unknown.stderr).toContain('usage: sim --port P');
  });
});

describe('pnpm sim --event-ttl', { timeout: 90_000 }, () => {
  it('refuses a value that is not a duration, naming the flag, with exit code 2', async () => {
    const { code, stderr } = await startSimProcess(['--port', '0', '--event-ttl', '60']).exit;
    expect(code).toBe(2);
    expect(stderr).toContain('--event-ttl: not a positive duration such as 30m or 1h: 60');
  });

  it('expires an Event that long after its last write', async () => {
    const kubeconfig = join(mkdtempSync(join(tmpdir(), 'mgpu-sim-main-')), 'kubeconfig');
    const sim = startSimProcess(['--port', '0', '--event-ttl', '2s', '--kubeconfig', kubeconfig]);
    try {
      const events = `${await sim.url}/api/v1/namespaces/default/events`;
      const headers = authorizationFrom(kubeconfig);
      const created = await fetch(events, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: 'short-lived' },
          involvedObject: { kind: 'Pod', namespace: 'default', name: 'any' },
          reason: 'Scheduled',
          message: 'short-lived',
          type: 'Normal',
        }),
      });
      expect(created.status).toBe(201);
      const createdAt = Date.now();
      expect((await fetch(`${events}/short-lived`, { headers })).status).toBe(200);
      await eventually(
        async () =>
          (await fetch(`${events}/short-lived`, { headers })).status === 404 ? true : undefined,
        20_000,
        'the Event to expire',
      );
      // Gone after the TTL, not before (the default would keep it an hour).
      expect(Date.now() - createdAt).toBeGreaterThanOrEqual(1_500);
    } finally {
      sim.stop();
    }
  });
});

describe('pnpm sim --state-file', { timeout: 90_000 }, () => {
  it('refuses a file with a null entry: exit code 2, one line naming the file and the entry', async () => {
    const stateFile = join(mkdtempSync(join(tmpdir(), 'mgpu-sim-main-')), 'state.json');
    writeFileSync(stateFile, JSON.stringify({ resourceVersion: '3', objects: [null] }));
    const { code, stderr } = await startSimProcess(['--port', '0', '--state-file', stateFile]).exit;
    expect(code).toBe(2);
    const ours = stderr.split('\n').filter((line) => line.startsWith('sim:'));
    expect(ours).toEqual([`sim: ${stateFile}: objects[0] is null, not an object`]);
    // No stack trace and no usage: the flags were right, the file was not.
    expect(stderr).not.toMatch(/^\s+at /m);
    expect(stderr).not.toContain('usage:');
  });
});

/** A loopback port nobody listens on now. */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer().once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });

describe('pnpm sim --gpu-metrics-port', { timeout: 90_000 }, () => {
  it('serves the GPU exporter: a card series per card, the running pods per instance', async () => {
    const port = await freePort();
    const sim = startSimProcess(['--port', '0', '--gpu-metrics-port', String(port)]);
    try {
      await sim.url;
      const response = await fetch(`http://127.0.0.1:${port}/metrics`);
      expect(response.status).toBe(200);
      const families = parseExposition(await response.text());
      expect(families.get(GPU_METRICS.cardUtilization)?.samples.length).toBeGreaterThan(0);
      const instances = families.get(GPU_METRICS.instanceUtilization)?.samples ?? [];
      // The default topology's pods already run on their cards.
      expect(instances.map((sample) => sample.labels.pod)).toContain('train-ddp-0');
      for (const sample of instances) {
        expect(sample.value).toBeGreaterThanOrEqual(0);
        expect(sample.value).toBeLessThanOrEqual(100);
      }
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    } finally {
      sim.stop();
    }
  });

  it('refuses a value that is not a port, naming the flag, with exit code 2', async () => {
    const { code, stderr } = await startSimProcess(['--port', '0', '--gpu-metrics-port', 'x']).exit;
    expect(code).toBe(2);
    expect(stderr).toContain('--gpu-metrics-port: not a port: x');
  });
});
