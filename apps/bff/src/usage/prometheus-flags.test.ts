/**
 * `--prometheus-url` and its companions as an operator gives them: a wrong URL, an unreadable
 * file or a wrong query file stops the console at start with the flag (or the file's key) named.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prometheusFlagsOf, prometheusSourceOf } from './prometheus-flags.js';

const bffRoot = fileURLToPath(new URL('../..', import.meta.url));
let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'mgpu-prometheus-flags-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe('the Prometheus flags', () => {
  it('take the flag first, then its variable', () => {
    const flags = prometheusFlagsOf(
      { 'prometheus-url': 'http://flag:9090' },
      {
        MGPU_PROMETHEUS_URL: 'http://variable:9090',
        MGPU_PROMETHEUS_TOKEN_FILE: '/run/token',
        MGPU_USAGE_QUERIES: '/etc/usage.yaml',
      },
    );
    expect(flags).toEqual({
      url: 'http://flag:9090',
      tokenFile: '/run/token',
      caFile: undefined,
      queriesFile: '/etc/usage.yaml',
    });
  });

  it('without --prometheus-url: no Prometheus, and its companions alone are refused', async () => {
    expect(prometheusSourceOf({})).toBeUndefined();
    const queries = await file('alone.yaml', 'step: 30s');
    expect(() => prometheusSourceOf({ queriesFile: queries })).toThrow(
      '--usage-queries need(s) --prometheus-url',
    );
  });

  it('refuses a URL that is not http(s), naming the flag', () => {
    expect(() => prometheusSourceOf({ url: 'prometheus:9090' })).toThrow(
      /--prometheus-url must be http or https/,
    );
    expect(() => prometheusSourceOf({ url: 'not a url' })).toThrow(
      /--prometheus-url must be a URL/,
    );
  });

  it('refuses an unreadable CA or token file and an empty token, naming the flag', async () => {
    const url = 'https://prometheus.example:9090';
    expect(() => prometheusSourceOf({ url, caFile: join(dir, 'missing-ca.pem') })).toThrow(
      /--prometheus-ca-file .*missing-ca\.pem cannot be read/,
    );
    expect(() => prometheusSourceOf({ url, tokenFile: join(dir, 'missing-token') })).toThrow(
      /--prometheus-token-file .*missing-token cannot be read/,
    );
    const empty = await file('empty-token', '\n');
    expect(() => prometheusSourceOf({ url, tokenFile: empty })).toThrow(/is empty/);
  });

  it('refuses a query file with a wrong key, naming the file and the key', async () => {
    const queries = await file('usage.yaml', 'cardUtilisation: DCGM_FI_DEV_GPU_UTIL\n');
    expect(() => prometheusSourceOf({ url: 'http://p:9090', queriesFile: queries })).toThrow(
      /usage\.yaml: cardUtilisation: unknown key/,
    );
  });

  it('a good set gives the Prometheus source at that URL', async () => {
    const tokenFile = await file('token', 'reader-token\n');
    const queries = await file('good.json', '{"instanceUtilization": null}');
    const source = prometheusSourceOf({
      url: 'http://p:9090/prom/',
      tokenFile,
      queriesFile: queries,
    });
    expect(source?.kind).toBe('prometheus');
    expect(source?.url).toBe('http://p:9090/prom');
    // `instanceUtilization: null`: card series only, so no instance figures at all.
    expect(
      await source?.instanceUsage({
        windowSeconds: 60,
        idleThresholdPercent: 5,
        idleAfterSeconds: 60,
      }),
    ).toEqual([]);
  });

  it('the console process stops at start (exit 2) on a wrong query file', {
    timeout: 60_000,
  }, async () => {
    const queries = await file('wrong.yaml', 'labels: { hostname: node }\n');
    const child = spawn(
      process.execPath,
      [
        '--conditions=source',
        '--import',
        'tsx',
        'src/main.ts',
        '--port',
        '0',
        '--prometheus-url',
        'http://127.0.0.1:9',
        '--usage-queries',
        queries,
      ],
      { cwd: bffRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(2);
    expect(output).toMatch(/wrong\.yaml: labels\.hostname: unknown key/);
    expect(output).not.toContain('console ready');
  });

  it('a console whose Prometheus does not answer says why in its log, and lists usage as unknown', {
    timeout: 90_000,
  }, async () => {
    const child = spawn(
      process.execPath,
      [
        '--conditions=source',
        '--import',
        'tsx',
        'src/main.ts',
        '--port',
        '0',
        '--embedded',
        '--prometheus-url',
        'http://127.0.0.1:9',
      ],
      { cwd: bffRoot, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    let output = '';
    const seen = (pattern: RegExp) =>
      new Promise<RegExpExecArray>((resolve, reject) => {
        const bound = setTimeout(
          () => reject(new Error(`not logged: ${pattern}\n${output}`)),
          60_000,
        );
        const look = () => {
          const match = pattern.exec(output);
          if (!match) return;
          clearTimeout(bound);
          resolve(match);
        };
        child.stdout.on('data', look);
        child.stderr.on('data', look);
        look();
      });
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    try {
      const [, url] = await seen(/console ready at (http:\/\/[^\s"]+)/);
      const response = await fetch(`${url}/trpc/usage.workloads`);
      const body = (await response.json()) as { result: { data: { efficiency: unknown }[] } };
      const rows = body.result.data;
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((row) => row.efficiency === null)).toBe(true);
      await seen(/usage figures unknown: Prometheus at http:\/\/127\.0\.0\.1:9 is unreachable/);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
