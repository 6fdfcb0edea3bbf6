import { spawn } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SEED_REQUEST } from '../seed-request.js';

const packageRoot = fileURLToPath(new URL('../..', import.meta.url));
/** The built command (turbo builds the package before its tests), as its `bin` runs it. */
const cli = join(packageRoot, 'dist', 'cli', 'main.js');

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the real `mgpu` process: the built command, or `[command, ...args]` as given. */
function mgpu(args: string[], stdin = '', command = [process.execPath, cli]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const [file = '', ...prefix] = command;
    const child = spawn(file, [...prefix, ...args], {
      cwd: packageRoot,
      env: { ...process.env, LANG: 'C' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    // A command that refuses oversized input stops reading it: the rest of the pipe is moot.
    child.stdin.on('error', () => {});
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

const seed = SEED_REQUEST;
const withGpu = (gpu: object) => ({
  ...seed,
  containers: [{ ...seed.containers[0], gpu: { ...seed.containers[0]?.gpu, ...gpu } }],
});

describe.concurrent('mgpu check', () => {
  it('accepts the seed example with 60 % and 4096 MiB per card and exits 0', async () => {
    const run = await mgpu(['check'], JSON.stringify(seed));
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout);
    expect(result).toMatchObject({
      valid: true,
      errors: [],
      containers: [{ name: 'worker', cards: 2, perCard: { computePercent: 60, memoryMiB: 4096 } }],
      manifest: { apiVersion: 'apps/v1', kind: 'Deployment' },
    });
  });

  it('checks an array in order, exits 1 when any is invalid, in the language asked for', async () => {
    const run = await mgpu(
      ['check', '--lang', 'zh-CN'],
      JSON.stringify([seed, withGpu({ compute: '1', cards: 3, memoryGiB: '12' })]),
    );
    expect(run.code).toBe(1);
    const [first, second] = JSON.parse(run.stdout);
    expect(first.valid).toBe(true);
    expect(second).toMatchObject({
      valid: false,
      errors: [{ path: 'containers.0.gpu.compute', rule: 'per-card-compute-precision' }],
    });
    expect(second.errors[0].message).toContain('GPU 算力');
    expect(second.manifest).toBeUndefined();
  });

  it('uses the cluster inventory for the cluster-aware rules when given one', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mgpu-cli-'));
    const inventory = join(dir, 'inventory.json');
    await writeFile(
      inventory,
      JSON.stringify({
        pools: [
          {
            model: 'NVIDIA-L20',
            resourceType: 'mgpu',
            policy: 'native-burst-share',
            cardsPerNode: 4,
            memoryMiBPerCard: 46068,
            nodes: 3,
          },
        ],
      }),
    );
    const run = await mgpu(
      ['check', '--inventory', inventory],
      JSON.stringify(withGpu({ model: 'Tesla-V100' })),
    );
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).errors.map((e: { rule: string }) => e.rule)).toEqual([
      'model-unknown',
    ]);
  });

  it("bounds every workload by the inventory's pod slots when it has them", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mgpu-cli-'));
    const inventory = join(dir, 'inventory.json');
    await writeFile(inventory, JSON.stringify({ pools: [], podSlots: { nodes: 2, pods: 220 } }));
    const cpuOnly = {
      ...seed,
      replicas: 1_000_000_000,
      containers: [{ name: 'web', image: 'nginx:1.27' }],
    };
    const run = await mgpu(['check', '--inventory', inventory], JSON.stringify(cpuOnly));
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).errors).toMatchObject([
      { path: 'replicas', rule: 'replicas-exceed-cluster' },
    ]);
  });

  it.each([
    ['malformed JSON', '{"name": '],
    ['a request of the wrong shape', JSON.stringify({ name: 3, containers: [] })],
    ['an empty input', ''],
  ])('refuses %s with one line on stderr and exit 2', async (_label, input) => {
    const run = await mgpu(['check'], input);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe.concurrent('mgpu manifest', () => {
  it('prints the Deployment of spec §4 as YAML', async () => {
    const run = await mgpu(['manifest'], JSON.stringify(seed));
    expect(run.code).toBe(0);
    expect(run.stdout).not.toContain('*a1');
    const deployment = parse(run.stdout);
    expect(deployment.spec.template.metadata.annotations).toEqual({
      'vke.volcengine.com/multiple-mgpu-worker': '2',
      'vke.volcengine.com/mgpu-compute-policy': 'native-burst-share',
    });
    const resources = deployment.spec.template.spec.containers[0].resources;
    expect(resources.limits).toEqual({
      'vke.volcengine.com/mgpu-core': '120',
      'vke.volcengine.com/mgpu-memory': '8192',
    });
    expect(resources.requests).toEqual(resources.limits);
    expect(
      deployment.spec.template.spec.affinity.nodeAffinity
        .requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0],
    ).toEqual({
      key: 'machine.cluster.vke.volcengine.com/gpu-name',
      operator: 'In',
      values: ['NVIDIA-L20'],
    });
  });

  it('prints the errors and exits 1 for an invalid request', async () => {
    const run = await mgpu(
      ['manifest'],
      JSON.stringify(withGpu({ compute: '2', cards: 2, memoryGiB: '8' })),
    );
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('[memory-with-whole-card]');
  });
});

describe.concurrent('mgpu lint', () => {
  it('reports every broken rule of every object as JSON, and exits 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mgpu-lint-'));
    const file = join(dir, 'workloads.yaml');
    await writeFile(
      file,
      `apiVersion: v1
kind: Pod
metadata:
  name: old
  annotations:
    vke.volcengine.com/container-multiple-gpu: "3"
    vke.volcengine.com/mgpu-compute-policy: native-burst-share
spec:
  containers:
    - name: main
      image: nginx
      resources:
        limits: { vke.volcengine.com/mgpu-core: "100", vke.volcengine.com/mgpu-memory: "5120" }
---
apiVersion: v1
kind: ConfigMap
metadata: { name: ignored }
`,
    );
    const run = await mgpu(['lint', '--json', file]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual([
      expect.objectContaining({
        file,
        kind: 'Pod',
        name: 'old',
        rule: 'per-card-compute-precision',
      }),
      expect.objectContaining({ file, kind: 'Pod', name: 'old', rule: 'per-card-memory-integer' }),
    ]);
  });

  it('exits 0 for clean objects and 2 for a file it cannot read or parse', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mgpu-lint-'));
    const built = await mgpu(['manifest'], JSON.stringify(seed));
    const clean = join(dir, 'clean.yaml');
    await writeFile(clean, built.stdout);
    expect((await mgpu(['lint', clean])).code).toBe(0);

    const broken = join(dir, 'broken.yaml');
    await writeFile(broken, 'kind: Pod\nmetadata: [unclosed\n');
    for (const path of [broken, join(dir, 'missing.yaml')]) {
      const run = await mgpu(['lint', path]);
      expect(run.code).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
  });
});

