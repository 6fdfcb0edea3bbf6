import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeError, toKubeError } from './errors.js';

/** A container's log as `GET …/pods/<name>/log` takes it (kube's PodLogOptions, the ones we use). */
export interface PodLogRequest {
  namespace: string;
  pod: string;
  container: string;
  tailLines?: number;
  /** Bytes the whole answer may carry: the API server (the kubelet) ends it there. */
  limitBytes?: number;
  follow?: boolean;
  timestamps?: boolean;
  /** Only lines from this time on (RFC 3339): where a reopened follow continues. */
  sinceTime?: string;
}

/** Bytes of a refusal's Status body read at most: an answer that is not one is not read on. */
const MAX_STATUS_BYTES = 64 * 1024;

/**
 * Opens a container's log with `kubeConfig`'s identity (an operator's own under per-user auth):
 * resolves with the streaming body once the API server answered 200, rejects with a `KubeError`
 * read from its Status otherwise (a 403 names the verb and resource like any other call), or
 * with code 0 when it did not answer. client-node's `Log` class gives no Status of a refusal but
 * a 500's and cannot be cancelled before the API server answers (kube-apiserver dials the
 * kubelet first, which can take long): `signal` here ends the call at any point.
 */
export async function openPodLog(
  kubeConfig: KubeConfig,
  request: PodLogRequest,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  const server = kubeConfig.getCurrentCluster()?.server;
  if (!server) throw new KubeError(0, 'ServiceUnavailable', 'kubeconfig has no current cluster');
  const { namespace, pod, container } = request;
  const url = new URL(
    `${server.replace(/\/$/, '')}/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(pod)}/log`,
  );
  url.searchParams.set('container', container);
  if (request.tailLines !== undefined) url.searchParams.set('tailLines', String(request.tailLines));
  if (request.limitBytes !== undefined)
    url.searchParams.set('limitBytes', String(request.limitBytes));
  if (request.sinceTime !== undefined) url.searchParams.set('sinceTime', request.sinceTime);
  if (request.follow) url.searchParams.set('follow', 'true');
  if (request.timestamps) url.searchParams.set('timestamps', 'true');
  const options: https.RequestOptions = {};
  await kubeConfig.applyToHTTPSOptions(options);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<IncomingMessage>((resolve, reject) => {
    const call = transport.request(
      url,
      { ...options, method: 'GET', signal, headers: { ...options.headers, accept: '*/*' } },
      (response) => {
        if (response.statusCode === 200) return resolve(response);
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          body += chunk;
          if (body.length > MAX_STATUS_BYTES) response.destroy();
        });
        const code = response.statusCode ?? 0;
        // 204: kube-apiserver's answer for a pod no node holds yet (no kubelet to ask).
        if (code === 204) body ||= 'the pod has no node yet: no container log';
        // A Status body says what went wrong; any other answer is quoted as it came.
        const refuse = () =>
          reject(
            toKubeError(Object.assign(new Error(body.trim() || `HTTP ${code}`), { code, body })),
          );
        response.on('end', refuse);
        response.on('close', refuse);
      },
    );
    call.on('error', (error) => reject(toKubeError(error)));
    call.end();
  });
}
