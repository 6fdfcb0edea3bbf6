import type {
  AppsV1Api,
  BatchV1Api,
  CoreV1Api,
  V1Deployment,
  V1Job,
  V1Service,
  V1StatefulSet,
} from '@kubernetes/client-node';
import {
  type KubeClients,
  mergePatch,
  type SharedInformer,
  type SharedInformerFactory,
  toKubeError,
} from '@mgpu/kube-client';
import {
  APP_LABEL,
  CREATABLE_KINDS,
  type CreatableKind,
  MANAGED_BY_LABEL,
  type RevisionObject,
  readWorkloadObject,
} from '@mgpu/shared';

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

/**
 * resourceVersions remembered per object for `specChangedSince`, all of its present spec and
 * labels: status writes add one each (a rolling Deployment, a Job's completions), so an open
 * form's version must survive many of them; a change of spec or labels starts afresh.
 */
const REMEMBERED_VERSIONS = 1024;

/** The object labels the console's manifest sets (manifest.ts): the form's, beside its spec. */
export const CONSOLE_LABELS: ReadonlySet<string> = new Set([APP_LABEL, MANAGED_BY_LABEL]);

/**
 * What an edit from the form rests on: the request the form reads from the object (its spec as
 * the form shows it) and the console's labels. Status, annotations of the object itself (a
 * Deployment's revision: kube-apiserver bumps its generation for them) and other labels are not
 * in it: the edit is written onto the live object, which keeps those.
 */
function formStateOf(object: LiveWorkload, modelLabel: string | undefined): string | undefined {
  const generation = object.metadata?.generation;
  if (generation === undefined) return undefined;
  const form = readWorkloadObject(object, modelLabel === undefined ? {} : { modelLabel });
  const labels = Object.entries(object.metadata?.labels ?? {})
    .filter(([key]) => CONSOLE_LABELS.has(key))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // Not a form the console reads (no GPU container, say): any spec change counts.
  return JSON.stringify([form?.request ?? { generation }, labels]);
}