describe('bounded input (issue 14)', () => {
  const oneLine = (run: Run) => {
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    return run.stderr;
  };

  it('check refuses an array of more than 10000 requests, naming the limit', async () => {
    const requests = JSON.stringify(Array.from({ length: 10_001 }, () => seed));
    expect(oneLine(await mgpu(['check'], requests))).toContain('10000');
  });

  it('check refuses standard input over 32 MiB without reading it all', async () => {
    const huge = `[${' '.repeat(33 * 1024 * 1024)}]`;
    expect(oneLine(await mgpu(['check'], huge))).toContain('32 MiB');
  });

  it('lint names a YAML alias bomb and exits 2', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mgpu-lint-'));
    const bomb = join(dir, 'bomb.yaml');
    let yaml = 'a: &a [x, x, x, x, x, x, x, x, x]\n';
    let previous = 'a';
    for (let level = 0; level < 9; level++) {
      yaml += `b${level}: &b${level} [${Array(9).fill(`*${previous}`).join(', ')}]\n`;
      previous = `b${level}`;
    }
    await writeFile(bomb, yaml);
    const run = await mgpu(['lint', bomb]);
    expect(oneLine(run)).toContain(`${bomb}: YAML aliases expand too far (alias bomb?)`);
  });

  it('lint refuses a 50 MB file before reading it, naming the limit', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mgpu-lint-'));
    const big = join(dir, 'big.yaml');
    await writeFile(big, Buffer.alloc(50 * 1000 * 1000, 'kind: Pod\n'));
    const run = await mgpu(['lint', big]);
    expect(oneLine(run)).toContain('8 MiB');
  });
});

describe('input that reports no size (issue 25)', () => {
  // /dev/zero never ends: finishing at all shows the limit is enforced while reading.
  it('lint refuses /dev/zero once past the limit, with exit 2 and the limit named', {
    timeout: 120_000,
  }, async () => {
    const run = await mgpu(['lint', '/dev/zero']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      'mgpu lint: /dev/zero: larger than 8 MiB (the limit of mgpu lint); split it',
    ]);
  });
});

