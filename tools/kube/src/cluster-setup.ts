import { readFileSync } from 'node:fs';
import {
  ApiException,
  ApiextensionsV1Api,
  CoreV1Api,
  type KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  loadAllYaml,
  PatchStrategy,
  setHeaderOptions,
  type V1Pod,
} from '@kubernetes/client-node';
import {
  type Topology,
  topologyNamespaces,
  topologyNodes,
  topologyPodObject,
} from '@mgpu/cluster-sim';

const TOOLS_KUBE = new URL('..', import.meta.url).pathname;
export const CRD_FILE = `${TOOLS_KUBE}mgpu-crd.yaml`;
export const CLUSTER_ROLES_FILE = `${TOOLS_KUBE}rbac/console-clusterrole.yaml`;
export const TEST_BINDINGS_FILE = `${TOOLS_KUBE}rbac/test-bindings.yaml`;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const code = (error: unknown) => (error instanceof ApiException ? error.code : undefined);

/** Polls `check` until it holds; `what` names it in the time-out error. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch (error) {
      // 404 while a controller has not created the object yet; anything else is real.
      if (code(error) !== 404) throw error;
    }
    await delay(250);
  }
  throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
}

/** `kubectl create -f` for every document of a file; already-existing objects are kept. */
export async function createFromFile(kc: KubeConfig, file: string): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(kc);
  const documents = loadAllYaml(readFileSync(file, 'utf8')) as KubernetesObject[];
  for (const document of documents) {
    try {
      await client.create(document);
    } catch (error) {
      if (code(error) !== 409) throw error;
    }
  }
}

/** The MgpuNode CRD, applied and Established (served) before anyone lists mgpunodes. */
export async function installCrd(kc: KubeConfig): Promise<void> {
  await createFromFile(kc, CRD_FILE);
  const api = kc.makeApiClient(ApiextensionsV1Api);
  await until('the MgpuNode CRD to be Established', async () => {
    const crd = await api.readCustomResourceDefinition({ name: 'mgpunodes.mgpu.console.io' });
    return (crd.status?.conditions ?? []).some(
      (c) => c.type === 'Established' && c.status === 'True',
    );
  });
}

/**
 * The default ServiceAccount of a namespace: the ServiceAccount admission plugin rejects pods
 * until kube-controller-manager has created it, so waiting for it in `default` is also the sign
 * that the controller manager runs.
 */
export async function waitForDefaultServiceAccount(kc: KubeConfig, namespace: string) {
  const core = kc.makeApiClient(CoreV1Api);
  await until(`serviceaccount ${namespace}/default`, async () => {
    await core.readNamespacedServiceAccount({ name: 'default', namespace });
    return true;
  });
}

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

/**
 * Registers the topology's nodes as a kubelet would: the Node with its labels, then capacity,
 * allocatable, nodeInfo and a Ready condition through the status subresource.
 */
export async function registerNodes(kc: KubeConfig, topology: Topology): Promise<number> {
  const core = kc.makeApiClient(CoreV1Api);
  const nodes = topologyNodes(topology);
  const now = new Date();
  for (const { object } of nodes) {
    try {
      await core.createNode({ body: { metadata: object.metadata, spec: {} } });
    } catch (error) {
      if (code(error) !== 409) throw error;
    }
    await core.patchNodeStatus(
      {
        name: object.metadata.name,
        body: {
          status: {
            ...object.status,
            // No kubelet runs: Ready stands for "the mGPU node agent serves this node".
            conditions: [
              {
                type: 'Ready',
                status: 'True',
                reason: 'MgpuNodeAgentReady',
                message:
                  'registered by cluster:real; the mGPU node agent stands in for the kubelet',
                lastHeartbeatTime: now,
                lastTransitionTime: now,
              },
            ],
            addresses: [{ type: 'Hostname', address: object.metadata.name }],
          },
        },
      },
      mergePatch,
    );
  }
  return nodes.length;
}

/** The topology's pods that run before anyone opens the console (pinned ones pre-bound). */
export async function createTopologyPods(kc: KubeConfig, topology: Topology): Promise<number> {
  const core = kc.makeApiClient(CoreV1Api);
  for (const namespace of topologyNamespaces(topology)) {
    try {
      await core.createNamespace({ body: { metadata: { name: namespace } } });
    } catch (error) {
      if (code(error) !== 409) throw error;
    }
    await waitForDefaultServiceAccount(kc, namespace);
  }
  const nodes = new Map(topologyNodes(topology).map((node) => [node.name, node]));
  for (const pod of topology.pods) {
    const body = topologyPodObject(pod, nodes.get(pod.node ?? '')) as V1Pod;
    try {
      await core.createNamespacedPod({ namespace: pod.namespace, body });
    } catch (error) {
      if (code(error) !== 409) throw error;
    }
  }
  return topology.pods.length;
}
