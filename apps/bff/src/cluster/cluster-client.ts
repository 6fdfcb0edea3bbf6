import {
  type AppsV1Api,
  type CoreV1Api,
  type CustomObjectsApi,
  type KubeConfig,
  type KubernetesListObject,
  type V1Deployment,
  type V1Node,
  type V1Pod,
  type V1ResourceQuota,
  VersionApi,
} from '@kubernetes/client-node';
import { isNotFound, makeClients, SharedInformer, toKubeError } from '@mgpu/kube-client';
import { MGPU_NODE_RESOURCE, type MgpuNodeObject } from '@mgpu/shared';
import { WorkloadObjects } from './workload-objects.js';

/**
 * The one module that touches the Kubernetes API: typed calls with Status errors turned into
 * `KubeError`, and one shared informer per resource for everything that watches.
 */
export class ClusterClient {
  private readonly core: CoreV1Api;
  private readonly apps: AppsV1Api;
  private readonly custom: CustomObjectsApi;
  private readonly versionApi: VersionApi;
  readonly pods: SharedInformer<V1Pod>;
  readonly nodes: SharedInformer<V1Node>;
  readonly deployments: SharedInformer<V1Deployment>;
  readonly mgpuNodes: SharedInformer<MgpuNodeObject>;
  /** StatefulSets and Jobs beside the Deployments: the kinds the console makes (spec §8). */
  readonly workloads: WorkloadObjects;
  /** ResourceQuotas of every namespace: the `quota-exceeded` rule and the used / limit figures. */
  readonly resourceQuotas: SharedInformer<V1ResourceQuota>;

  /**
   * With `informersOf`, a client whose calls go out with `kubeConfig` (an operator's own
   * identity) while every informer is `informersOf`'s: the shared watches stay one per resource
   * per process, on the console's account (`forOperator`).
   */
  constructor(
    readonly kubeConfig: KubeConfig,
    informersOf?: ClusterClient,
  ) {
    // Keep-alive connections with the kubeconfig's credentials: client-node alone opens a new
    // TCP (and TLS) connection per call, which was most of a create's time.
    const clients = makeClients(kubeConfig);
    this.core = clients.core;
    this.apps = clients.apps;
    this.custom = clients.custom;
    this.versionApi = kubeConfig.makeApiClient(VersionApi);
    if (informersOf) {
      this.pods = informersOf.pods;
      this.nodes = informersOf.nodes;
      this.deployments = informersOf.deployments;
      this.workloads = informersOf.workloads.withClients(clients);
      this.resourceQuotas = informersOf.resourceQuotas;
      this.mgpuNodes = informersOf.mgpuNodes;
      return;
    }
    this.pods = new SharedInformer(kubeConfig, '/api/v1/pods', () =>
      this.core.listPodForAllNamespaces(),
    );
    this.nodes = new SharedInformer(kubeConfig, '/api/v1/nodes', () => this.core.listNode());
    this.deployments = new SharedInformer(kubeConfig, '/apis/apps/v1/deployments', () =>
      this.apps.listDeploymentForAllNamespaces(),
    );
    this.workloads = new WorkloadObjects(kubeConfig, clients, this.deployments);
    this.resourceQuotas = new SharedInformer(kubeConfig, '/api/v1/resourcequotas', () =>
      this.core.listResourceQuotaForAllNamespaces(),
    );
    const { group, version, plural } = MGPU_NODE_RESOURCE;
    this.mgpuNodes = new SharedInformer<MgpuNodeObject>(
      kubeConfig,
      `/apis/${group}/${version}/${plural}`,
      // A real VKE cluster has no node agent of ours: an absent resource is an empty list.
      async () => {
        try {
          return (await this.custom.listClusterCustomObject({
            group,
            version,
            plural,
          })) as KubernetesListObject<MgpuNodeObject>;
        } catch (error) {
          if (isNotFound(error)) return { apiVersion: 'v1', kind: 'List', metadata: {}, items: [] };
          throw error;
        }
      },
    );
  }

  /**
   * This cluster as an operator: API calls (reads, dry runs, creates, updates, deletes) with
   * their KubeConfig, so their RBAC decides; the informers stay this client's. Never started
   * or stopped itself: the console's client owns the informers.
   */
  forOperator(kubeConfig: KubeConfig): ClusterClient {
    return new ClusterClient(kubeConfig, this);
  }

  /** Starts every informer the procedures read from; resolves when each had its first try. */
  async startInformers(): Promise<void> {
    await Promise.all([
      this.pods.start(),
      this.nodes.start(),
      this.deployments.start(),
      this.mgpuNodes.start(),
      this.workloads.start(),
      this.resourceQuotas.start(),
    ]);
  }

  async stopInformers(): Promise<void> {
    await Promise.all([
      this.pods.stop(),
      this.nodes.stop(),
      this.deployments.stop(),
      this.mgpuNodes.stop(),
      this.workloads.stop(),
      this.resourceQuotas.stop(),
    ]);
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw toKubeError(error);
    }
  }

  version(): Promise<{ gitVersion: string; platform: string }> {
    return this.call(async () => {
      const info = await this.versionApi.getCode();
      return { gitVersion: info.gitVersion, platform: info.platform };
    });
  }

  createDeployment(namespace: string, body: V1Deployment, dryRun: boolean): Promise<V1Deployment> {
    return this.call(() =>
      this.apps.createNamespacedDeployment({
        namespace,
        body,
        fieldManager: 'mgpu-console',
        ...(dryRun ? { dryRun: 'All' } : {}),
      }),
    );
  }

  /** Deployments of every namespace with these labels, from the API server (not the informer). */
  listDeploymentsLabelled(labelSelector: string): Promise<V1Deployment[]> {
    return this.call(
      async () => (await this.apps.listDeploymentForAllNamespaces({ labelSelector })).items,
    );
  }

  readDeployment(namespace: string, name: string): Promise<V1Deployment> {
    return this.call(() => this.apps.readNamespacedDeployment({ namespace, name }));
  }

  deleteDeployment(namespace: string, name: string): Promise<void> {
    return this.call(async () => {
      await this.apps.deleteNamespacedDeployment({
        namespace,
        name,
        body: { propagationPolicy: 'Foreground' },
      });
    });
  }
}
