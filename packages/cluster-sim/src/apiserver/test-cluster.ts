/**
 * The cluster the API tests run against: the embedded API server on a random loopback port,
 * or — when MGPU_TEST_KUBECONFIG names a kubeconfig — that (real) cluster instead. Tests talk
 * to it only through @kubernetes/client-node, kubectl and raw HTTP, never the store, so the
 * same suite can hold the sim to a real kube-apiserver's behaviour.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiException, KubeConfig } from '@kubernetes/client-node';
import { testTier } from '@mgpu/shared/test-tier';
import { kubeConfigForClients } from '../embedded.js';
import { type ApiServerOptions, startApiServer } from './api-server.js';
import type { StatusObject } from './status.js';

export interface TestCluster {
  kubeConfig: KubeConfig;
  kubeconfigPath: string;
  /** True when the cluster is the embedded sim (sim-only knobs such as a tiny watch window apply). */
  isSim: boolean;
  serverUrl: string;
  /** The leading kubectl arguments (kubeconfig, a private discovery cache) for spawning it directly. */
  kubectlBaseArgs: string[];
  kubectl(args: string[], input?: string): Promise<KubectlResult>;
  request(method: string, path: string, options?: RawRequestOptions): Promise<RawResponse>;
  /** A fresh namespace for one test file, so suites do not see each other's objects. */
  createNamespace(prefix: string): Promise<string>;
  /** Stops the sim and starts it again on the same port and state file (sim only). */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RawRequestOptions {
  body?: string | Buffer;
  contentType?: string;
  accept?: string;
}

export interface RawResponse {
  status: number;
  contentType: string;
  headers: http.IncomingHttpHeaders;
  text: string;
  json(): unknown;
}

/**
 * A schedulerName no scheduler serves: test pods stay Pending and unbound on any cluster, so
 * a real cluster's schedulers and node agents leave them alone.
 */
export const UNSCHEDULED = 'mgpu-test-unscheduled';

export const KUBECTL = process.env.MGPU_TEST_KUBECTL ?? '/usr/bin/kubectl';

export async function startTestCluster(simOptions: ApiServerOptions = {}): Promise<TestCluster> {
  const workDir = await mkdtemp(join(tmpdir(), 'mgpu-apiserver-test-'));
  const tier = testTier();
  let server: Awaited<ReturnType<typeof startApiServer>> | undefined;
  let kubeconfigPath: string;
  const stateFile = simOptions.stateFile ?? join(workDir, 'state.json');
  if (tier.kind === 'real') {
    kubeconfigPath = tier.kubeconfig;
  } else {
    server = await startApiServer({ ...simOptions, stateFile });
    kubeconfigPath = join(workDir, 'kubeconfig');
    // The kubeconfig `pnpm sim` writes: kubectl and client-node over TLS, with the token.
    await writeFile(kubeconfigPath, kubeConfigForClients(server).exportConfig());
  }
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromString(await readFile(kubeconfigPath, 'utf8'));
  const serverUrl = kubeConfig.getCurrentCluster()?.server ?? '';
  const namespaces: string[] = [];

  const kubectlBaseArgs = [
    `--kubeconfig=${kubeconfigPath}`,
    `--cache-dir=${join(workDir, 'kube-cache')}`,
  ];
  const kubectl = (args: string[], input?: string): Promise<KubectlResult> =>
    new Promise((resolve) => {
      const child = execFile(
        KUBECTL,
        [...kubectlBaseArgs, ...args],
        { timeout: 30_000, env: { ...process.env, HOME: workDir } },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
          resolve({ code, stdout, stderr });
        },
      );
      if (input !== undefined) child.stdin?.end(input);
    });

  const request = async (
    method: string,
    path: string,
    options: RawRequestOptions = {},
  ): Promise<RawResponse> => {
    const url = new URL(path, serverUrl);
    const requestOptions: https.RequestOptions = { method, headers: {} };
    await kubeConfig.applyToHTTPSOptions(requestOptions);
    const headers: Record<string, string> = {
      ...(requestOptions.headers as Record<string, string>),
    };
    if (options.contentType) headers['content-type'] = options.contentType;
    headers.accept = options.accept ?? 'application/json';
    const transport = url.protocol === 'https:' ? https : http;
    // applyToHTTPSOptions adds an https Agent, which a plain http request cannot use.
    if (transport === http) delete requestOptions.agent;
    // Large bodies wait for "100 Continue": a server refusing them up front (413) then never
    // has to reset a connection we are still writing to.
    const large = options.body !== undefined && options.body.length > 1024 * 1024;
    if (large) headers.expect = '100-continue';
    // Node sends a DELETE body neither chunked nor with a length unless told: the server would
    // read the DeleteOptions as the next request on the connection.
    if (method === 'DELETE' && options.body !== undefined)
      headers['content-length'] = String(Buffer.byteLength(options.body));
    return new Promise((resolve, reject) => {
      let answered = false;
      const outgoing = transport.request(url, { ...requestOptions, headers }, (response) => {
        answered = true;
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: response.statusCode ?? 0,
            contentType: response.headers['content-type'] ?? '',
            headers: response.headers,
            text,
            json: () => JSON.parse(text) as unknown,
          });
        });
        response.on('error', reject);
      });
      outgoing.on('error', (error) => {
        if (!answered) reject(error);
      });
      if (large) outgoing.on('continue', () => outgoing.end(options.body));
      else outgoing.end(options.body);
    });
  };

  const cluster: TestCluster = {
    kubeConfig,
    kubeconfigPath,
    isSim: server !== undefined,
    serverUrl,
    kubectlBaseArgs,
    kubectl,
    request,
    createNamespace: async (prefix) => {
      const name = `${prefix}-${randomBytes(3).toString('hex')}`;
      const response = await request('POST', '/api/v1/namespaces', {
        body: JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
        contentType: 'application/json',
      });
      if (response.status !== 201)
        throw new Error(`could not create namespace ${name}: ${response.text}`);
      namespaces.push(name);
      return name;
    },
    restart: async () => {
      if (!server) throw new Error('restart needs the embedded sim');
      const port = server.port;
      await server.close();
      // The same token and certificate, as a kube-apiserver restarted with the same flags.
      const { token, certificate } = server;
      server = await startApiServer({ ...simOptions, stateFile, port, token, certificate });
    },
    close: async () => {
      if (!server) {
        for (const name of namespaces) await request('DELETE', `/api/v1/namespaces/${name}`);
      }
      await server?.close();
      await rm(workDir, { recursive: true, force: true });
    },
  };
  return cluster;
}

/** The Status a client-node call failed with (client-node keeps the body as text). */
export function statusOf(error: unknown): StatusObject {
  if (!(error instanceof ApiException)) throw error;
  const body: unknown = typeof error.body === 'string' ? JSON.parse(error.body) : error.body;
  return body as StatusObject;
}

/** Runs `call`, which must fail, and returns the Status it failed with. */
export async function expectStatus(call: Promise<unknown>): Promise<StatusObject> {
  try {
    await call;
  } catch (error) {
    return statusOf(error);
  }
  throw new Error('expected the API call to fail with a Status');
}

/** Polls until `check` returns a value other than undefined (GC and watches are asynchronous). */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 5000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
