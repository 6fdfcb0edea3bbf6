/**
 * Issue 30's flags as an operator meets them: a key file that cannot be used, a name or a limit
 * the console could not keep its objects under, stop the start with one line (exit 2); a start
 * without a key file says that sessions end with the process.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startConsoleProcess } from '../test-support/console-process.js';

const TOKEN = ['--token', 'replica-flags-token-0123456789'];
const folder = mkdtempSync(join(tmpdir(), 'mgpu-replica-flags-'));
const keyFile = (name: string, text: string) => {
  const path = join(folder, name);
  writeFileSync(path, text);
  return path;
};

describe('the replica flags', () => {
  it.each([
    [
      'a key file that is not there',
      ['--session-key-file', join(folder, 'missing')],
      'cannot be read',
    ],
    ['an empty key file', ['--session-key-file', keyFile('empty', '\n')], 'has no key'],
    [
      'a key file with a short line',
      ['--session-key-file', keyFile('short', `${'k'.repeat(40)}\nshort-key\n`)],
      'line 2 has 9 characters',
    ],
    ['an instance name no object could be named', ['--instance-name', 'Team_A'], 'DNS label'],
    ['a namespace that is no DNS label', ['--console-namespace', 'a.b'], 'DNS label'],
    ['no sign-in attempts at all', ['--sign-in-attempts', '0'], 'above 0'],
  ])('refuses %s: exit 2, one line naming the flag', async (_, args, reason) => {
    const started = startConsoleProcess(['--embedded', ...TOKEN, ...args]);
    expect((await started.exit).code).toBe(2);
    const flag = args[0] ?? '';
    expect(started.output()).toContain(flag);
    expect(started.output()).toContain(reason);
    expect(started.output()).not.toContain('console ready');
    expect(started.output()).not.toMatch(/\n\s+at /);
  });

  it('says at start whether sessions outlive the process', async () => {
    const alone = startConsoleProcess(['--embedded', ...TOKEN]);
    await alone.url;
    expect(alone.output()).toContain('sessions end with this process');
    alone.signal('SIGTERM');
    await alone.exit;
    const key = keyFile('good', `${'k'.repeat(48)}\n`);
    // With the state file the embedded cluster keeps the sign-outs in (it refuses to start without).
    const state = join(folder, 'state.json');
    const shared = startConsoleProcess([
      '--embedded',
      '--state-file',
      state,
      ...TOKEN,
      '--session-key-file',
      key,
    ]);
    await shared.url;
    expect(shared.output()).toContain('outlive a restart');
    expect(shared.output()).not.toContain('sessions end with this process');
    shared.signal('SIGTERM');
    await shared.exit;
  });
});
