import http from 'node:http';
import https from 'node:https';
import {
  ApiException,
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  CustomObjectsApi,
  createConfiguration,
  type KubeConfig,
  type KubernetesListObject,
  type KubernetesObject,
  makeInformer,
  PatchStrategy,
  type RequestContext,
  type SecurityAuthentication,
  ServerConfiguration,
  setHeaderOptions,
} from '@kubernetes/client-node';

/** The typed clients every controller uses; nothing else talks to the API. */
export interface KubeClients {
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  apps: AppsV1Api;
  batch: BatchV1Api;
  custom: CustomObjectsApi;
}

/**
 * The kubeconfig's authentication with connections kept alive. client-node 1.x gives every
 * request a fresh agent, i.e. a new TCP (and TLS) connection per call: at hundreds of pods a
 * second that is most of the cost. Headers and certificates still come from the kubeconfig.
 */
function keepAliveAuthentication(kubeConfig: KubeConfig): SecurityAuthentication {
  const server = kubeConfig.getCurrentCluster()?.server ?? '';
  const proxied = kubeConfig.getCurrentCluster()?.proxyUrl !== undefined;
  let shared: http.Agent | undefined;
  return {
    getName: () => 'default',
    async applySecurityAuthentication(context: RequestContext) {
      await kubeConfig.applySecurityAuthentication(context);
      const fresh = context.getAgent();
      if (proxied || fresh === undefined) return;
      shared ??= server.startsWith('https:')
        ? new https.Agent({ ...(fresh as https.Agent).options, keepAlive: true, maxSockets: 64 })
        : new http.Agent({ keepAlive: true, maxSockets: 64 });
      context.setAgent(shared);
    },
  };
}

export function makeClients(kubeConfig: KubeConfig): KubeClients {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error('kubeconfig has no current cluster');
  const configuration = createConfiguration({
    baseServer: new ServerConfiguration(cluster.server, {}),
    authMethods: { default: keepAliveAuthentication(kubeConfig) },
  });
  return {
    kubeConfig,
    core: new CoreV1Api(configuration),
    apps: new AppsV1Api(configuration),
    batch: new BatchV1Api(configuration),
    custom: new CustomObjectsApi(configuration),
  };
}

export const mergePatch = () => setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

export const statusCode = (error: unknown): number | undefined =>
  error instanceof ApiException ? error.code : undefined;
export const isNotFound = (error: unknown) => statusCode(error) === 404;
export const isConflict = (error: unknown) => statusCode(error) === 409;

/** namespace/name, the key of every queue and cache here. */
export const objectKey = (object: KubernetesObject): string =>
  object.metadata?.namespace
    ? `${object.metadata.namespace}/${object.metadata.name ?? ''}`
    : (object.metadata?.name ?? '');

export function splitKey(key: string): { namespace: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0
    ? { namespace: '', name: key }
    : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export interface WatchedCache<T extends KubernetesObject> {
  get(name: string, namespace?: string): T | undefined;
  list(namespace?: string): readonly T[];
  /**
   * The objects whose controller (the ownerReference with controller=true) has this uid, from
   * an index kept as the cache changes (client-go's controller indexers); empty unless the
   * informer was started with `indexControllers`.
   */
  controlledBy(uid: string): readonly T[];
  stop(): Promise<void>;
}

export interface InformerHandlers<T> {
  add?: (object: T) => void;
  update?: (object: T) => void;
  delete?: (object: T) => void;
}

/**
 * An informer (list, then watch from the list's resourceVersion) that restarts itself after a
 * watch error: client-node's informer stops on errors other than 410 Gone, which it re-lists.
 * Resolves once the first list is in the cache.
 */
export async function startInformer<T extends KubernetesObject>(
  kubeConfig: KubeConfig,
  path: string,
  list: () => Promise<KubernetesListObject<T>>,
  handlers: InformerHandlers<T>,
  options: { indexControllers?: boolean } = {},
): Promise<WatchedCache<T>> {
  const informer = makeInformer<T>(kubeConfig, path, list);
  let stopped = false;
  const controllers = new ControllerIndex<T>();
  if (options.indexControllers) {
    // Registered before the handlers: the index is current when they run.
    informer.on('add', (object) => controllers.put(object));
    informer.on('update', (object) => controllers.put(object));
    informer.on('delete', (object) => controllers.remove(object));
  }
  if (handlers.add) informer.on('add', handlers.add);
  if (handlers.update) informer.on('update', handlers.update);
  if (handlers.delete) informer.on('delete', handlers.delete);
  informer.on('error', () => {
    if (stopped) return;
    const timer = setTimeout(() => {
      if (!stopped) informer.start().catch(() => undefined);
    }, 500);
    timer.unref?.();
  });
  await informer.start();
  return {
    get: (name, namespace) => informer.get(name, namespace),
    list: (namespace) => informer.list(namespace),
    controlledBy: (uid) => controllers.controlledBy(uid),
    stop: async () => {
      stopped = true;
      await informer.stop();
    },
  };
}

/** Objects by their controller's uid; an object whose controller changes moves with it. */
class ControllerIndex<T extends KubernetesObject> {
  private readonly byController = new Map<string, Map<string, T>>();
  private readonly controllerOfKey = new Map<string, string>();

  put(object: T): void {
    const key = objectKey(object);
    const uid = controllerOf(object)?.uid;
    this.drop(key, uid);
    if (uid === undefined) return;
    this.controllerOfKey.set(key, uid);
    let objects = this.byController.get(uid);
    if (!objects) {
      objects = new Map();
      this.byController.set(uid, objects);
    }
    objects.set(key, object);
  }

  remove(object: T): void {
    this.drop(objectKey(object), undefined);
  }

  controlledBy(uid: string): readonly T[] {
    return [...(this.byController.get(uid)?.values() ?? [])];
  }

  /** Forgets `key` under its previous controller, unless that is `keep`. */
  private drop(key: string, keep: string | undefined): void {
    const before = this.controllerOfKey.get(key);
    if (before === undefined || before === keep) return;
    this.controllerOfKey.delete(key);
    const objects = this.byController.get(before);
    objects?.delete(key);
    if (objects?.size === 0) this.byController.delete(before);
  }
}

/** The controller that owns an object (its ownerReference with controller=true). */
export function controllerOf(
  object: KubernetesObject,
): { kind: string; name: string; uid: string } | undefined {
  const owner = object.metadata?.ownerReferences?.find(
    (reference) => reference.controller === true,
  );
  return owner ? { kind: owner.kind, name: owner.name, uid: owner.uid } : undefined;
}
