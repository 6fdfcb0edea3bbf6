/**
 * A script's bearer token while the API server cannot be reached: 503, as a browser's sign-in
 * gets, not 401 — the token may be good, nobody could say, and a 401 would tell the script to
 * get a new one. On either cluster: a second console reaches the harness's API server through a
 * TCP relay the test then shuts, so the API server itself keeps running for the others.
 */
import net from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningBff, startBff } from '../server.js';
import { type BffHarness, startHarness } from '../test-support/bff-harness.js';

let harness: BffHarness;
let relayed: RunningBff;
let relay: net.Server;
const relaySockets = new Set<net.Socket>();

/** A TCP relay to `target` (host:port) on a free loopback port; TLS passes through untouched. */
async function startRelay(target: URL): Promise<number> {
  relay = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      relaySockets.add(socket);
      socket.on('close', () => relaySockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return (relay.address() as net.AddressInfo).port;
}

beforeAll(async () => {
  harness = await startHarness();
  const console = harness.connection.kubeConfig;
  const cluster = console.getCurrentCluster();
  const context = console.getContextObject(console.getCurrentContext());
  const user = console.getCurrentUser();
  if (!cluster || !context || !user) throw new Error("the harness's kubeconfig is incomplete");
  const server = new URL(cluster.server);
  const port = await startRelay(server);
  const throughRelay = new KubeConfig();
  throughRelay.loadFromOptions({
    clusters: [{ ...cluster, server: `${server.protocol}//127.0.0.1:${port}` }],
    users: [user],
    contexts: [context],
    currentContext: context.name,
  });
  relayed = await startBff({
    connection: { ...harness.connection, kubeConfig: throughRelay, close: async () => {} },
    port: 0,
    logger: false,
    auth: 'kubernetes',
  });
  // The API server goes out of reach: no new connection, none of the open ones.
  await new Promise<void>((resolve) => {
    relay.close(() => resolve());
    for (const socket of relaySockets) socket.destroy();
  });
});
afterAll(async () => {
  await relayed?.close();
  await harness?.close();
});

describe('--auth kubernetes with the API server out of reach', () => {
  it("answers a script's bearer token 503, saying the API server could not check it", async () => {
    const response = await fetch(`${relayed.url}/trpc/session.whoami`, {
      headers: { authorization: 'Bearer a-token-nobody-could-check' },
    });
    expect(response.status).toBe(503);
    const { error } = (await response.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe('SERVICE_UNAVAILABLE');
    expect(error.message).toMatch(/could not check the token/);
    expect(error.message).not.toContain('a-token-nobody-could-check');
  });

  it('still answers 401 where there is nothing to check: no token, no session', async () => {
    const response = await fetch(`${relayed.url}/trpc/session.whoami`);
    expect(response.status).toBe(401);
  });

  it('says at GET /session that this browser is not signed in', async () => {
    const response = await fetch(`${relayed.url}/session`, {
      headers: { authorization: 'Bearer a-token-nobody-could-check' },
    });
    expect(await response.json()).toMatchObject({ required: true, signedIn: false });
  });
});