const objectKey = (object: LiveWorkload) =>
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
  /** Per object, its form state and every resourceVersion seen with it (see `specChangedSince`). */
  private readonly formStates: Map<string, { state: string; versions: Set<string> }>;

  private readonly deployments: SharedInformer<V1Deployment>;

  constructor(
    clients: KubeClients,
    private readonly informers: SharedInformerFactory,
    private readonly options: { modelLabel?: string } = {},
    informersOf?: WorkloadObjects,
  ) {
    this.core = clients.core;
    this.apps = clients.apps;
    this.batch = clients.batch;
    this.deployments = informers.deployments();
    this.statefulSets = informers.statefulSets();
    this.jobs = informers.jobs();
    if (informersOf) {
      // The versions seen are the informers' (and every writer's): one record per process.
      this.formStates = informersOf.formStates;
      return;
    }
    this.formStates = new Map();
    for (const kind of CREATABLE_KINDS) {
      this.informer(kind).subscribe((event) => {
        if (event.type === 'upsert') this.remember(withKind(kind, event.object));
        else if (event.type === 'delete')
          this.formStates.delete(objectKey(withKind(kind, event.object)));
      });
    }
  }

  /** The same informers and records, calls made with other clients (an operator's, `ClusterClient.forOperator`). */
  withClients(clients: KubeClients): WorkloadObjects {
    return new WorkloadObjects(clients, this.informers, this.options, this);
  }

  private remember(object: LiveWorkload): LiveWorkload {
    const version = object.metadata?.resourceVersion;
    const state = formStateOf(object, this.options.modelLabel);
    if (version === undefined || state === undefined) return object;
    const key = objectKey(object);
    const seen = this.formStates.get(key);
    if (seen?.state !== state) {
      // Versions of an older spec or labels are stale whatever they were: forget them.
      this.formStates.set(key, { state, versions: new Set([version]) });
      return object;
    }
    seen.versions.add(version);
    for (const old of seen.versions) {
      if (seen.versions.size <= REMEMBERED_VERSIONS) break;
      seen.versions.delete(old);
    }
    return object;
  }

  /**
   * Whether the object's spec or console labels changed since `resourceVersion`, or that version
   * is not one this process saw: both are a conflict for an edit made from it. A version that
   * only status writes, controllers' annotations or others' labels made stale is not.
   */
  specChangedSince(live: LiveWorkload, resourceVersion: string): boolean {
    if (live.metadata?.resourceVersion === resourceVersion) return false;
    const seen = this.formStates.get(objectKey(live));
    if (seen === undefined || seen.state !== formStateOf(live, this.options.modelLabel))
      return true;
    return !seen.versions.has(resourceVersion);
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

  /**
   * Every kind's object of that name (Deployment, StatefulSet, Job order), from the API server;
   * none at all is the first kind's 404, as `find` answers.
   */
  async findEvery(namespace: string, name: string): Promise<LiveWorkload[]> {
    let notFound: unknown;
    const found = await Promise.all(
      CREATABLE_KINDS.map((kind) =>
        this.read(kind, namespace, name).catch((error: unknown) => {
          if (toKubeError(error).code !== 404) throw error;
          notFound ??= error;
          return undefined;
        }),
      ),
    );
    const live = found.filter((object) => object !== undefined);
    if (live.length === 0) throw notFound;
    return live;
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

  /**
   * What Kubernetes keeps of a workload's past templates, from the API server: a Deployment's
   * ReplicaSets, a StatefulSet's ControllerRevisions (a Job has none), narrowed by the
   * workload's selector; `workloadRevisions` keeps those it controls.
   */
  revisionObjects(workload: LiveWorkload): Promise<RevisionObject[]> {
    const namespace = workload.metadata?.namespace ?? '';
    const labels = workload.spec?.selector?.matchLabels ?? {};
    const labelSelector = Object.entries(labels)
      .map(([key, value]) => `${key}=${value}`)
      .join(',');
    return this.call(async () => {
      if (workload.kind === 'Deployment')
        return (await this.apps.listNamespacedReplicaSet({ namespace, labelSelector })).items;
      if (workload.kind === 'StatefulSet')
        return (await this.apps.listNamespacedControllerRevision({ namespace, labelSelector }))
          .items;
      return [];
    });
  }

  /**
   * Replicas of a Deployment or StatefulSet, parallelism of a Job (manifest.ts). With `checked`
   * the object's uid and resourceVersion ride in the merge patch, as delete's preconditions: the
   * API server answers 409 when the object changed or was replaced since, and changes nothing.
   */
  scale(
    kind: CreatableKind,
    namespace: string,
    name: string,
    replicas: number,
    checked?: { uid: string; resourceVersion: string },
  ): Promise<LiveWorkload> {
    const spec = kind === 'Job' ? { parallelism: replicas } : { replicas };
    const request = { namespace, name, body: checked ? { metadata: checked, spec } : { spec } };
    return this.call(async () => {
      if (kind === 'Deployment')
        return withKind(kind, await this.apps.patchNamespacedDeployment(request, mergePatch()));
      if (kind === 'StatefulSet')
        return withKind(kind, await this.apps.patchNamespacedStatefulSet(request, mergePatch()));
      return withKind(kind, await this.batch.patchNamespacedJob(request, mergePatch()));
    });
  }

  /**
   * Foreground by default: its pods (and a StatefulSet's Service) go before it does. With
   * `preconditions` only that very object (at that version) goes: another one is the API
   * server's 409.
   */
  delete(
    kind: CreatableKind,
    namespace: string,
    name: string,
    preconditions?: { uid: string; resourceVersion?: string },
    propagationPolicy: 'Foreground' | 'Background' = 'Foreground',
  ): Promise<void> {
    const body = { propagationPolicy, ...(preconditions ? { preconditions } : {}) };
    const request = { namespace, name, body };
    return this.call(async () => {
      if (kind === 'Deployment') await this.apps.deleteNamespacedDeployment(request);
      else if (kind === 'StatefulSet') await this.apps.deleteNamespacedStatefulSet(request);
      else await this.batch.deleteNamespacedJob(request);
    });
  }

  /** The Service of that name, or undefined when there is none (a StatefulSet's, before create). */
  readService(namespace: string, name: string): Promise<V1Service | undefined> {
    return this.call(() =>
      this.core.readNamespacedService({ namespace, name }).catch((error: unknown) => {
        if (toKubeError(error).code === 404) return undefined;
        throw error;
      }),
    );
  }

  createService(namespace: string, body: V1Service, dryRun = false): Promise<V1Service> {
    return this.call(() =>
      this.core.createNamespacedService({
        namespace,
        body,
        fieldManager: 'mgpu-console',
        ...(dryRun ? { dryRun: 'All' } : {}),
      }),
    );
  }
}
