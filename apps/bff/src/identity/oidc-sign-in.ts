import { readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import * as oidc from 'openid-client';

/** `--auth oidc`: the issuer the browser signs in through, and the console's client there. */
export interface OidcSettings {
  /** `--oidc-issuer`: the same URL kube-apiserver's `--oidc-issuer-url` names. */
  issuer: string;
  /** `--oidc-client-id`: the same id as kube-apiserver's `--oidc-client-id` (the ID token's `aud`). */
  clientId: string;
  /** `--oidc-client-secret`: a confidential client's secret; without it the client is public (PKCE only). */
  clientSecret?: string;
  /**
   * `--oidc-ca-file`: PEM CA(s) the issuer's certificate is checked against instead of the
   * system's (a private CA). `NODE_EXTRA_CA_CERTS` works too, adding to the system's.
   */
  caFile?: string;
  /**
   * `--oidc-scopes`: what is asked for. `offline_access` asks for a refresh token, `groups` for
   * the groups claim at issuers that need that scope (Dex); unknown scopes are ignored by issuers.
   */
  scopes?: string;
}

export const DEFAULT_OIDC_SCOPES = 'openid profile email groups offline_access';

/**
 * A sign-in the browser was sent off to the issuer for: the caller keeps it sealed in the
 * browser's sign-in cookie until it comes back, so whichever replica gets the callback finishes it.
 */
export interface PendingSignIn {
  state: string;
  codeVerifier: string;
  nonce: string;
  /** The same-origin path the operator was on. */
  returnTo: string;
  redirectUri: string;
  startedAt: number;
}

/** What a finished code exchange proved, before the API server is asked who it is. */
export interface IssuedIdToken {
  idToken: string;
  /** The ID token's `exp`, epoch ms. */
  expiresAt: number;
  returnTo: string;
  /** The refresh token (`renew` renews the ID token with it); none when the issuer gave none. */
  refreshToken?: string;
}

/** A sign-in left at the issuer longer than this is refused (the operator starts again). */
export const PENDING_SIGN_IN_MS = 10 * 60_000;

/**
 * The path a sign-in goes back to: only a path of this console (`/…`, not `//host` or
 * `/\host`, which browsers read as another site), else the start page.
 */
export function sameOriginPath(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.length > 2048) return '/';
  if (value.startsWith('//') || value.startsWith('/\\')) return '/';
  // Control characters (a tab or newline inside `/\t/evil`) are dropped by URL parsers.
  for (const character of value) {
    const code = character.charCodeAt(0);
    if (code < 0x20 || code === 0x7f) return '/';
  }
  const url = new URL(value, 'http://console.invalid');
  return url.origin === 'http://console.invalid' ? `${url.pathname}${url.search}${url.hash}` : '/';
}

/** Fetch over node:https with `ca` as the only trust: undici's global fetch takes no CA option. */
function fetchTrusting(ca: Buffer): oidc.CustomFetch {
  return async (url, options) => {
    const body =
      options.body === undefined || options.body === null
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : options.body instanceof URLSearchParams
            ? options.body.toString()
            : Buffer.from(await new Response(options.body).arrayBuffer());
    return new Promise<Response>((resolve, reject) => {
      const request = httpsRequest(
        url,
        { method: options.method, headers: options.headers, ca, signal: options.signal },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', reject);
          response.on('end', () => {
            const headers = new Headers();
            for (const [name, value] of Object.entries(response.headers))
              for (const one of Array.isArray(value) ? value : [value])
                if (one !== undefined) headers.append(name, one);
            const status = response.statusCode ?? 502;
            const noBody = status === 204 || status === 304;
            resolve(new Response(noBody ? null : Buffer.concat(chunks), { status, headers }));
          });
        },
      );
      request.on('error', reject);
      request.end(body);
    });
  };
}

/**
 * The console as an OpenID Connect relying party (`openid-client`): the authorization code flow
 * with PKCE, state and nonce kept server-side; the ID token it returns is validated here
 * (signature, issuer, audience, nonce, expiry) and becomes the operator's bearer token towards
 * kube-apiserver, which trusts the same issuer; the refresh grant renews it.
 */
export class OidcSignIn {
  private constructor(
    private readonly config: oidc.Configuration,
    private readonly scopes: string,
    private readonly now: () => number,
  ) {}