describe.concurrent('control characters from the input are escaped (issue 25)', () => {
  const ESC = '\u001b';
  const CSI = '\u009b';
  // Anything a terminal could act on: C0, DEL and C1.
  const rawControl = /\p{Cc}/u;
  // Our own newlines end the lines; any other control character came from the input.
  const printed = (run: Run) => `${run.stdout}${run.stderr}`.replace(/\n/g, '');

  it('lint prints an object name that carries escape sequences as \\x escapes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mgpu-lint-'));
    const file = join(dir, 'escapes.yaml');
    await writeFile(
      file,
      `apiVersion: v1
kind: Pod
metadata:
  name: "evil\\e[2J\\x7f\\u009b"
spec:
  containers:
    - name: main
      image: nginx
      resources:
        limits: { vke.volcengine.com/mgpu-core: "100", vke.volcengine.com/mgpu-memory: "5120" }
`,
    );
    const run = await mgpu(['lint', file]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(`${file}: Pod/evil\\x1b[2J\\x7f\\x9b: `);
    expect(printed(run)).not.toMatch(rawControl);

    const json = await mgpu(['lint', '--json', file]);
    expect(printed(json)).not.toMatch(rawControl);
    expect(JSON.parse(json.stdout)[0].name).toBe(`evil${ESC}[2J\u007f${CSI}`);
  });

  it('manifest prints the errors of an image with escape sequences escaped', async () => {
    const run = await mgpu(
      ['manifest'],
      JSON.stringify({
        ...seed,
        containers: [{ ...seed.containers[0], image: `nginx${ESC}[31m:1.27${CSI}` }],
      }),
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('(nginx\\x1b[31m:1.27\\x9b)');
    expect(printed(run)).not.toMatch(rawControl);
  });

  it('check and the refusal line escape them too, and keep exit code 2', async () => {
    const check = await mgpu(
      ['check'],
      JSON.stringify({ ...seed, containers: [{ ...seed.containers[0], image: `a${CSI}` }] }),
    );
    expect(check.code).toBe(1);
    expect(printed(check)).not.toMatch(rawControl);
    const missing = `missing${ESC}[2J.yaml`;
    const run = await mgpu(['lint', missing]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('mgpu lint: cannot read missing\\x1b[2J.yaml: no such file\n');
  });
});

describe('usage', () => {
  it('mgpu --help and -h print the usage on stdout and exit 0, nothing on stderr', async () => {
    for (const flag of ['--help', '-h']) {
      const run = await mgpu([flag]);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toMatch(/^Usage:\n {2}mgpu check /);
    }
  });

  it('each command asked for --help or -h prints the usage and exits 0, reading no input', async () => {
    for (const args of [
      ['lint', '--help'],
      ['lint', '--json', '-h'],
      ['check', '--help'],
      ['manifest', '-h'],
    ]) {
      // Input a run would refuse (exit 2): help never gets to it.
      const run = await mgpu(args, '{');
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toContain('mgpu lint [--json]');
    }
  });

  it('lint reads a FILE named --help after --, as any other file', async () => {
    const run = await mgpu(['lint', '--', '--help']);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe('mgpu lint: cannot read --help: no such file');
  });

  it('exits 2 with the usage for an unknown command or option', async () => {
    expect((await mgpu(['frobnicate'])).code).toBe(2);
    const run = await mgpu(['check', '--lang', 'fr'], JSON.stringify(seed));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--lang');
  });
});

describe('pnpm --silent mgpu, as the README runs it', () => {
  // From the workspace root, on the TypeScript source (the root's bin): nothing but the CLI's own
  // output, so a refused input is exactly one line on stderr (pnpm adds one after a failing script).
  const viaPnpm = ['pnpm', '--silent', '-C', join(packageRoot, '..', '..'), 'mgpu'];

  it('checks the seed example, exit 0', async () => {
    const run = await mgpu(['check'], JSON.stringify(seed), viaPnpm);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ valid: true });
    expect(run.stderr).toBe('');
  });

  it('refuses unreadable input with exit 2 and one line on stderr', async () => {
    const run = await mgpu(['check'], '{', viaPnpm);
    expect(run.code).toBe(2);
    expect(run.stderr.trim().split('\n')).toEqual([
      expect.stringContaining('mgpu check: standard input is not valid JSON'),
    ]);
  });
});
