import type {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  KubeConfig,
  V1Deployment,
  V1Job,
  V1Service,
  V1StatefulSet,
} from '@kubernetes/client-node';
import { type KubeClients, mergePatch, SharedInformer, toKubeError } from '@mgpu/kube-client';
import { CREATABLE_KINDS, type CreatableKind } from '@mgpu/shared';

/** A live Deployment, StatefulSet or Job, its `kind` set (typed reads do not always carry it). */
export type LiveWorkload =
  | (V1Deployment & { kind: 'Deployment' })
  | (V1StatefulSet & { kind: 'StatefulSet' })
  | (V1Job & { kind: 'Job' });

const API_VERSION: Record<CreatableKind, string> = {
  Deployment: 'apps/v1',
  StatefulSet: 'apps/v1',
  Job: 'batch/v1',
};

/** resourceVersions remembered per object for `specChangedSince`. */
const REMEMBERED_VERSIONS = 64;

const generationKey = (object: LiveWorkload) =>
  `${object.kind}/${object.metadata?.namespace}/${object.metadata?.name}`;

const withKind = <K extends CreatableKind>(kind: K, object: object) =>
  ({ ...object, apiVersion: API_VERSION[kind], kind }) as LiveWorkload;

/**
 * An object as JSON (dates as text) ready to be sent back: client-node serialises `Date` fields
 * itself and fails on text, so the ones an update cannot change anyway go — status (ignored by
 * the main resource), managedFields (kept by the server when absent), the creation stamps.
 */
function writable(object: Record<string, unknown>): Record<string, unknown> {
  const { status: _status, ...rest } = object;
  const metadata = { ...(rest.metadata as Record<string, unknown>) };
  delete metadata.managedFields;
  delete metadata.creationTimestamp;
  const spec = { ...(rest.spec as Record<string, unknown>) };
  const template = spec.template as { metadata?: Record<string, unknown> } | undefined;
  if (template?.metadata) {
    const { creationTimestamp: _created, ...templateMeta } = template.metadata;
    spec.template = { ...template, metadata: templateMeta };
  }
  return { ...rest, metadata, spec };
}

/**
 * The kinds the console makes (spec §8) behind one set of calls: an informer per kind for the
 * lists and the live views, and create / read / replace / scale by kind, Status turned into
 * `KubeError` as everywhere in `cluster/`. Deployments keep their informer in `ClusterClient`.
 */
export class WorkloadObjects {
  private readonly core: CoreV1Api;
  private readonly apps: AppsV1Api;
  private readonly batch: BatchV1Api;
  readonly statefulSets: SharedInformer<V1StatefulSet>;
  readonly jobs: SharedInformer<V1Job>;
  /** Per object, the generation each recently seen resourceVersion had (see `specChangedSince`). */
  private readonly generations: Map<string, Map<string, number>>;

  constructor(
    kubeConfig: KubeConfig,
    clients: KubeClients,
    private readonly deployments: SharedInformer<V1Deployment>,
    informersOf?: WorkloadObjects,
  ) {
    this.core = clients.core;
    this.apps = clients.apps;
    this.batch = clients.batch;
    if (informersOf) {
      this.statefulSets = informersOf.statefulSets;
      this.jobs = informersOf.jobs;
      // The generations seen are the informers' (and every writer's): one record per process.
      this.generations = informersOf.generations;
      return;
    }
    this.generations = new Map();
    this.statefulSets = new SharedInformer(kubeConfig, '/apis/apps/v1/statefulsets', () =>
      this.apps.listStatefulSetForAllNamespaces(),
    );
    this.jobs = new SharedInformer(kubeConfig, '/apis/batch/v1/jobs', () =>
      this.batch.listJobForAllNamespaces(),
    );
    for (const kind of CREATABLE_KINDS) {
      this.informer(kind).subscribe((event) => {
        if (event.type === 'upsert') this.remember(withKind(kind, event.object));
        else if (event.type === 'delete')
          this.generations.delete(generationKey(withKind(kind, event.object)));
      });
    }
  }

