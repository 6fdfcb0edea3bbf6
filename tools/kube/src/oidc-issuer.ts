import { generateKeyPairSync, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import Provider, { type Configuration, type InteractionResults } from 'oidc-provider';
import { type ClusterPki, signServingCertificate } from './pki.js';
import { freePort } from './processes.js';

/**
 * The test tier's OpenID Connect issuer (`oidc-provider`, the certified issuer for Node.js):
 * what kube-apiserver's `--oidc-*` flags trust and what `--auth oidc` signs operators in
 * through. One static client (the console), one user with a password and groups.
 */
export interface OidcIssuer {
  /** `https://127.0.0.1:<port>`: the `iss` of its tokens and kube-apiserver's `--oidc-issuer-url`. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The CA that signed its serving certificate (the cluster's CA). */
  caFile: string;
  /** The user of its login page. */
  login: string;
  password: string;
  /** The claims it puts in the user's ID tokens. */
  groups: readonly string[];
  /** What kube-apiserver is started with to trust it (prefixes included). */
  apiServerFlags: string[];
  /** The user and groups as kube-apiserver names them (after the prefixes). */
  kubernetesUsername: string;
  kubernetesGroups: readonly string[];
  stop(): Promise<void>;
}

/** The console's client, registered statically. */
export const OIDC_CLIENT_ID = 'mgpu-console';
/** The user of the login page and the group its ID tokens carry. */
export const OIDC_LOGIN = 'alice';
export const OIDC_GROUP = 'mgpu-operators';
/**
 * kube-apiserver prefixes the OIDC username and groups, so an issuer's `alice` or `admins`
 * never collides with a static-token user or a `system:` group (kubeadm clusters do the same).
 */
export const OIDC_PREFIX = 'oidc:';
/**
 * ID tokens live 65 s: the console renews a token in its last minute, so every suite that signs
 * in through the issuer goes through the refresh grant within seconds.
 */
const ID_TOKEN_SECONDS = 65;

/** A constant-time comparison of a typed password with the user's. */
const samePassword = (given: string, expected: string) => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

/** The login page: labelled fields, as an operator (and Playwright) finds them. */
function loginPage(uid: string, clientId: string, error?: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in to the test issuer</title></head>
<body><main>
<h1>Sign in</h1>
<p>to ${escapeHtml(clientId)} (the mGPU test tier's OpenID Connect issuer)</p>
${error ? `<p role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<label>Username <input name="login" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>
</main></body></html>`;
}

/**
 * The sign-out page of RP-initiated logout (the console's sign-out sends the browser here):
 * `form` is oidc-provider's own (its action and anti-forgery field), the buttons submit it.
 */
function logoutPage(form: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign out of the test issuer</title></head>
<body><main>
<h1>Sign out</h1>
<p>Sign out of the mGPU test tier's OpenID Connect issuer too?</p>
${form}
<button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button>
<button type="submit" form="op.logoutForm">Stay signed in</button>
</main></body></html>`;
}

function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > 16_384) request.destroy(new Error('form too large'));
    });
    request.on('end', () => resolve(new URLSearchParams(body)));
    request.on('error', reject);
  });
}

/**
 * Starts the issuer over HTTPS on a free loopback port with a serving certificate from the
 * cluster's CA (kube-apiserver only trusts an `https` issuer). Start it before kube-apiserver:
 * its OIDC authenticator fetches discovery in the background and refuses every ID token until
 * it has.
 */
export async function startOidcIssuer(dir: string, pki: ClusterPki): Promise<OidcIssuer> {
  const port = await freePort();
  const issuer = `https://127.0.0.1:${port}`;
  const { cert, key } = signServingCertificate(dir, 'oidc-issuer', 'mgpu-test-oidc-issuer', [
    'IP:127.0.0.1',
    'DNS:localhost',
  ]);
  const clientSecret = randomBytes(24).toString('hex');
  const password = randomBytes(12).toString('hex');
  const groups = [OIDC_GROUP];
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({
    format: 'jwk',
  });

  const configuration: Configuration = {
    clients: [
      {
        client_id: OIDC_CLIENT_ID,
        client_secret: clientSecret,
        // `native`: a loopback redirect URI matches on any port (RFC 8252 §7.3), and the
        // tests start the console on whatever port is free.
        application_type: 'native',
        redirect_uris: ['http://127.0.0.1/auth/callback', 'http://localhost/auth/callback'],
        post_logout_redirect_uris: ['http://127.0.0.1/', 'http://localhost/'],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    // RS256: kube-apiserver's default --oidc-signing-algs.
    jwks: { keys: [{ ...signingKey, alg: 'RS256', use: 'sig', kid: 'mgpu-test' }] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    scopes: ['openid', 'offline_access', 'profile', 'email', 'groups'],
    claims: {
      openid: ['sub'],
      profile: ['preferred_username', 'name'],
      email: ['email', 'email_verified'],
      groups: ['groups'],
    },
    // The scopes' claims go into the ID token itself: it is the bearer token kube-apiserver
    // reads the username and groups from.
    conformIdTokenClaims: false,
    features: {
      devInteractions: { enabled: false },
      // The console's sign-out ends the issuer's session too (`end_session_endpoint`).
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) => {
          ctx.type = 'html';
          ctx.body = logoutPage(form);
        },
      },
    },
    pkce: { required: () => true },
    ttl: {
      IdToken: ID_TOKEN_SECONDS,
      AccessToken: ID_TOKEN_SECONDS,
      AuthorizationCode: 60,
      Interaction: 600,
      Session: 3600,
      Grant: 3600,
      RefreshToken: 3600,
    },
    // Like Dex and Keycloak, a refresh token comes with every code exchange of a client allowed
    // the grant; oidc-provider's default wants `offline_access` with `prompt=consent`.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    findAccount: async (_ctx, sub) =>
      sub === OIDC_LOGIN
        ? {
            accountId: sub,
            claims: async () => ({
              sub,
              preferred_username: OIDC_LOGIN,
              name: 'Alice (test tier)',
              email: `${OIDC_LOGIN}@mgpu.test`,
              email_verified: true,
              groups,
            }),
          }
        : undefined,
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  };
  const provider = new Provider(issuer, configuration);
  const oidc = provider.callback();

  /** The login interaction: a page, and the form's POST checked against the one user. */
  async function interaction(request: IncomingMessage, response: ServerResponse, path: string) {
    const details = await provider.interactionDetails(request, response);
    const clientId = String(details.params.client_id ?? '');
    const send = (status: number, html: string) => {
      response.writeHead(status, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
      });
      response.end(html);
    };
    if (request.method === 'GET' && path === `/interaction/${details.uid}`) {
      if (details.prompt.name !== 'consent') return send(200, loginPage(details.uid, clientId));
      // The console is first-party: what it asks for is granted without a consent page.
      const missing = details.prompt.details as {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
      };
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId: details.session?.accountId ?? '', clientId });
      if (!grant) throw new Error('the grant of this sign-in is gone');
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      const grantId = await grant.save();
      const result: InteractionResults = { consent: details.grantId ? {} : { grantId } };
      return provider.interactionFinished(request, response, result, {
        mergeWithLastSubmission: true,
      });
    }
    if (request.method === 'POST' && path === `/interaction/${details.uid}/login`) {
      const form = await readForm(request);
      if (form.get('login') !== OIDC_LOGIN || !samePassword(form.get('password') ?? '', password))
        return send(401, loginPage(details.uid, clientId, 'Wrong username or password.'));
      return provider.interactionFinished(
        request,
        response,
        { login: { accountId: OIDC_LOGIN } },
        { mergeWithLastSubmission: false },
      );
    }
    send(404, 'Not found');
  }

  const server: Server = createServer(
    { cert: readFileSync(cert), key: readFileSync(key) },
    (request, response) => {
      const path = new URL(request.url ?? '/', issuer).pathname;
      if (!path.startsWith('/interaction/')) return void oidc(request, response);
      interaction(request, response, path).catch((error: unknown) => {
        if (!response.headersSent) response.writeHead(400, { 'content-type': 'text/plain' });
        response.end(
          `The sign-in could not go on: ${error instanceof Error ? error.message : String(error)}`,
        );
      });
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });

  return {
    issuer,
    clientId: OIDC_CLIENT_ID,
    clientSecret,
    caFile: pki.caCert,
    login: OIDC_LOGIN,
    password,
    groups,
    apiServerFlags: [
      `--oidc-issuer-url=${issuer}`,
      `--oidc-client-id=${OIDC_CLIENT_ID}`,
      `--oidc-ca-file=${pki.caCert}`,
      '--oidc-username-claim=preferred_username',
      `--oidc-username-prefix=${OIDC_PREFIX}`,
      '--oidc-groups-claim=groups',
      `--oidc-groups-prefix=${OIDC_PREFIX}`,
    ],
    kubernetesUsername: `${OIDC_PREFIX}${OIDC_LOGIN}`,
    kubernetesGroups: groups.map((group) => `${OIDC_PREFIX}${group}`),
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The issuer as environment variables for the suites (tools/kube/with-real-cluster.sh). */
export function oidcEnvironment(issuer: OidcIssuer): Record<string, string> {
  return {
    MGPU_TEST_OIDC_ISSUER: issuer.issuer,
    MGPU_TEST_OIDC_CLIENT_ID: issuer.clientId,
    MGPU_TEST_OIDC_CLIENT_SECRET: issuer.clientSecret,
    MGPU_TEST_OIDC_CA_FILE: issuer.caFile,
    MGPU_TEST_OIDC_LOGIN: issuer.login,
    MGPU_TEST_OIDC_PASSWORD: issuer.password,
    MGPU_TEST_OIDC_USERNAME: issuer.kubernetesUsername,
    MGPU_TEST_OIDC_GROUPS: issuer.kubernetesGroups.join(','),
  };
}
