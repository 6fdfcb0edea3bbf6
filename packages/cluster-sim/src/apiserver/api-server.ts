/**
 * The HTTP face of the embedded cluster: Kubernetes REST paths on Fastify, Status objects for
 * every error, server-side Tables for kubectl, and watches streamed as newline-delimited JSON.
 * This file creates the server and wires it up; routes.ts maps URLs to the handlers/ of each
 * verb, watch.ts serves watches, responses.ts and request-*.ts read requests and write answers.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { startControllerManager } from '../controller-manager/index.js';
import { DEFAULT_EVENT_TTL_MS, EventExpiry } from './event-expiry.js';
import type { PodLogSource } from './handlers/pod-log.js';
import { ObjectStore } from './object-store.js';
import { QuotaStatus } from './quota-status.js';
import { Registry } from './registry.js';
import { requestWarnings } from './request-options.js';
import { findResource, findResourceByKind } from './resource-table.js';
import { sendError, sendPlainNotFound } from './responses.js';
import { registerRoutes } from './routes.js';
import { loadStateFile, StateFileWriter } from './state-file.js';
import { createApiTransport, type ServingCertificate } from './transport.js';
import { WatchStreams } from './watch.js';

export interface ApiServerOptions {
  /** 0 or absent: a free port. */
  port?: number;
  host?: string;
  /** Where the store is kept across restarts; absent: memory only. */
  stateFile?: string;
  /** Largest request body; bigger ones get 413 (kube-apiserver's default is 3 MiB). */
  maxBodyBytes?: number;
  /** Events kept per resource for watches and continue tokens; older versions get 410. */
  watchWindow?: number;
  /** How often watches with allowWatchBookmarks get a BOOKMARK. */
  bookmarkIntervalMs?: number;
  /**
   * Debounce of state-file writes for changes no request made (GC, event expiry); changes a
   * request made are written before it is answered.
   */
  stateFileDelayMs?: number;
  /** How long an Event is kept after its last write (kube-apiserver's `--event-ttl`, 1 h). */
  eventTtlMs?: number;
  /** The bearer token every request must carry; a random one (32 bytes) if absent. */
  token?: string;
  /** The serving certificate (of an earlier start); a new CA and certificate if absent. */
  certificate?: ServingCertificate;
  /** How long a connection may stay silent before its first byte (10 s if absent). */
  firstByteTimeoutMs?: number;
  /**
   * Run the garbage collector and namespace controller beside the server (default on), as a
   * cluster's kube-controller-manager would; off, deleted owners leave their dependents and
   * terminating namespaces stay.
   */
  controllerManager?: boolean;
  /** Where `pods/<name>/log` is read from (the node agents' store); absent: a 500, as without kubelets. */
  podLogs?: PodLogSource;
}

export interface ApiServer {
  url: string;
  port: number;
  /** The same API over TLS on the same port (kubectl sends a token only over TLS). */
  httpsUrl: string;
  /** `Authorization: Bearer <token>` is required on every request but /healthz, /livez, /readyz. */
  token: string;
  /** Made at start (or given): its CA goes into kubeconfigs as `certificate-authority-data`. */
  certificate: ServingCertificate;
  /** The operations behind the HTTP API, for in-process callers such as a topology loader. */
  registry: Registry;
  close(): Promise<void>;
}

export async function startApiServer(options: ApiServerOptions = {}): Promise<ApiServer> {
  const host = options.host ?? '127.0.0.1';
  const maxBodyBytes = options.maxBodyBytes ?? 3 * 1024 * 1024;
  const bookmarkIntervalMs = options.bookmarkIntervalMs ?? 15_000;
  const store = new ObjectStore(options.watchWindow ?? 1000);
  if (options.stateFile) {
    const snapshot = await loadStateFile(options.stateFile);
    if (snapshot) {
      store.restore(snapshot, (object) =>
        typeof object.apiVersion === 'string' && typeof object.kind === 'string'
          ? findResourceByKind(object.apiVersion, object.kind)
          : undefined,
      );
      const unserved = [...store.unservedKinds()].map(([kind, count]) => `${count} ${kind}`);
      // Kept but not served: say so, or an operator wonders where kubectl's ConfigMaps went.
      if (unserved.length > 0)
        process.stderr.write(
          `cluster-sim: ${options.stateFile} keeps objects of kinds this cluster does not serve, written back unchanged: ${unserved.join(', ')}\n`,
        );
    }
  }
  const registry = new Registry(store);
  registry.ensureDefaultNamespaces();
  registry.resumeAfterRestore();
  const controllerManager =
    options.controllerManager === false ? undefined : startControllerManager(registry);
  const eventDefinition = findResource('', 'v1', 'events');
  if (!eventDefinition) throw new Error('events missing from the resource table');
  const eventExpiry = new EventExpiry(
    store,
    eventDefinition,
    options.eventTtlMs ?? DEFAULT_EVENT_TTL_MS,
  );
  eventExpiry.start();
  const quotaStatus = new QuotaStatus(store);
  quotaStatus.start();
  const stateWriter = options.stateFile
    ? new StateFileWriter(
        options.stateFile,
        () => store.snapshot(),
        options.stateFileDelayMs ?? 1000,
      )
    : undefined;
  if (stateWriter) {
    store.onChange = () => stateWriter.schedule();
    stateWriter.schedule();
  }

  const transport = await createApiTransport({
    host,
    ...(options.token !== undefined ? { token: options.token } : {}),
    ...(options.certificate !== undefined ? { certificate: options.certificate } : {}),
    ...(options.firstByteTimeoutMs !== undefined
      ? { firstByteTimeoutMs: options.firstByteTimeoutMs }
      : {}),
  });
  const app: FastifyInstance = Fastify({
    serverFactory: transport.serverFactory,
    bodyLimit: maxBodyBytes,
    forceCloseConnections: true,
    logger: false,
  });
  const watches = new WatchStreams();
  let serverAddress = `${host}:0`;

  // Bodies stay raw bytes: the handler decodes them by media type and answers with a Status.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

  app.setErrorHandler((error, _request, reply) => sendError(reply, error, maxBodyBytes));
  app.addHook('onSend', async (request, reply) => {
    // An answered write is on the disk (see state-file.ts): commit before the answer goes out.
    if (stateWriter && request.method !== 'GET' && request.method !== 'HEAD') {
      await stateWriter.commit();
    }
    const warnings = requestWarnings.get(request.raw);
    if (warnings && warnings.length > 0) {
      reply.header(
        'warning',
        warnings.map((warning) => `299 - "${warning.replace(/["\\]/g, '\\$&')}"`),
      );
    }
  });
  app.setNotFoundHandler((_request, reply) => sendPlainNotFound(reply));

  registerRoutes(app, {
    registry,
    watches,
    bookmarkIntervalMs,
    serverAddress: () => serverAddress,
    podLogs: options.podLogs,
  });

  await app.listen({ port: options.port ?? 0, host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
  serverAddress = `${host}:${port}`;

  return {
    url: `http://${host}:${port}`,
    httpsUrl: `https://${host}:${port}`,
    port,
    token: transport.token,
    certificate: transport.certificate,
    registry,
    close: async () => {
      eventExpiry.stop();
      quotaStatus.stop();
      await controllerManager?.stop();
      registry.stop();
      watches.closeAll();
      app.server.closeAllConnections();
      await app.close();
      await stateWriter?.flush();
    },
  };
}
