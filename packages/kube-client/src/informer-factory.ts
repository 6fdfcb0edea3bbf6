import type {
  KubeConfig,
  KubernetesListObject,
  KubernetesObject,
  V1ControllerRevision,
  V1Deployment,
  V1Job,
  V1Node,
  V1Pod,
  V1ReplicaSet,
  V1ResourceQuota,
  V1StatefulSet,
} from '@kubernetes/client-node';
import { MGPU_NODE_RESOURCE, type MgpuNodeObject } from '@mgpu/shared';
import { type KubeClients, makeClients } from './clients.js';
import { isNotFound } from './errors.js';
import { SharedInformer } from './informer.js';

const emptyList = <T extends KubernetesObject>(): KubernetesListObject<T> => ({
  apiVersion: 'v1',
  kind: 'List',
  metadata: {},
  items: [],
});

/**
 * One SharedInformer per resource per process, handed to every part that watches it (client-go's
 * SharedInformerFactory): the scheduler, node agents and workload controllers of one embedded
 * cluster read one pod cache, as the BFF's procedures and live feeds do theirs. An informer is
 * made on first ask; `start()` starts every one made so far, `stop()` ends them all.
 */
export class SharedInformerFactory {
  readonly clients: KubeClients;
  private readonly informers = new Map<string, SharedInformer<KubernetesObject>>();

  constructor(
    readonly kubeConfig: KubeConfig,
    clients?: KubeClients,
  ) {
    this.clients = clients ?? makeClients(kubeConfig);
  }

  /** The informer of `path` (a cluster-wide list+watch URL), made once with `list`. */
  informerFor<T extends KubernetesObject>(
    path: string,
    list: () => Promise<KubernetesListObject<T>>,
  ): SharedInformer<T> {
    let informer = this.informers.get(path) as SharedInformer<T> | undefined;
    if (informer === undefined) {
      informer = new SharedInformer<T>(this.kubeConfig, path, list);
      this.informers.set(path, informer as unknown as SharedInformer<KubernetesObject>);
    }
    return informer;
  }

  pods(): SharedInformer<V1Pod> {
    return this.informerFor('/api/v1/pods', () => this.clients.core.listPodForAllNamespaces());
  }

  nodes(): SharedInformer<V1Node> {
    return this.informerFor('/api/v1/nodes', () => this.clients.core.listNode());
  }

  resourceQuotas(): SharedInformer<V1ResourceQuota> {
    return this.informerFor('/api/v1/resourcequotas', () =>
      this.clients.core.listResourceQuotaForAllNamespaces(),
    );
  }

  deployments(): SharedInformer<V1Deployment> {
    return this.informerFor('/apis/apps/v1/deployments', () =>
      this.clients.apps.listDeploymentForAllNamespaces(),
    );
  }

  replicaSets(): SharedInformer<V1ReplicaSet> {
    return this.informerFor('/apis/apps/v1/replicasets', () =>
      this.clients.apps.listReplicaSetForAllNamespaces(),
    );
  }

  statefulSets(): SharedInformer<V1StatefulSet> {
    return this.informerFor('/apis/apps/v1/statefulsets', () =>
      this.clients.apps.listStatefulSetForAllNamespaces(),
    );
  }

  /** A StatefulSet's revisions (the embedded StatefulSet controller keeps them, as upstream's). */
  controllerRevisions(): SharedInformer<V1ControllerRevision> {
    return this.informerFor('/apis/apps/v1/controllerrevisions', () =>
      this.clients.apps.listControllerRevisionForAllNamespaces(),
    );
  }

  jobs(): SharedInformer<V1Job> {
    return this.informerFor('/apis/batch/v1/jobs', () =>
      this.clients.batch.listJobForAllNamespaces(),
    );
  }

  /** MgpuNode objects; a cluster without the resource (a real VKE one has no agent of ours) lists none. */
  mgpuNodes(): SharedInformer<MgpuNodeObject> {
    const { group, version, plural } = MGPU_NODE_RESOURCE;
    return this.informerFor<MgpuNodeObject>(`/apis/${group}/${version}/${plural}`, async () => {
      try {
        return (await this.clients.custom.listClusterCustomObject({
          group,
          version,
          plural,
        })) as KubernetesListObject<MgpuNodeObject>;
      } catch (error) {
        if (isNotFound(error)) return emptyList<MgpuNodeObject>();
        throw error;
      }
    });
  }

  /** Starts every informer made so far; resolves when each had its first try (see `health`). */
  async start(): Promise<void> {
    await Promise.all([...this.informers.values()].map((informer) => informer.start()));
  }

  async stop(): Promise<void> {
    await Promise.all([...this.informers.values()].map((informer) => informer.stop()));
  }
}
