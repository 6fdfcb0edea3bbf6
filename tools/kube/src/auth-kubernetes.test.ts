// Issue 16's judging script, as a test: on cluster:real, two namespaced service accounts with
// RoleBindings made by kubectl, their tokens from `kubectl create token`, and the console
// started as an operator starts it (`--kubeconfig FILE --auth kubernetes --port P`), checked
// over plain HTTP only: sign-in, allowed and refused creates, a filtered `allocations.watch`,
// 401 without a session. Runs under tools/kube/with-real-cluster.sh.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedRequest } from '@mgpu/shared';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConsoleProcess, startConsoleProcess } from './console-process.js';
import { freePort } from './processes.js';
import { eventually, kubectl, testKubeconfig } from './test-support.js';

const suffix = randomBytes(3).toString('hex');

/** One operator of the script: a service account with `edit` in its own namespace only. */
interface Operator {
  namespace: string;
  account: string;
  username: string;
  token: string;
  /** The session cookie `POST /session` handed out, as `name=value`. */
  cookie: string;
}
const alice: Operator = {
  namespace: `team-a-${suffix}`,
  account: 'alice',
  username: `system:serviceaccount:team-a-${suffix}:alice`,
  token: '',
  cookie: '',
};
const bob: Operator = {
  namespace: `team-b-${suffix}`,
  account: 'bob',
  username: `system:serviceaccount:team-b-${suffix}:bob`,
  token: '',
  cookie: '',
};

function admin(args: string[]): string {
  const result = kubectl('admin', args);
  expect(result.status, `kubectl ${args.join(' ')}: ${result.stderr}`).toBe(0);
  return result.stdout.trim();
}

let work = '';
let consoleProcess: ConsoleProcess | undefined;
const base = () => consoleProcess?.base ?? '';

/** A workload request of spec §7 that fits the default topology's cards. */
const requestOf = (name: string, namespace: string) => ({
  ...seedRequest(name, { namespace }),
  lang: 'en',
});

const create = (operator: Operator, namespace: string, name: string) =>
  fetch(`${base()}/trpc/workload.create`, {
    method: 'POST',
    headers: { origin: base(), 'content-type': 'application/json', cookie: operator.cookie },
    body: JSON.stringify(requestOf(name, namespace)),
  });

/**
 * `allocations.watch` over plain HTTP as `operator`'s browser opens it: the server-sent events
 * applied as the dashboard applies them (a snapshot replaces, upsert and delete change records).
 */
function watchAllocations(operator: Operator) {
  const abort = new AbortController();
  const namespaces = new Map<string, string>();
  let status = 0;
  const done = (async () => {
    const response = await fetch(`${base()}/trpc/allocations.watch?input=%7B%7D`, {
      headers: { cookie: operator.cookie, accept: 'text/event-stream' },
      signal: abort.signal,
    });
    status = response.status;
    const reader = response.body?.getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (reader) {
      const chunk = await reader.read();
      if (chunk.done) return;
      text += decoder.decode(chunk.value, { stream: true });
      const messages = text.split('\n\n');
      text = messages.pop() ?? '';
      for (const message of messages) {
        const data = message
          .split('\n')
          .find((line) => line.startsWith('data: '))
          ?.slice(6);
        if (message.includes('event: ') || !data) continue;
        const event = JSON.parse(data) as {
          type: 'snapshot' | 'upsert' | 'delete';
          records: Array<{ id: string; namespace: string }>;
        };
        if (event.type === 'snapshot') namespaces.clear();
        for (const record of event.records)
          if (event.type === 'delete') namespaces.delete(record.id);
          else namespaces.set(record.id, record.namespace);
      }
    }
  })().catch((error: unknown) => {
    if (!(error instanceof Error && error.name === 'AbortError')) throw error;
  });
  return {
    status: () => status,
    namespaces: () => new Set(namespaces.values()),
    async stop() {
      abort.abort();
      await done;
    },
  };
}

