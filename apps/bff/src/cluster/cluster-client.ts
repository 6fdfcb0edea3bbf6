import {
  type KubeConfig,
  type V1Deployment,
  type V1Node,
  type V1Pod,
  type V1ResourceQuota,
  VersionApi,
} from '@kubernetes/client-node';
import {
  makeClients,
  type SharedInformer,
  SharedInformerFactory,
  toKubeError,
} from '@mgpu/kube-client';
import type { MgpuNodeObject } from '@mgpu/shared';
import { WorkloadObjects } from './workload-objects.js';

/**
 * The one module that touches the Kubernetes API: typed calls with Status errors turned into
 * `KubeError`, and one shared informer per resource for everything that watches.
 */
export class ClusterClient {
  private readonly versionApi: VersionApi;
  readonly pods: SharedInformer<V1Pod>;
  readonly nodes: SharedInformer<V1Node>;
  readonly deployments: SharedInformer<V1Deployment>;
  readonly mgpuNodes: SharedInformer<MgpuNodeObject>;
  /** StatefulSets and Jobs beside the Deployments: the kinds the console makes (spec §8). */
  readonly workloads: WorkloadObjects;
  /** ResourceQuotas of every namespace: the `quota-exceeded` rule and the used / limit figures. */
  readonly resourceQuotas: SharedInformer<V1ResourceQuota>;
  /** The process's one informer per resource: every field above comes from it. */
  readonly informers: SharedInformerFactory;

  constructor(readonly kubeConfig: KubeConfig) {
    // Keep-alive connections with the kubeconfig's credentials: client-node alone opens a new
    // TCP (and TLS) connection per call, which was most of a create's time.
    const clients = makeClients(kubeConfig);
    this.versionApi = kubeConfig.makeApiClient(VersionApi);
    this.informers = new SharedInformerFactory(kubeConfig, clients);
    this.pods = this.informers.pods();
    this.nodes = this.informers.nodes();
    this.deployments = this.informers.deployments();
    this.workloads = new WorkloadObjects(clients, this.informers);
    this.resourceQuotas = this.informers.resourceQuotas();
    // A real VKE cluster has no node agent of ours: the factory lists an absent resource as empty.
    this.mgpuNodes = this.informers.mgpuNodes();
  }

  /** Starts every informer the procedures read from; resolves when each had its first try. */
  startInformers(): Promise<void> {
    return this.informers.start();
  }

  stopInformers(): Promise<void> {
    return this.informers.stop();
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
}