  /** The same informers and records, calls made with other clients (an operator's, `ClusterClient.forOperator`). */
  withClients(clients: KubeClients): WorkloadObjects {
    return new WorkloadObjects(clients.kubeConfig, clients, this.deployments, this);
  }

  private remember(object: LiveWorkload): LiveWorkload {
    const version = object.metadata?.resourceVersion;
    const generation = object.metadata?.generation;
    if (version === undefined || generation === undefined) return object;
    const key = generationKey(object);
    const seen = this.generations.get(key) ?? new Map<string, number>();
    seen.set(version, generation);
    // Status writes move the resourceVersion often; the last few are enough for an open form.
    for (const old of seen.keys()) {
      if (seen.size <= REMEMBERED_VERSIONS) break;
      seen.delete(old);
    }
    this.generations.set(key, seen);
    return object;
  }

  /**
   * Whether the object's spec changed since `resourceVersion` (its generation moved on), or
   * that version is not one this process saw: both are a conflict for an edit made from it.
   * A version that only status writes and controllers' annotations made stale is not: the edit
   * is written onto the live object, which keeps those.
   */
  specChangedSince(live: LiveWorkload, resourceVersion: string): boolean {
    if (live.metadata?.resourceVersion === resourceVersion) return false;
    const then = this.generations.get(generationKey(live))?.get(resourceVersion);
    return then === undefined || then !== live.metadata?.generation;
  }

  async start(): Promise<void> {
    await Promise.all([this.statefulSets.start(), this.jobs.start()]);
  }

  async stop(): Promise<void> {
    await Promise.all([this.statefulSets.stop(), this.jobs.stop()]);
  }

  informer(kind: CreatableKind): SharedInformer<V1Deployment | V1StatefulSet | V1Job> {
    const informers = {
      Deployment: this.deployments,
      StatefulSet: this.statefulSets,
      Job: this.jobs,
    } as const;
    return informers[kind] as SharedInformer<V1Deployment | V1StatefulSet | V1Job>;
  }

  /** Every live object of the console's kinds, from the informers. */
  listAll(): LiveWorkload[] {
    return CREATABLE_KINDS.flatMap((kind) =>
      this.informer(kind)
        .list()
        .map((object) => withKind(kind, object)),
    );
  }

  /** From the informers: the object of that kind, or the first kind that has one of that name. */
  cached(namespace: string, name: string, kind?: CreatableKind): LiveWorkload | undefined {
    for (const each of kind ? [kind] : CREATABLE_KINDS) {
      const found = this.informer(each).get(name, namespace);
      if (found) return withKind(each, found);
    }
    return undefined;
  }

