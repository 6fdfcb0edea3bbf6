import type { IncomingHttpHeaders } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** One answer of `BrowserLikeClient`, body read as text. */
export interface PageAnswer {
  url: URL;
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * What a browser does on the way through a sign-in, over plain Node HTTP(S): keeps each host's
 * cookies, trusts the test tier's CA, and follows redirects itself, so a test sees every hop.
 */
export class BrowserLikeClient {
  private readonly cookies = new Map<string, Map<string, string>>();

  constructor(private readonly ca: Buffer) {}

  /** One request; `form` makes it a urlencoded POST. Redirects are not followed here. */
  send(
    url: URL,
    form?: URLSearchParams,
    extraHeaders: Record<string, string> = {},
  ): Promise<PageAnswer> {
    const jar = this.cookies.get(url.host) ?? new Map<string, string>();
    this.cookies.set(url.host, jar);
    const headers: Record<string, string> = { ...extraHeaders };
    if (jar.size > 0) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const body = form?.toString();
    if (body !== undefined) {
      // No Origin: oidc-provider refuses a confidential client's token request from a browser.
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    return new Promise((resolve, reject) => {
      const options = { method: body === undefined ? 'GET' : 'POST', headers, timeout: 15_000 };
      const onResponse = (response: import('node:http').IncomingMessage) => {
        for (const line of response.headers['set-cookie'] ?? []) {
          const [pair = ''] = line.split(';', 1);
          const at = pair.indexOf('=');
          const name = pair.slice(0, at).trim();
          const value = pair.slice(at + 1);
          // An expired or emptied cookie is a deletion, as a browser reads it.
          if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) jar.delete(name);
          else jar.set(name, value);
        }
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({ url, status: response.statusCode ?? 0, headers: response.headers, body: text }),
        );
      };
      const request =
        url.protocol === 'https:'
          ? httpsRequest(url, { ...options, ca: this.ca }, onResponse)
          : httpRequest(url, options, onResponse);
      request.on('error', reject);
      request.on('timeout', () => request.destroy(new Error(`no answer from ${url.origin}`)));
      request.end(body);
    });
  }

  /**
   * Follows redirects from `start`, and fills in and posts the issuer's login form whenever one
   * appears, until `stopAt` says a URL is the end (not requested) or a page is not a redirect.
   */
  async signIn(
    start: URL,
    credentials: { login: string; password: string },
    stopAt: (url: URL) => boolean = () => false,
  ): Promise<{ stoppedAt?: URL; last: PageAnswer; hops: URL[] }> {
    const hops: URL[] = [];
    let next: URL = start;
    let form: URLSearchParams | undefined;
    for (let hop = 0; hop < 20; hop++) {
      if (stopAt(next))
        return { stoppedAt: next, last: { url: next, status: 0, headers: {}, body: '' }, hops };
      hops.push(next);
      const answer = await this.send(next, form);
      form = undefined;
      const location = answer.headers.location;
      if (answer.status >= 300 && answer.status < 400 && location) {
        next = new URL(location, next);
        continue;
      }
      const action = /<form method="post" action="([^"]+\/login)"/.exec(answer.body)?.[1];
      if (answer.status === 200 && action) {
        form = new URLSearchParams({ login: credentials.login, password: credentials.password });
        next = new URL(action.replaceAll('&amp;', '&'), next);
        continue;
      }
      return { last: answer, hops };
    }
    throw new Error(`more than 20 hops signing in from ${start.href}`);
  }
}
