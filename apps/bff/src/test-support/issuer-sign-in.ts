import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** One hop of a sign-in as the browser made it. */
export interface Hop {
  url: URL;
  status: number;
  location?: string;
  body: string;
}

/**
 * An operator's browser through `--auth oidc`, over plain HTTP(S): from the console's
 * `/auth/login`, every redirect followed by hand with each host's cookies, the issuer's login
 * form (tools/kube/src/oidc-issuer.ts) filled in and posted, back to the console's callback and
 * the page it sends to. The Node fetch cannot trust a CA of its own, hence node:http(s).
 */
export class SigningInBrowser {
  /** Cookies by host, as a browser keeps them. */
  readonly cookies = new Map<string, Map<string, string>>();

  constructor(private readonly issuerCa: Buffer) {}

  cookieHeader(url: URL): string {
    return [...(this.cookies.get(url.host) ?? new Map<string, string>())]
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
  }

  private hop(url: URL, form?: URLSearchParams): Promise<Hop> {
    const headers: Record<string, string> = { accept: 'text/html' };
    const cookie = this.cookieHeader(url);
    if (cookie) headers.cookie = cookie;
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const method = form ? 'POST' : 'GET';
    return new Promise((resolve, reject) => {
      const onResponse = (response: IncomingMessage) => {
        const jar = this.cookies.get(url.host) ?? new Map<string, string>();
        this.cookies.set(url.host, jar);
        for (const line of response.headers['set-cookie'] ?? []) {
          const pair = line.split(';', 1)[0] ?? '';
          const name = pair.slice(0, pair.indexOf('='));
          const value = pair.slice(pair.indexOf('=') + 1);
          if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) jar.delete(name);
          else jar.set(name, value);
        }
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
        });
        response.on('end', () => {
          const { location } = response.headers;
          resolve({
            url,
            status: response.statusCode ?? 0,
            body,
            ...(location ? { location } : {}),
          });
        });
      };
      const request =
        url.protocol === 'https:'
          ? httpsRequest(url, { method, headers, ca: this.issuerCa }, onResponse)
          : httpRequest(url, { method, headers }, onResponse);
      request.on('error', reject);
      request.end(form?.toString());
    });
  }

  /** Every hop from `start` until a page that is neither a redirect nor the login form. */
  signIn(start: URL, credentials: { login: string; password: string }): Promise<Hop[]> {
    return this.browse(start, (hop) => {
      const action = /<form method="post" action="([^"]+)"/.exec(hop.body)?.[1];
      return action === undefined ? undefined : { action, form: new URLSearchParams(credentials) };
    });
  }

  /**
   * Every hop from `start` (the console's `/auth/logout`) through the issuer's sign-out page,
   * answered "Sign out" (its form's own fields plus `logout=yes`), to the page it ends on.
   */
  signOut(start: URL): Promise<Hop[]> {
    return this.browse(start, (hop) => {
      const action = /<form id="op\.logoutForm" method="post" action="([^"]+)"/.exec(hop.body)?.[1];
      if (action === undefined) return undefined;
      const form = new URLSearchParams({ logout: 'yes' });
      for (const [, name = '', value = ''] of hop.body.matchAll(
        /<input type="hidden" name="([^"]+)" value="([^"]*)"/g,
      ))
        form.set(name, value);
      return { action, form };
    });
  }

  /** Follows redirects from `start`, posting what `answer` makes of a page's form, to the end. */
  private async browse(
    start: URL,
    answer: (hop: Hop) => { action: string; form: URLSearchParams } | undefined,
  ): Promise<Hop[]> {
    const hops: Hop[] = [];
    let url = start;
    let form: URLSearchParams | undefined;
    while (hops.length < 20) {
      const hop = await this.hop(url, form);
      hops.push(hop);
      form = undefined;
      if (hop.location && hop.status >= 300 && hop.status < 400) {
        url = new URL(hop.location, url);
        continue;
      }
      const next = hop.status === 200 ? answer(hop) : undefined;
      if (next === undefined) return hops;
      form = next.form;
      url = new URL(next.action, url);
    }
    throw new Error(`no end after 20 hops from ${start.href}`);
  }
}
