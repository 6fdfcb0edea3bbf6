/**
 * Prometheus's HTTP API (`/api/v1/query`, `/api/v1/query_range`), read with node:http(s) so a
 * private CA can be trusted: undici's global fetch takes no CA option. Every failure becomes a
 * `PrometheusError` whose `kind` tells the operator whether Prometheus could not be reached or
 * answered the query with an error.
 */
import { readFile } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface PrometheusHttpOptions {
  /** The server, e.g. `http://prometheus.monitoring:9090` (a path prefix is kept). */
  url: string;
  /** Sent as `Authorization: Bearer <token>`. */
  bearerToken?: string;
  /**
   * `--prometheus-token-file`: the token read from this file on every request, so a rotated
   * token (a projected service-account token, say) is used without a restart.
   */
  bearerTokenFile?: string;
  /** PEM of the CA that signed the server's certificate (`--prometheus-ca-file`). */
  ca?: string | Buffer;
  /** Per request, default 10 s: a query that takes longer is reported as failed, not waited on. */
  timeoutMs?: number;
}

/** One series of an instant query: its labels and its value (NaN when Prometheus says so). */
export interface InstantSample {
  labels: Record<string, string>;
  value: number;
}

/** One series of a range query: its labels and its points, seconds since the epoch. */
export interface RangeSeries {
  labels: Record<string, string>;
  points: { time: number; value: number }[];
}

export type PrometheusFailure = 'unreachable' | 'query-failed';

export class PrometheusError extends Error {
  constructor(
    readonly kind: PrometheusFailure,
    message: string,
  ) {
    super(message);
    this.name = 'PrometheusError';
  }
}

/** The largest answer read; a bigger one is refused rather than held in memory. */
const MAX_RESPONSE_BYTES = 256 * 1024 * 1024;

export class PrometheusHttp {
  private readonly base: URL;
  private readonly timeoutMs: number;

  constructor(private readonly options: PrometheusHttpOptions) {
    this.base = new URL(options.url.endsWith('/') ? options.url : `${options.url}/`);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:')
      throw new Error(`the Prometheus URL must be http or https, not ${options.url}`);
    this.timeoutMs = options.timeoutMs ?? 10_000;
  }

  /** Where the queries go, for logs and the usage page (no credentials in it). */
  get url(): string {
    return this.base.origin + this.base.pathname.replace(/\/$/, '');
  }

  /** An instant query at `time` (seconds; default now). A scalar answer is one unlabelled sample. */
  async query(promql: string, time?: number): Promise<InstantSample[]> {
    const form = new URLSearchParams({ query: promql });
    if (time !== undefined) form.set('time', String(time));
    const data = await this.post('api/v1/query', form);
    if (data.resultType === 'scalar') return [{ labels: {}, value: sampleValue(data.result) }];
    if (data.resultType !== 'vector')
      throw new PrometheusError('query-failed', `expected a vector, got ${data.resultType}`);
    return (data.result as { metric: Record<string, string>; value: unknown }[]).map((series) => ({
      labels: series.metric,
      value: sampleValue(series.value),
    }));
  }

  /** A range query from `start` to `end` (seconds) every `stepSeconds`. */
  async queryRange(
    promql: string,
    start: number,
    end: number,
    stepSeconds: number,
  ): Promise<RangeSeries[]> {
    const form = new URLSearchParams({
      query: promql,
      start: String(start),
      end: String(end),
      step: String(stepSeconds),
    });
    const data = await this.post('api/v1/query_range', form);
    if (data.resultType !== 'matrix')
      throw new PrometheusError('query-failed', `expected a matrix, got ${data.resultType}`);
    return (data.result as { metric: Record<string, string>; values: unknown[] }[]).map(
      (series) => ({
        labels: series.metric,
        points: series.values.map((point) => ({
          time: Number((point as [number, string])[0]),
          value: sampleValue(point),
        })),
      }),
    );
  }

  /** The `# HELP` texts Prometheus keeps of a metric (`/api/v1/metadata`), none when unknown. */
  async metricHelp(metric: string): Promise<string[]> {
    const data = (await this.call('GET', 'api/v1/metadata', new URLSearchParams({ metric }))) as
      | Record<string, { help?: string }[]>
      | undefined;
    return (data?.[metric] ?? []).flatMap((entry) => (entry.help ? [entry.help] : []));
  }

  /** POST (a long PromQL would not fit a URL) and unwrap `{status, data}`. */
  private async post(
    path: string,
    form: URLSearchParams,
  ): Promise<{ resultType: string; result: unknown }> {
    return (await this.call('POST', path, form)) as { resultType: string; result: unknown };
  }

  private async call(
    method: 'GET' | 'POST',
    path: string,
    form: URLSearchParams,
  ): Promise<unknown> {
    const url = new URL(path, this.base);
    if (method === 'GET') url.search = form.toString();
    const body = method === 'POST' ? form.toString() : undefined;
    let status: number;
    let text: string;
    try {
      const token = this.options.bearerTokenFile
        ? (await readFile(this.options.bearerTokenFile, 'utf8')).trim()
        : this.options.bearerToken;
      ({ status, text } = await this.send(url, method, body, token));
    } catch (error) {
      throw new PrometheusError(
        'unreachable',
        `Prometheus at ${this.url} is unreachable: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    let answer: { status?: string; data?: unknown; error?: string };
    try {
      answer = JSON.parse(text);
    } catch {
      // Not Prometheus (a proxy's login page, say): the server is there but this is no answer.
      throw new PrometheusError(
        status >= 200 && status < 300 ? 'query-failed' : 'unreachable',
        `Prometheus at ${this.url} answered HTTP ${status} without a Prometheus response`,
      );
    }
    if (answer.status !== 'success' || answer.data === undefined)
      throw new PrometheusError(
        'query-failed',
        `Prometheus at ${this.url} refused the query (HTTP ${status}): ${answer.error ?? 'no reason given'}`,
      );
    return answer.data;
  }

  private send(
    url: URL,
    method: 'GET' | 'POST',
    body: string | undefined,
    bearerToken: string | undefined,
  ): Promise<{ status: number; text: string }> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers['content-length'] = String(Buffer.byteLength(body));
    }
    if (bearerToken) headers.authorization = `Bearer ${bearerToken}`;
    const signal = AbortSignal.timeout(this.timeoutMs);
    return new Promise((resolve, reject) => {
      const onResponse = (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_RESPONSE_BYTES) {
            response.destroy(new Error(`the answer is larger than ${MAX_RESPONSE_BYTES} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('error', reject);
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 502, text: Buffer.concat(chunks).toString() }),
        );
      };
      const request =
        url.protocol === 'https:'
          ? httpsRequest(
              url,
              {
                method,
                headers,
                signal,
                ...(this.options.ca ? { ca: this.options.ca } : {}),
              },
              onResponse,
            )
          : httpRequest(url, { method, headers, signal }, onResponse);
      request.on('error', (error) =>
        reject(signal.aborted ? new Error(`no answer within ${this.timeoutMs / 1000} s`) : error),
      );
      request.end(body);
    });
  }
}

/** `[time, "value"]` → the value; Prometheus writes NaN and ±Inf as strings. */
function sampleValue(point: unknown): number {
  return Number((point as [number, string])[1]);
}
