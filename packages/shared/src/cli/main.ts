#!/usr/bin/env node
/**
 * The `mgpu` command (spec §7): `check`, `manifest` and `lint`, on top of the same rule engine
 * the form and the BFF use. Exit 0 = valid / nothing found, 1 = invalid / something found,
 * 2 = input that cannot be read; that last case prints one line on stderr, never a trace.
 */
import { createReadStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { type CheckResult, checkRequest } from '../check.js';
import type { GpuInventory } from '../inventory.js';
import { CardTypeSchema } from '../ledger/claim.js';
import { type LintFinding, lintManifests, ManifestParseError } from '../lint.js';
import { buildHeadlessService } from '../manifest.js';
import { manifestYaml } from '../manifest-diff.js';
import { ComputePolicySchema, type WorkloadRequest, WorkloadRequestSchema } from '../request.js';
import { isLang, type Lang } from '../rules.js';

const USAGE = `Usage:
  mgpu check [--lang zh-CN|en] [--inventory FILE]   read a request (or an array) on stdin, print the check result
  mgpu manifest [--lang zh-CN|en] [--model-label KEY]   read a request on stdin, print its object as YAML (a StatefulSet with its headless Service)
  mgpu lint [--json] [--lang zh-CN|en] FILE...       report every mGPU rule existing objects break

Limits: check reads at most 32 MiB and 10000 requests; lint reads files of at most 8 MiB.
Exit codes: 0 valid / nothing found, 1 invalid / something found, 2 unreadable input.`;

/**
 * Bounds that keep one run's time and memory small: a check result with its manifest is some
 * kilobytes, so 10,000 requests print tens of MB (100,000 took 874 MB); real manifests and
 * request batches are far smaller than the byte limits.
 */
const MAX_CHECK_REQUESTS = 10_000;
const MAX_CHECK_INPUT_BYTES = 32 * 1024 * 1024;
const MAX_LINT_FILE_BYTES = 8 * 1024 * 1024;
const mib = (bytes: number) => `${bytes / 1024 / 1024} MiB`;

/** Input the command cannot work with: reported in one line, exit 2. */
class UnreadableInput extends Error {}

/** C0 (newline and tab too), DEL and C1 (`Cc`): what a terminal may act on instead of showing. */
const CONTROL_CHARACTER = /\p{Cc}/gu;
/** DEL and C1, which JSON.stringify leaves raw (it escapes C0 itself). */
const JSON_RAW_CONTROL = /[\u007f-\u009f]/g;

/** `text` with every control character written as `\xHH`, so names in files cannot drive the terminal. */
function terminalText(text: string): string {
  return text.replace(
    CONTROL_CHARACTER,
    (character) => `\\x${character.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}

/** One human-readable line: its control characters escaped, one newline of our own. */
function writeLine(stream: NodeJS.WritableStream, line: string): void {
  stream.write(`${terminalText(line)}\n`);
}

/** JSON for stdout: the same value, with DEL and C1 as \u escapes as well. */
function jsonText(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    JSON_RAW_CONTROL,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const GpuInventorySchema = z.object({
  pools: z.array(
    z.object({
      model: z.string(),
      resourceType: CardTypeSchema,
      policy: ComputePolicySchema,
      cardsPerNode: z.number().int().positive(),
      memoryMiBPerCard: z.number().int().positive(),
      nodes: z.number().int().nonnegative(),
    }),
  ),
  podSlots: z
    .object({ nodes: z.number().int().nonnegative(), pods: z.number().int().nonnegative() })
    .optional(),
});

/**
 * The stream's text, or undefined as soon as it grows past `limit` bytes: reading stops there,
 * since pipes and devices such as /dev/zero report no size to check beforehand.
 */
async function readUpTo(
  stream: NodeJS.ReadableStream & { destroy(): void },
  limit: number,
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      stream.destroy();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Standard input, refused (one line, exit 2) as soon as it grows past `limit` bytes. */
async function readStdin(limit: number): Promise<string> {
  const text = await readUpTo(process.stdin, limit);
  if (text === undefined)
    throw new UnreadableInput(`standard input is larger than ${mib(limit)} (the limit)`);
  return text;
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UnreadableInput(`${what} is not valid JSON: ${(error as Error).message}`);
  }
}

function describeZodIssue(error: z.ZodError, prefix: string): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid';
  const path = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
  return `${path || '(root)'}: ${issue.message}`;
}

function parseRequest(value: unknown, where: string): WorkloadRequest {
  const parsed = WorkloadRequestSchema.safeParse(value);
  if (!parsed.success) {
    throw new UnreadableInput(
      `input is not a workload request (${describeZodIssue(parsed.error, where)})`,
    );
  }
  return parsed.data;
}

function langOption(value: string | undefined): Lang {
  if (value === undefined) return process.env.LANG?.startsWith('zh') ? 'zh-CN' : 'en';
  if (!isLang(value)) throw new UnreadableInput(`--lang must be zh-CN or en, not "${value}"`);
  return value;
}

async function readInventory(file: string | undefined): Promise<GpuInventory | undefined> {
  if (file === undefined) return undefined;
  // Bounded like standard input: `--inventory /dev/zero` must not fill the memory either.
  const text = await readUpTo(
    createReadStream(file, { end: MAX_CHECK_INPUT_BYTES }),
    MAX_CHECK_INPUT_BYTES,
  ).catch((error: NodeJS.ErrnoException) => {
    throw new UnreadableInput(`cannot read ${file}: ${error.code ?? error.message}`);
  });
  if (text === undefined)
    throw new UnreadableInput(`${file} is larger than ${mib(MAX_CHECK_INPUT_BYTES)} (the limit)`);
  const parsed = GpuInventorySchema.safeParse(parseJson(text, file));
  if (!parsed.success) {
    throw new UnreadableInput(
      `${file} is not a GPU inventory (${describeZodIssue(parsed.error, '')})`,
    );
  }
  return parsed.data;
}

async function check(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { lang: { type: 'string' }, inventory: { type: 'string' } },
  });
  const lang = langOption(values.lang);
  const inventory = await readInventory(values.inventory);
  const input = parseJson(await readStdin(MAX_CHECK_INPUT_BYTES), 'standard input');
  const options = { lang, ...(inventory ? { inventory } : {}) };
  let output: CheckResult | CheckResult[];
  if (Array.isArray(input)) {
    if (input.length > MAX_CHECK_REQUESTS) {
      throw new UnreadableInput(
        `the array has ${input.length} requests; check takes at most ${MAX_CHECK_REQUESTS} (split it)`,
      );
    }
    const requests = input.map((item, index) => parseRequest(item, `[${index}]`));
    output = requests.map((request) => checkRequest(request, options));
  } else {
    output = checkRequest(parseRequest(input, ''), options);
  }
  process.stdout.write(`${jsonText(output)}\n`);
  const results = Array.isArray(output) ? output : [output];
  return results.every((result) => result.valid) ? 0 : 1;
}

function printErrors(result: CheckResult): void {
  for (const error of result.errors) {
    writeLine(
      process.stderr,
      `${error.path}: [${error.rule}] ${error.message}${error.fix ? ` ${error.fix}` : ''}`,
    );
  }
}

async function manifest(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { lang: { type: 'string' }, 'model-label': { type: 'string' } },
  });
  const lang = langOption(values.lang);
  const input = parseJson(await readStdin(MAX_CHECK_INPUT_BYTES), 'standard input');
  if (Array.isArray(input)) throw new UnreadableInput('manifest takes one request, not an array');
  const modelLabel = values['model-label'];
  const parsed = parseRequest(input, '');
  const result = checkRequest(parsed, {
    lang,
    ...(modelLabel ? { modelLabel } : {}),
  });
  if (!result.valid || result.manifest === undefined) {
    printErrors(result);
    return 1;
  }
  // A StatefulSet names a headless Service; `kubectl apply -f` of the output needs both.
  const documents =
    result.manifest.kind === 'StatefulSet'
      ? [result.manifest, buildHeadlessService(parsed)]
      : [result.manifest];
  process.stdout.write(documents.map((document) => manifestYaml(document)).join('---\n'));
  return 0;
}

async function lint(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      lang: { type: 'string' },
      'model-label': { type: 'string' },
    },
  });
  const lang = langOption(values.lang);
  if (positionals.length === 0)
    throw new UnreadableInput('lint needs at least one FILE (- for standard input)');
  const modelLabel = values['model-label'];
  const findings: LintFinding[] = [];
  for (const file of positionals) {
    const cannotRead = (error: NodeJS.ErrnoException): never => {
      throw new UnreadableInput(
        `cannot read ${file}: ${error.code === 'ENOENT' ? 'no such file' : (error.code ?? error.message)}`,
      );
    };
    // `end` is inclusive: at most one byte past the limit is read, enough to know it is over.
    const text = await readUpTo(
      file === '-' ? process.stdin : createReadStream(file, { end: MAX_LINT_FILE_BYTES }),
      MAX_LINT_FILE_BYTES,
    ).catch(cannotRead);
    if (text === undefined) {
      throw new UnreadableInput(
        `${file}: larger than ${mib(MAX_LINT_FILE_BYTES)} (the limit of mgpu lint); split it`,
      );
    }
    try {
      findings.push(...lintManifests(text, file, { lang, ...(modelLabel ? { modelLabel } : {}) }));
    } catch (error) {
      if (error instanceof ManifestParseError)
        throw new UnreadableInput(`${file}: ${error.message}`);
      throw error;
    }
  }
  if (values.json) {
    process.stdout.write(`${jsonText(findings)}\n`);
  } else {
    for (const finding of findings) {
      writeLine(
        process.stdout,
        `${finding.file}: ${finding.kind}/${finding.name}: ${finding.path}: [${finding.rule}] ${finding.message}${finding.fix ? ` ${finding.fix}` : ''}`,
      );
    }
    if (findings.length > 0) writeLine(process.stderr, `${findings.length} problem(s) found`);
  }
  return findings.length === 0 ? 0 : 1;
}

const COMMANDS: Record<string, (args: string[]) => Promise<number>> = { check, manifest, lint };

const isHelp = (arg: string | undefined) => arg === '--help' || arg === '-h';

/** `--help` or `-h` among a command's options; after `--` it is a FILE of that name (lint). */
function asksForHelp(args: string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some(isHelp);
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (isHelp(command) || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const run = command === undefined ? undefined : COMMANDS[command];
  if (run === undefined) {
    writeLine(process.stderr, `mgpu: ${command ? `unknown command "${command}"` : 'no command'}`);
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  // The commands share one usage text: asked for, it is the answer, before any input is read.
  if (asksForHelp(rest)) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  try {
    return await run(rest);
  } catch (error) {
    const message =
      error instanceof UnreadableInput
        ? error.message
        : error instanceof Error &&
            'code' in error &&
            String(error.code).startsWith('ERR_PARSE_ARGS')
          ? error.message.split('\n')[0]
          : `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
    writeLine(process.stderr, `mgpu ${command}: ${message}`);
    return 2;
  }
}

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  // A closed pipe (`mgpu check | head`) is not a failure of the check.
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

process.exitCode = await main(process.argv.slice(2));