  private async call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw toKubeError(error);
    }
  }

  create(
    kind: CreatableKind,
    namespace: string,
    body: object,
    dryRun: boolean,
  ): Promise<LiveWorkload> {
    const options = {
      namespace,
      fieldManager: 'mgpu-console',
      ...(dryRun ? { dryRun: 'All' } : {}),
    };
    return this.call(async () => {
      const created =
        kind === 'Deployment'
          ? await this.apps.createNamespacedDeployment({ ...options, body: body as V1Deployment })
          : kind === 'StatefulSet'
            ? await this.apps.createNamespacedStatefulSet({
                ...options,
                body: body as V1StatefulSet,
              })
            : await this.batch.createNamespacedJob({ ...options, body: body as V1Job });
      const object = withKind(kind, created);
      return dryRun ? object : this.remember(object);
    });
  }

  /** From the API server, not the informer: an edit starts from the newest resourceVersion. */
  read(kind: CreatableKind, namespace: string, name: string): Promise<LiveWorkload> {
    return this.call(async () => this.remember(await this.readUnremembered(kind, namespace, name)));
  }

  private async readUnremembered(
    kind: CreatableKind,
    namespace: string,
    name: string,
  ): Promise<LiveWorkload> {
    if (kind === 'Deployment')
      return withKind(kind, await this.apps.readNamespacedDeployment({ namespace, name }));
    if (kind === 'StatefulSet')
      return withKind(kind, await this.apps.readNamespacedStatefulSet({ namespace, name }));
    return withKind(kind, await this.batch.readNamespacedJob({ namespace, name }));
  }

  /** The object of that kind, or of the first kind (Deployment, StatefulSet, Job) that has one. */
  async find(namespace: string, name: string, kind?: CreatableKind): Promise<LiveWorkload> {
    if (kind) return this.read(kind, namespace, name);
    let notFound: unknown;
    for (const each of CREATABLE_KINDS) {
      try {
        return await this.read(each, namespace, name);
      } catch (error) {
        if (toKubeError(error).code !== 404) throw error;
        notFound ??= error;
      }
    }
    throw notFound;
  }

  /** Objects of that kind in every namespace with these labels, from the API server. */
  listLabelled(kind: CreatableKind, labelSelector: string): Promise<LiveWorkload[]> {
    return this.call(async () => {
      const list =
        kind === 'Deployment'
          ? await this.apps.listDeploymentForAllNamespaces({ labelSelector })
          : kind === 'StatefulSet'
            ? await this.apps.listStatefulSetForAllNamespaces({ labelSelector })
            : await this.batch.listJobForAllNamespaces({ labelSelector });
      return list.items.map((item: object) => withKind(kind, item));
    });
  }

  /**
   * PUT of an edited object (JSON as `applyRequestToObject` returns it). Its
   * `metadata.resourceVersion` makes it conditional: the API server answers 409 if the
   * object changed since, and changes nothing.
   */
  replace(
    kind: CreatableKind,
    namespace: string,
    name: string,
    object: Record<string, unknown>,
  ): Promise<LiveWorkload> {
    const body = writable(object);
    const options = { namespace, name, fieldManager: 'mgpu-console' };
    return this.call(async () => {
      const replaced =
        kind === 'Deployment'
          ? await this.apps.replaceNamespacedDeployment({ ...options, body: body as V1Deployment })
          : kind === 'StatefulSet'
            ? await this.apps.replaceNamespacedStatefulSet({
                ...options,
                body: body as V1StatefulSet,
              })
            : await this.batch.replaceNamespacedJob({ ...options, body: body as V1Job });
      return this.remember(withKind(kind, replaced));
    });
  }

  /** Replicas of a Deployment or StatefulSet, parallelism of a Job (manifest.ts). */
  scale(
    kind: CreatableKind,
    namespace: string,
    name: string,
    replicas: number,
  ): Promise<LiveWorkload> {
    const spec = kind === 'Job' ? { parallelism: replicas } : { replicas };
    const request = { namespace, name, body: { spec } };
    return this.call(async () => {
      if (kind === 'Deployment')
        return withKind(kind, await this.apps.patchNamespacedDeployment(request, mergePatch()));
      if (kind === 'StatefulSet')
        return withKind(kind, await this.apps.patchNamespacedStatefulSet(request, mergePatch()));
      return withKind(kind, await this.batch.patchNamespacedJob(request, mergePatch()));
    });
  }

  /** Foreground: its pods (and a StatefulSet's Service) go before it does. */
  delete(kind: CreatableKind, namespace: string, name: string): Promise<void> {
    const request = { namespace, name, body: { propagationPolicy: 'Foreground' } };
    return this.call(async () => {
      if (kind === 'Deployment') await this.apps.deleteNamespacedDeployment(request);
      else if (kind === 'StatefulSet') await this.apps.deleteNamespacedStatefulSet(request);
      else await this.batch.deleteNamespacedJob(request);
    });
  }

  createService(namespace: string, body: V1Service): Promise<V1Service> {
    return this.call(() =>
      this.core.createNamespacedService({ namespace, body, fieldManager: 'mgpu-console' }),
    );
  }
}