  /** Reads the issuer's discovery document; fails when the issuer cannot be reached or trusted. */
  static async discover(settings: OidcSettings, now: () => number = Date.now): Promise<OidcSignIn> {
    const auth = settings.clientSecret
      ? oidc.ClientSecretBasic(settings.clientSecret)
      : oidc.None();
    const options: oidc.DiscoveryRequestOptions = { timeout: 10 };
    if (settings.caFile) options[oidc.customFetch] = fetchTrusting(readFileSync(settings.caFile));
    const config = await oidc.discovery(
      new URL(settings.issuer),
      settings.clientId,
      undefined,
      auth,
      options,
    );
    return new OidcSignIn(config, settings.scopes ?? DEFAULT_OIDC_SCOPES, now);
  }

  get issuer(): string {
    return this.config.serverMetadata().issuer;
  }

  /**
   * `GET /auth/login`: the issuer URL to send the browser to, and the sign-in it starts (the
   * caller seals it into a cookie, so only the browser that started a sign-in can finish it).
   */
  async start(
    redirectUri: string,
    returnTo: string,
  ): Promise<{ url: URL; pending: PendingSignIn }> {
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const pending: PendingSignIn = {
      state,
      codeVerifier,
      nonce,
      returnTo: sameOriginPath(returnTo),
      redirectUri,
      startedAt: this.now(),
    };
    const url = oidc.buildAuthorizationUrl(this.config, {
      redirect_uri: redirectUri,
      scope: this.scopes,
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { url, pending };
  }

  /**
   * `GET /auth/callback`: exchanges the code for tokens and validates the ID token. `pending` is
   * the sign-in of the browser's own cookie; a callback with another state (a link someone else
   * started), none, a stale one, or the issuer's error is refused.
   */
  async finish(callbackUrl: URL, pending: PendingSignIn | undefined): Promise<IssuedIdToken> {
    const given = callbackUrl.searchParams.get('state');
    if (
      pending === undefined ||
      given !== pending.state ||
      this.now() - pending.startedAt > PENDING_SIGN_IN_MS
    )
      throw new OidcSignInError('This sign-in was not started here or took too long; start again.');
    const error = callbackUrl.searchParams.get('error');
    if (error !== null) {
      const description = callbackUrl.searchParams.get('error_description');
      throw new OidcSignInError(`The issuer refused the sign-in: ${description ?? error}`);
    }
    // The redirect_uri sent to the token endpoint must be the one of the authorization request.
    const current = new URL(pending.redirectUri);
    current.search = callbackUrl.search;
    const tokens = await oidc.authorizationCodeGrant(this.config, current, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedNonce: pending.nonce,
      expectedState: given ?? undefined,
      idTokenExpected: true,
    });
    const { idToken, expiresAt } = idTokenOf(tokens);
    return {
      idToken,
      expiresAt,
      returnTo: pending.returnTo,
      ...(tokens.refresh_token ? { refreshToken: tokens.refresh_token } : {}),
    };
  }

  /**
   * A new ID token through the refresh grant, on whichever replica the session is used; issuers
   * may rotate the refresh token, so the answer carries the one to use next.
   */
  async renew(
    refreshToken: string,
  ): Promise<{ token: string; expiresAt: number; refreshToken: string }> {
    const renewed = await oidc.refreshTokenGrant(this.config, refreshToken);
    const next = idTokenOf(renewed);
    return {
      token: next.idToken,
      expiresAt: next.expiresAt,
      refreshToken: renewed.refresh_token ?? refreshToken,
    };
  }

  /**
   * Sign-out at the issuer too (OpenID Connect RP-Initiated Logout): the issuer's
   * `end_session_endpoint` with the operator's ID token as `id_token_hint` (the issuer then knows
   * whose session, and may skip asking) and where to send the browser after. Undefined when the
   * issuer's discovery document names no such endpoint: only the console's session ends then.
   */
  endSessionUrl(idToken: string | undefined, postLogoutRedirectUri: string): URL | undefined {
    if (this.config.serverMetadata().end_session_endpoint === undefined) return undefined;
    return oidc.buildEndSessionUrl(this.config, {
      ...(idToken ? { id_token_hint: idToken } : {}),
      post_logout_redirect_uri: postLogoutRedirectUri,
    });
  }
}

/** The validated ID token of a token response and its expiry; none is an error. */
function idTokenOf(tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): {
  idToken: string;
  expiresAt: number;
} {
  const claims = tokens.claims();
  if (!tokens.id_token || claims === undefined)
    throw new OidcSignInError('The issuer answered without an ID token.');
  return { idToken: tokens.id_token, expiresAt: claims.exp * 1000 };
}

/** A sign-in that cannot go on; its message is for the operator. */
export class OidcSignInError extends Error {}
