/**
 * `GET /api/v1/namespaces/<ns>/pods/<name>/log`: kube-apiserver proxies it to the kubelet of the
 * pod's node; here the node agents' log store answers (`PodLogSource`, wired in embedded.ts).
 * The options and refusals are kube-apiserver's and the kubelet's: `container` (may be left out
 * when the pod has one), `tailLines`, `limitBytes` (the stream ends there, mid-line if it must),
 * `timestamps` (RFC 3339 time, a space, the line), `sinceTime` (lines from that time on, to
 * the second as kube-apiserver passes it on), `follow` (new lines until the container's log
 * closes or the client goes).
 */
import type { FastifyReply } from 'fastify';
import { first } from '../request-options.js';
import { ApiError, badRequest } from '../status.js';
import type { ResourceCall } from './context.js';

/** One line a container wrote. */
export interface PodLogLine {
  time: string;
  text: string;
}

/** Where the containers' logs are kept (the node agents' `ContainerLogStore`). */
export interface PodLogSource {
  lines(namespace: string, pod: string, container: string): readonly PodLogLine[] | undefined;
  follow(
    namespace: string,
    pod: string,
    container: string,
    listener: (line: PodLogLine | 'closed') => void,
  ): () => void;
}

function count(query: ResourceCall['query'], name: string, minimum: number): number | undefined {
  const text = first(query[name]);
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isInteger(value) || value < minimum)
    throw badRequest(
      `${name}: Invalid value: "${text}": must be an integer of at least ${minimum}`,
    );
  return value;
}

const flag = (query: ResourceCall['query'], name: string) => {
  const text = first(query[name]);
  return text === 'true' || text === '1';
};

export function podLog(
  call: ResourceCall,
  name: string,
  source: PodLogSource | undefined,
): FastifyReply | undefined {
  const { reply, query, registry, definition } = call;
  const namespace = call.namespace ?? 'default';
  const pod = registry.get(definition, namespace, name) as {
    spec?: { nodeName?: string; containers?: { name: string }[] };
  };
  const containers = (pod.spec?.containers ?? []).map((container) => container.name);
  const container = first(query.container) || (containers.length === 1 ? containers[0] : undefined);
  if (container === undefined)
    throw badRequest(
      `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`,
    );
  if (!containers.includes(container))
    throw badRequest(`container ${container} is not valid for pod ${name}`);
  const tailLines = count(query, 'tailLines', 0);
  const limitBytes = count(query, 'limitBytes', 1);
  const timestamps = flag(query, 'timestamps');
  const follow = flag(query, 'follow');
  const sinceText = first(query.sinceTime);
  // kube-apiserver passes sinceTime on as a metav1.Time: whole seconds.
  const since = sinceText ? Math.floor(Date.parse(sinceText) / 1000) * 1000 : undefined;
  if (since !== undefined && Number.isNaN(since))
    throw badRequest(`sinceTime: Invalid value: "${sinceText}": must be an RFC 3339 time`);
  const node = pod.spec?.nodeName;
  // kube-apiserver has no kubelet to ask for a pod no node holds: 204, no body at all.
  if (!node) return reply.code(204).send();
  // No node agents beside this server: kube-apiserver's answer when it cannot reach a kubelet.
  if (source === undefined)
    throw new ApiError(500, 'InternalError', `no kubelet answers for node ${node}`);
  const lines = source.lines(namespace, name, container);
  if (lines === undefined)
    throw badRequest(
      `container "${container}" in pod "${name}" is waiting to start: ContainerCreating`,
    );

  let budget = limitBytes ?? Number.POSITIVE_INFINITY;
  /** The bytes of `line` that fit in what `limitBytes` leaves; '' once nothing does. */
  const bounded = (line: PodLogLine): Buffer => {
    const bytes = Buffer.from(`${timestamps ? `${line.time} ` : ''}${line.text}\n`);
    const taken = bytes.length <= budget ? bytes : bytes.subarray(0, budget);
    budget -= taken.length;
    return taken;
  };
  const recent =
    since === undefined ? lines : lines.filter((line) => Date.parse(line.time) >= since);
  const tail = tailLines === undefined ? recent : tailLines === 0 ? [] : recent.slice(-tailLines);
  const head = Buffer.concat(tail.map(bounded));
  if (!follow || budget <= 0) return reply.code(200).type('text/plain').send(head);

  const response = reply.raw;
  reply.hijack();
  response.writeHead(200, { 'content-type': 'text/plain', 'cache-control': 'no-cache, private' });
  response.on('error', () => undefined);
  if (head.length > 0) response.write(head);
  else response.flushHeaders();
  let stop: (() => void) | undefined;
  const finish = () => {
    stop?.();
    if (!response.writableEnded) response.end();
  };
  stop = source.follow(namespace, name, container, (line) => {
    if (response.writableEnded || response.destroyed) return;
    if (line === 'closed') return finish();
    response.write(bounded(line));
    if (budget <= 0) finish();
  });
  response.on('close', () => stop?.());
  return undefined;
}
