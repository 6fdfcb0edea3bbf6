import {
  type KubeConfig,
  type V1Deployment,
  type V1Node,
  type V1Pod,
  type V1ResourceQuota,
  VersionApi,
} from '@kubernetes/client-node';
import {
  type KubeClients,
  makeClients,
  type SharedInformer,
  SharedInformerFactory,
  toKubeError,
} from '@mgpu/kube-client';
import type { MgpuNodeObject } from '@mgpu/shared';
import { PodReads } from './pod-reads.js';
import { WorkloadObjects } from './workload-objects.js';

/** The pod informer's index by `spec.nodeName`: one for every reader of pods by node. */
const POD_NODE_INDEX = 'spec.nodeName';
/** Where that index keeps the pods no node holds yet. */
const UNSCHEDULED = '';

/**
 * How procedures reach the Kubernetes API for workloads, pods, nodes and quotas: typed calls with
 * Status errors turned into `KubeError`, and one shared informer per resource for everything that
 * watches. It is not the only caller: who an operator is and what they may do (TokenReview in
 * apps/bff's `identity/token-review.ts`, access reviews in `identity/access-reviews.ts`), the
 * leader's Lease (`LeaderElector`) and the objects replicas share (the history ConfigMap, the
 * revocations Secret) make their own calls with `@kubernetes/client-node`.
 */
export class ClusterClient {
  private readonly versionApi: VersionApi;
  private readonly core: KubeClients['core'];
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
  /** One pod's Events and container log, read with this client's identity (not informers). */
  readonly podReads: PodReads;

  /**
   * `modelLabel`: the node label naming a GPU model (as `BffContext.modelLabel`), for reading
   * forms. With `informersOf`, a client whose calls go out with `kubeConfig` (an operator's own
   * identity) while every informer is `informersOf`'s: the shared watches stay one per resource
   * per process, on the console's account (`forOperator`).
   */
  constructor(
    readonly kubeConfig: KubeConfig,
    options: { modelLabel?: string } = {},
    informersOf?: ClusterClient,
  ) {
    // Keep-alive connections with the kubeconfig's credentials: client-node alone opens a new
    // TCP (and TLS) connection per call, which was most of a create's time.
    const clients = makeClients(kubeConfig);
    this.versionApi = kubeConfig.makeApiClient(VersionApi);
    this.core = clients.core;
    this.informers = informersOf?.informers ?? new SharedInformerFactory(kubeConfig, clients);
    this.pods = this.informers.pods();
    this.nodes = this.informers.nodes();
    this.deployments = this.informers.deployments();
    this.workloads = informersOf
      ? informersOf.workloads.withClients(clients)
      : new WorkloadObjects(clients, this.informers, options);
    this.resourceQuotas = this.informers.resourceQuotas();
    this.podReads = new PodReads(clients);
    // A real VKE cluster has no node agent of ours: the factory lists an absent resource as empty.
    this.mgpuNodes = this.informers.mgpuNodes();
  }

  /** The pods on `node`, from the informer's index (a node agent's report touches only them). */
  podsOnNode(node: string): readonly V1Pod[] {
    return node === UNSCHEDULED ? [] : this.podsByNode().get(node);
  }

  /** The pods no node holds yet, from the same index: few, where the cache holds thousands. */
  unscheduledPods(): readonly V1Pod[] {
    return this.podsByNode().get(UNSCHEDULED);
  }

  private podsByNode() {
    return this.pods.index(POD_NODE_INDEX, (pod) => pod.spec?.nodeName || UNSCHEDULED);
  }

  /**
   * This cluster as an operator: API calls (reads, dry runs, creates, updates, deletes) with
   * their KubeConfig, so their RBAC decides; the informers stay this client's. Never started
   * or stopped itself: the console's client owns the informers.
   */
  forOperator(kubeConfig: KubeConfig): ClusterClient {
    return new ClusterClient(kubeConfig, {}, this);
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

  /** The names of every namespace, as this client's identity may list them. */
  namespaceNames(): Promise<string[]> {
    return this.call(async () =>
      (await this.core.listNamespace()).items.flatMap((namespace) =>
        namespace.metadata?.name ? [namespace.metadata.name] : [],
      ),
    );
  }

  version(): Promise<{ gitVersion: string; platform: string }> {
    return this.call(async () => {
      const info = await this.versionApi.getCode();
      return { gitVersion: info.gitVersion, platform: info.platform };
    });
  }
}
