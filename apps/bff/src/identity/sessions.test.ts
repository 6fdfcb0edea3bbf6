import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { bearerKey, SessionStore } from './sessions.js';

const consoleKubeConfig = () => {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: 'c', server: 'https://cluster.test:6443', caData: 'Q0E=' }],
    users: [{ name: 'console', token: 'console-token' }],
    contexts: [{ name: 'console', cluster: 'c', user: 'console' }],
    currentContext: 'console',
  });
  return kubeConfig;
};

/** A store on a clock the test moves by hand. */
function storeOnClock(limits = { idleSeconds: 60, absoluteSeconds: 600 }) {
  const clock = { now: 1_000_000 };
  const store = new SessionStore(consoleKubeConfig(), limits, () => clock.now);
  return { store, clock };
}

const grant = { token: 'alice-token', username: 'alice', groups: ['team-a'] };

describe('SessionStore', () => {
  it('gives each session 256 random bits as its id and the operator only their own token', async () => {
    const { store } = storeOnClock();
    const one = store.create(grant);
    const two = store.create(grant);
    expect(Buffer.from(one.id, 'base64url')).toHaveLength(32);
    expect(one.id).not.toBe(two.id);
    const resumed = await store.resume(one.id);
    expect(resumed?.operator).toMatchObject({ username: 'alice', groups: ['team-a'] });
    const kubeConfig = resumed?.operator.kubeConfig;
    expect(kubeConfig?.getCurrentUser()).toMatchObject({ token: 'alice-token' });
    expect(kubeConfig?.getCurrentCluster()).toMatchObject({
      server: 'https://cluster.test:6443',
      caData: 'Q0E=',
    });
    expect(JSON.stringify(kubeConfig?.users)).not.toContain('console-token');
  });

  it('refuses an unknown id, an ended session, an idle one and one past its absolute age', async () => {
    const { store, clock } = storeOnClock();
    expect(await store.resume('forged')).toBeUndefined();
    expect(await store.resume(undefined)).toBeUndefined();

    const ended = store.create(grant);
    expect(store.end(ended.id)).toBe(true);
    expect(await store.resume(ended.id)).toBeUndefined();

    const idle = store.create(grant);
    clock.now += 61_000;
    expect(await store.resume(idle.id)).toBeUndefined();

    const busy = store.create(grant);
    // Used every 50 s it never idles out, but the absolute limit still ends it.
    for (let used = 0; used < 11; used++) {
      clock.now += 50_000;
      expect(await store.resume(busy.id)).toBeDefined();
    }
    clock.now += 50_000;
    expect(await store.resume(busy.id)).toBeUndefined();
    expect(store.size).toBe(0);
  });

  it('ends a session with its token, unless a refresh renews the token first', async () => {
    const { store, clock } = storeOnClock({ idleSeconds: 3600, absoluteSeconds: 36_000 });
    const plain = store.create({ ...grant, expiresAt: clock.now + 300_000 });
    let refreshes = 0;
    const renewing = store.create({
      ...grant,
      expiresAt: clock.now + 300_000,
      refresh: async () => {
        refreshes += 1;
        return { token: `renewed-${refreshes}`, expiresAt: clock.now + 300_000 };
      },
    });
    const before = (await store.resume(renewing.id))?.operator;
    clock.now += 299_000;
    expect(await store.resume(plain.id)).toBeDefined();
    const [after, again] = await Promise.all([
      store.resume(renewing.id),
      store.resume(renewing.id),
    ]);
    expect(refreshes).toBe(1);
    expect(after?.operator).toBe(again?.operator);
    expect(after?.operator).not.toBe(before);
    expect(after?.operator.kubeConfig.getCurrentUser()?.token).toBe('renewed-1');
    clock.now += 2_000;
    expect(await store.resume(plain.id)).toBeUndefined();
    expect(await store.resume(renewing.id)).toBeDefined();
  });

  it('keeps a session whose refresh is refused while its token lasts, and ends it with the token', async () => {
    const { store, clock } = storeOnClock();
    let tries = 0;
    const session = store.create({
      ...grant,
      expiresAt: clock.now + 30_000,
      refresh: async () => {
        tries += 1;
        throw new Error('invalid_grant');
      },
    });
    // Another replica may have just used the refresh token: the token still lasts 30 s.
    expect(await store.resume(session.id)).toBeDefined();
    expect(await store.resume(session.id)).toBeDefined();
    expect(tries).toBe(1);
    clock.now += 11_000;
    expect(await store.resume(session.id)).toBeDefined();
    expect(tries).toBe(2);
    clock.now += 20_000;
    expect(await store.resume(session.id)).toBeUndefined();
  });

  it('says whether a session stands without using it, and tells onEnd of every end', async () => {
    const { store, clock } = storeOnClock();
    const ends: string[] = [];
    store.onEnd((id) => ends.push(id));
    const signedOut = store.create(grant);
    const idle = store.create(grant);
    const refused = store.create({
      ...grant,
      expiresAt: clock.now + 30_000,
      refresh: async () => {
        throw new Error('invalid_grant');
      },
    });
    store.end(signedOut.id);
    expect(store.live(signedOut.id)).toBe(false);
    // Asked without use, the idle time runs on: a stream open on it does not keep it alive.
    clock.now += 30_000;
    expect(store.live(idle.id)).toBe(true);
    expect(await store.resume(refused.id)).toBeUndefined();
    clock.now += 31_000;
    expect(store.live(idle.id)).toBe(false);
    expect(ends).toEqual([signedOut.id, refused.id, idle.id]);
    expect(store.live('forged')).toBe(false);
  });

  it('keys a bearer token by its digest, not the token', () => {
    expect(bearerKey('alice-token')).not.toContain('alice-token');
    expect(bearerKey('alice-token')).toBe(bearerKey('alice-token'));
    expect(bearerKey('alice-token')).not.toBe(bearerKey('bob-token'));
  });
});
