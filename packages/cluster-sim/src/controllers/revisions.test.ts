import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ControllerCluster,
  eventually,
  startControllerCluster,
} from '../test-support/controller-cluster.js';

let cluster: ControllerCluster;
let namespace: string;

beforeAll(async () => {
  cluster = await startControllerCluster();
  namespace = await cluster.createNamespace('revisions');
}, 60_000);
afterAll(async () => cluster?.close());

const template = (app: string, image: string) => ({
  metadata: { labels: { app } },
  spec: { containers: [{ name: 'web', image }] },
});

const setImage = (image: string) => [
  { op: 'replace', path: '/spec/template/spec/containers/0/image', value: image },
];

/** `<image>:<revision>` of each kept revision, oldest number first. */
async function statefulSetRevisions(owner: string): Promise<string> {
  const list = await cluster.apps.listNamespacedControllerRevision({ namespace });
  return list.items
    .filter((revision) => revision.metadata?.ownerReferences?.some((ref) => ref.name === owner))
    .sort((a, b) => a.revision - b.revision)
    .map((revision) => {
      const data = revision.data as { spec: { template: ReturnType<typeof template> } };
      return `${data.spec.template.spec.containers[0]?.image}:${revision.revision}`;
    })
    .join(' ');
}

async function replicaSetRevisions(owner: string): Promise<string> {
  const list = await cluster.apps.listNamespacedReplicaSet({ namespace });
  return list.items
    .filter((rs) => rs.metadata?.ownerReferences?.some((ref) => ref.name === owner))
    .map((rs) => ({
      image: rs.spec?.template?.spec?.containers[0]?.image,
      revision: Number(rs.metadata?.annotations?.['deployment.kubernetes.io/revision']),
    }))
    .sort((a, b) => a.revision - b.revision)
    .map(({ image, revision }) => `${image}:${revision}`)
    .join(' ');
}

const reads = (read: () => Promise<string>, expected: string) =>
  eventually(async () => ((await read()) === expected ? expected : undefined), 60_000);

describe('revisions kept for a rollback (kube-controller-manager on the real tier)', () => {
  it("keeps a StatefulSet's templates as ControllerRevisions; going back renumbers the old one", async () => {
    await cluster.apps.createNamespacedStatefulSet({
      namespace,
      body: {
        metadata: { name: 'db' },
        spec: {
          replicas: 1,
          serviceName: 'db',
          selector: { matchLabels: { app: 'db' } },
          template: template('db', 'nginx:1.27'),
        },
      },
    });
    await reads(() => statefulSetRevisions('db'), 'nginx:1.27:1');
    await cluster.apps.patchNamespacedStatefulSet({
      name: 'db',
      namespace,
      body: setImage('nginx:1.28'),
    });
    await reads(() => statefulSetRevisions('db'), 'nginx:1.27:1 nginx:1.28:2');
    await cluster.apps.patchNamespacedStatefulSet({
      name: 'db',
      namespace,
      body: setImage('nginx:1.27'),
    });
    expect(await reads(() => statefulSetRevisions('db'), 'nginx:1.28:2 nginx:1.27:3')).toBeTruthy();
  });

  it("numbers a Deployment's ReplicaSets; going back reuses the old set under the next number", async () => {
    await cluster.apps.createNamespacedDeployment({
      namespace,
      body: {
        metadata: { name: 'web' },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: 'web' } },
          template: template('web', 'nginx:1.27'),
        },
      },
    });
    await reads(() => replicaSetRevisions('web'), 'nginx:1.27:1');
    await cluster.apps.patchNamespacedDeployment({
      name: 'web',
      namespace,
      body: setImage('nginx:1.28'),
    });
    await reads(() => replicaSetRevisions('web'), 'nginx:1.27:1 nginx:1.28:2');
    await cluster.apps.patchNamespacedDeployment({
      name: 'web',
      namespace,
      body: setImage('nginx:1.27'),
    });
    expect(await reads(() => replicaSetRevisions('web'), 'nginx:1.28:2 nginx:1.27:3')).toBeTruthy();
  });
});