describe.skipIf(!onRealTier())('--auth kubernetes as the judging script drives it', () => {
  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'mgpu-auth-kubernetes-'));
    for (const operator of [alice, bob]) {
      admin(['create', 'namespace', operator.namespace]);
      admin(['create', 'serviceaccount', operator.account, '-n', operator.namespace]);
      admin([
        'create',
        'rolebinding',
        `${operator.account}-edit`,
        '-n',
        operator.namespace,
        '--clusterrole=edit',
        `--serviceaccount=${operator.namespace}:${operator.account}`,
      ]);
      operator.token = admin(['create', 'token', operator.account, '-n', operator.namespace]);
    }
    const port = await freePort();
    consoleProcess = await startConsoleProcess({
      // A shorter RBAC cache than the default 5 s, as an operator may choose (--access-review-ttl).
      args: [
        '--kubeconfig',
        testKubeconfig ?? '',
        '--auth',
        'kubernetes',
        '--port',
        String(port),
        '--access-review-ttl',
        '2',
      ],
      port,
      // Nothing of this machine's own kubeconfig: only the file the flag names.
      env: { HOME: work },
    });
  }, 120_000);

  afterAll(async () => {
    await consoleProcess?.stop();
    for (const operator of [alice, bob])
      kubectl('admin', ['delete', 'namespace', operator.namespace, '--wait=false']);
    rmSync(work, { recursive: true, force: true });
  }, 60_000);

  it('answers 401 on /trpc without a session, queries and subscriptions alike', async () => {
    for (const path of ['session.whoami', 'cluster.nodes', 'allocations.watch?input=%7B%7D']) {
      const response = await fetch(`${base()}/trpc/${path}`);
      expect(response.status, path).toBe(401);
    }
    const forged = await fetch(`${base()}/trpc/session.whoami`, {
      headers: { cookie: 'mgpu_console_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    });
    expect(forged.status).toBe(401);
  });

  it('refuses a token the API server does not accept with 401 and no cookie', async () => {
    const refused = await fetch(`${base()}/session`, {
      method: 'POST',
      headers: { origin: base(), 'content-type': 'application/json' },
      body: JSON.stringify({ token: `${alice.token.slice(0, -8)}AAAAAAAA` }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('set-cookie')).toBeNull();
  });

  it('signs each operator in with their token: an HttpOnly cookie, whoami names them', async () => {
    for (const operator of [alice, bob]) {
      const signedIn = await fetch(`${base()}/session`, {
        method: 'POST',
        headers: { origin: base(), 'content-type': 'application/json' },
        body: JSON.stringify({ token: operator.token }),
      });
      expect(signedIn.status).toBe(200);
      const setCookie = signedIn.headers.get('set-cookie') ?? '';
      expect(setCookie).toMatch(/HttpOnly/i);
      operator.cookie = setCookie.split(';')[0] ?? '';
      const whoami = await fetch(`${base()}/trpc/session.whoami`, {
        headers: { cookie: operator.cookie },
      });
      expect(whoami.status).toBe(200);
      const { result } = (await whoami.json()) as { result: { data: { username: string } } };
      expect(result.data.username).toBe(operator.username);
    }
  });

  it("creates where each may, is refused (403, rule forbidden, nothing created) in the other's namespace", async () => {
    for (const [operator, other] of [
      [alice, bob],
      [bob, alice],
    ] as const) {
      const created = await create(operator, operator.namespace, `own-${operator.account}`);
      expect(created.status, await created.clone().text()).toBe(200);
      expect(
        admin([
          'get',
          'deployment',
          `own-${operator.account}`,
          '-n',
          operator.namespace,
          '-o',
          'name',
        ]),
      ).toBe(`deployment.apps/own-${operator.account}`);

      const name = `other-${operator.account}`;
      const refused = await create(operator, other.namespace, name);
      expect(refused.status).toBe(403);
      const body = (await refused.json()) as {
        error: { data: { ruleErrors: Array<{ rule: string; message: string }> } };
      };
      const [error] = body.error.data.ruleErrors;
      expect(error?.rule).toBe('forbidden');
      for (const word of ['create', 'deployments.apps', other.namespace])
        expect(error?.message).toContain(word);
      const read = kubectl('admin', ['get', 'deployment', name, '-n', other.namespace]);
      expect(read.status).not.toBe(0);
      expect(read.stderr).toContain('NotFound');
    }
  });

  it('streams each operator the allocations of only the namespaces they may list pods in', async () => {
    const streams = [alice, bob].map((operator) => ({
      operator,
      watched: watchAllocations(operator),
    }));
    try {
      for (const { operator, watched } of streams) {
        // Their own workload's pods, once scheduled onto cards; nothing of any other namespace
        // (the other team's, the default topology's own pods).
        const seen = await eventually(
          `${operator.account}'s allocations`,
          async () => {
            const namespaces = watched.namespaces();
            return namespaces.has(operator.namespace) ? namespaces : undefined;
          },
          90_000,
        );
        expect(watched.status()).toBe(200);
        expect([...seen]).toEqual([operator.namespace]);
      }
      // Both streams stay filtered while both teams' allocations keep arriving.
      for (const { operator, watched } of streams)
        expect([...watched.namespaces()]).toEqual([operator.namespace]);
    } finally {
      for (const { watched } of streams) await watched.stop();
    }
  }, 120_000);
});
