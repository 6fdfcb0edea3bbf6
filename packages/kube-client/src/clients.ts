import http from 'node:http';
import https from 'node:https';
import {
  AppsV1Api,
  BatchV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  createConfiguration,
  type KubeConfig,
  type KubernetesObject,
  PatchStrategy,
  type RequestContext,
  type SecurityAuthentication,
  ServerConfiguration,
  setHeaderOptions,
} from '@kubernetes/client-node';

/** The typed clients the controllers and the BFF use; nothing else talks to the API. */
export interface KubeClients {
  kubeConfig: KubeConfig;
  core: CoreV1Api;
  apps: AppsV1Api;
  /** Jobs (spec §8 kinds). */
  batch: BatchV1Api;
  custom: CustomObjectsApi;
  /** Leases, for leader election among the console's replicas. */
  coordination: CoordinationV1Api;
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
    coordination: new CoordinationV1Api(configuration),
  };
}

export const mergePatch = () => setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

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
