// The test tier's OIDC issuer against upstream kube-apiserver: an ID token from its code flow
// (PKCE, the login page's user) is a bearer token kube-apiserver accepts, names the user and
// groups by its --oidc-* claims and prefixes, and RBAC decides what it may do. Runs under
// tools/kube/with-real-cluster.sh, which exports MGPU_TEST_OIDC_*.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  ApiException,
  AuthenticationV1Api,
  CoreV1Api,
  KubeConfig,
  RbacAuthorizationV1Api,
} from '@kubernetes/client-node';
import { onRealTier } from '@mgpu/shared/test-tier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BrowserLikeClient } from './oidc-sign-in.js';
import { eventually, kubeConfigAs, statusOf } from './test-support.js';

const env = process.env;
const namespace = `oidc-${randomBytes(3).toString('hex')}`;
/** A loopback redirect URI: the issuer matches it on any port, and the test never calls it. */
const redirectUri = 'http://127.0.0.1:9/auth/callback';

interface Tokens {
  id_token: string;
  refresh_token?: string;
}

/** The code flow as the console runs it, then the code exchanged at the token endpoint. */
async function signIn(): Promise<{
  tokens: Tokens;
  tokenEndpoint: URL;
  client: BrowserLikeClient;
}> {
  const issuer = env.MGPU_TEST_OIDC_ISSUER ?? '';
  const client = new BrowserLikeClient(readFileSync(env.MGPU_TEST_OIDC_CA_FILE ?? ''));
  const discovery = JSON.parse(
    (await client.send(new URL(`${issuer}/.well-known/openid-configuration`))).body,
  ) as { authorization_endpoint: string; token_endpoint: string; issuer: string };
  expect(discovery.issuer).toBe(issuer);
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(16).toString('base64url');
  const start = new URL(discovery.authorization_endpoint);
  start.search = new URLSearchParams({
    client_id: env.MGPU_TEST_OIDC_CLIENT_ID ?? '',
    response_type: 'code',
    scope: 'openid profile email groups offline_access',
    redirect_uri: redirectUri,
    state,
    nonce: randomBytes(16).toString('base64url'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  }).toString();
  const { stoppedAt, last } = await client.signIn(
    start,
    { login: env.MGPU_TEST_OIDC_LOGIN ?? '', password: env.MGPU_TEST_OIDC_PASSWORD ?? '' },
    (url) => url.pathname === '/auth/callback',
  );
  if (!stoppedAt) throw new Error(`no redirect back to the console: ${last.status} ${last.body}`);
  expect(stoppedAt.searchParams.get('state')).toBe(state);
  const code = stoppedAt.searchParams.get('code') ?? '';
  const tokenEndpoint = new URL(discovery.token_endpoint);
  const answer = await client.send(
    tokenEndpoint,
    new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    }),
    { authorization: basicAuth() },
  );
  expect(answer.status).toBe(200);
  return { tokens: JSON.parse(answer.body) as Tokens, tokenEndpoint, client };
}

const basicAuth = () =>
  `Basic ${Buffer.from(
    `${encodeURIComponent(env.MGPU_TEST_OIDC_CLIENT_ID ?? '')}:${encodeURIComponent(env.MGPU_TEST_OIDC_CLIENT_SECRET ?? '')}`,
  ).toString('base64')}`;

/** The test cluster with the ID token as the only credential, as the console makes it. */
function kubeConfigWith(token: string): KubeConfig {
  const cluster = kubeConfigAs('admin').getCurrentCluster();
  if (!cluster) throw new Error('no cluster in the test kubeconfig');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [cluster],
    users: [{ name: 'oidc', token }],
    contexts: [{ name: 'oidc', cluster: cluster.name, user: 'oidc' }],
    currentContext: 'oidc',
  });
  return kc;
}

const whoIs = async (token: string) =>
  (
    await kubeConfigWith(token)
      .makeApiClient(AuthenticationV1Api)
      .createSelfSubjectReview({
        body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
      })
  ).status?.userInfo;

describe.skipIf(!onRealTier())('the test OIDC issuer and kube-apiserver', () => {
  let tokens: Tokens;
  let refresh: () => Promise<Tokens>;

  beforeAll(async () => {
    const signedIn = await signIn();
    tokens = signedIn.tokens;
    refresh = async () => {
      const answer = await signedIn.client.send(
        signedIn.tokenEndpoint,
        new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token ?? '',
        }),
        { authorization: basicAuth() },
      );
      expect(answer.status).toBe(200);
      return JSON.parse(answer.body) as Tokens;
    };
    await kubeConfigAs('admin')
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: namespace } } });
  });

  afterAll(async () => {
    await kubeConfigAs('admin').makeApiClient(CoreV1Api).deleteNamespace({ name: namespace });
  });

  it('accepts the ID token as a bearer token, naming the user and groups by the --oidc-* claims', async () => {
    const user = await whoIs(tokens.id_token);
    expect(user?.username).toBe(env.MGPU_TEST_OIDC_USERNAME);
    expect(user?.groups).toEqual(
      expect.arrayContaining([
        ...(env.MGPU_TEST_OIDC_GROUPS ?? '').split(','),
        'system:authenticated',
      ]),
    );
  });

  it('refuses an ID token whose signature is not the issuer’s', async () => {
    const [header, payload] = tokens.id_token.split('.');
    const forged = `${header}.${payload}.${randomBytes(256).toString('base64url')}`;
    const status = await whoIs(forged).then(
      () => undefined,
      // kube-apiserver answers an unauthenticated request with a bare 401.
      (error: unknown) => (error instanceof ApiException ? error.code : undefined),
    );
    expect(status).toBe(401);
  });

  it('lets RBAC decide: refused before a binding, allowed in its namespace after, nowhere else', async () => {
    const core = () => kubeConfigWith(tokens.id_token).makeApiClient(CoreV1Api);
    const refused = await core()
      .listNamespacedPod({ namespace })
      .then(
        () => undefined,
        (error: unknown) => statusOf(error),
      );
    expect(refused).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect(String(refused?.message)).toContain(env.MGPU_TEST_OIDC_USERNAME);

    const [group = ''] = (env.MGPU_TEST_OIDC_GROUPS ?? '').split(',');
    await kubeConfigAs('admin')
      .makeApiClient(RbacAuthorizationV1Api)
      .createNamespacedRoleBinding({
        namespace,
        body: {
          metadata: { name: 'oidc-operators-edit' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
          subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: group }],
        },
      });
    await eventually('the binding to take effect', async () =>
      core()
        .listNamespacedPod({ namespace })
        .then(
          () => true,
          () => undefined,
        ),
    );
    const created = await core().createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'made-by-oidc' }, data: { who: 'alice' } },
    });
    expect(created.metadata?.name).toBe('made-by-oidc');
    const elsewhere = await core()
      .listNamespacedPod({ namespace: 'default' })
      .then(
        () => undefined,
        (error: unknown) => statusOf(error)?.code,
      );
    expect(elsewhere).toBe(403);
  });

  it('renews the ID token with the refresh token, and kube-apiserver accepts the new one', async () => {
    expect(tokens.refresh_token).toBeTruthy();
    // A renewal within the same second may carry the very same claims, hence the same JWT.
    const renewed = await refresh();
    expect(renewed.id_token).toBeTruthy();
    expect((await whoIs(renewed.id_token))?.username).toBe(env.MGPU_TEST_OIDC_USERNAME);
  });
});
