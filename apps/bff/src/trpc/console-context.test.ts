/**
 * The context a request really gets (`contextOfRequest`, behind the server's guard) with
 * `--auth kubernetes`: each signed-in operator their own cluster client, and every operator the
 * console's one `ClusterViews` (issue 26: a cache keyed by each operator's client made every new
 * operator pay a full node-state rebuild). Sessions are made in the store with the console's own
 * token, as the other session tests on the embedded cluster make them (it reviews no tokens).
 */
import type { Operator } from '@mgpu/api';
import { NodeStatesBuilder } from '@mgpu/shared';
import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type BffHarness,
  eventually,
  seedRequest,
  startHarness,
  uniqueName,
} from '../test-support/bff-harness.js';
import { operatorWithToken } from '../test-support/operators.js';
import { contextOfRequest } from './console-context.js';

// Every node-state build in this process, by whichever views make it: views made per operator
// would build on their own, where the console views' `builds` would not see it.
const nodeStateBuilds = vi.spyOn(NodeStatesBuilder.prototype, 'build');

let harness: BffHarness;
beforeAll(async () => {
  harness = await startHarness({ auth: 'kubernetes' });
});
afterAll(async () => {
  await harness?.close();
  nodeStateBuilds.mockRestore();
});

/** A new sign-in's session cookie: a new operator, as the server admits one. */
async function signIn(username: string): Promise<string> {
  const token = harness.connection.kubeConfig.getCurrentUser()?.token ?? '';
  const created = await harness.bff.sessions?.create({ token, username, groups: ['team-a'] });
  if (created === undefined) throw new Error('the harness runs without --auth');
  return `mgpu_console_session=${created.cookie}`;
}

/** `workload.preview` as the browser sends it, with the operator's session. */
async function preview(cookie: string, name: string): Promise<boolean> {
  const response = await fetch(`${harness.url}/trpc/workload.preview`, {
    method: 'POST',
    headers: { origin: harness.url, 'content-type': 'application/json', cookie },
    body: JSON.stringify({ request: seedRequest(name), lang: 'en' }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result: { data: { valid: boolean } } };
  return body.result.data.valid;
}

describe('each request’s context (--auth kubernetes)', () => {
  it('gives two operators clients of their own and the console’s one set of views', () => {
    const { context } = harness.bff;
    const operators = new WeakMap<FastifyRequest, Operator>();
    const contextOf = contextOfRequest(context, operators);
    const token = harness.connection.kubeConfig.getCurrentUser()?.token ?? '';
    const alice = operatorWithToken(harness.connection.kubeConfig, token, 'alice');
    const bob = operatorWithToken(harness.connection.kubeConfig, token, 'bob');
    // Requests are only the keys the guard files each admitted operator under.
    const requests = [alice, bob, alice].map((operator) => {
      const request = {} as FastifyRequest;
      operators.set(request, operator);
      return request;
    });
    const [first, second, again] = requests.map(contextOf);
    expect(first?.operator).toBe(alice);
    expect(second?.operator).toBe(bob);
    expect(first?.cluster).not.toBe(second?.cluster);
    expect(again?.cluster).toBe(first?.cluster);
    expect(first?.views).toBe(context.views);
    expect(second?.views).toBe(context.views);
    expect(first?.allocations).toBe(context.allocations);
    expect(contextOf({} as FastifyRequest)).toBe(context);
  });

  it('builds no node states for a second operator’s first preview over HTTP', async () => {
    const { cluster } = harness.bff.context;
    const alice = await signIn('alice');
    expect(await preview(alice, uniqueName('first-operator'))).toBe(true);
    // The views were built at least once in this process, so the count below is live.
    expect(nodeStateBuilds).toHaveBeenCalled();
    // A quiet moment (the informers unchanged across both previews); retried if the cluster moved.
    await eventually(
      async () => {
        const versions = { nodes: cluster.nodes.version, pods: cluster.pods.version };
        expect(await preview(alice, uniqueName('first-operator'))).toBe(true);
        const builds = nodeStateBuilds.mock.calls.length;
        const bob = await signIn(uniqueName('second-operator'));
        expect(await preview(bob, uniqueName('second-operator'))).toBe(true);
        if (cluster.nodes.version !== versions.nodes || cluster.pods.version !== versions.pods)
          return undefined;
        expect(nodeStateBuilds.mock.calls.length).toBe(builds);
        return true;
      },
      'two operators’ previews on unchanged informers',
      50,
    );
  });
});
