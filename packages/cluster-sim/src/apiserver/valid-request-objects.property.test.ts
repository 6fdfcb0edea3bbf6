/**
 * Issue 14 item 7, at the level of whole objects: every request `checkRequest` calls valid
 * produces a Deployment, StatefulSet (with its headless Service) or Job the API server accepts,
 * and the pods made from its template — with the labels their controller adds — still pass once
 * the scheduler has written its card annotations (gpu-index-container-<name>: a 44-character
 * container name once made a key over 63 and every later pod update a 422; a StatefulSet named
 * with a dot once got a Service the API server refused).
 * Runs on the embedded API server, and on the real one when MGPU_TEST_KUBECONFIG is set.
 */
import {
  buildHeadlessService,
  CREATABLE_KINDS,
  type CreatableKind,
  checkRequest,
  formatCardIndexes,
  gpuIndexAnnotation,
  MAX_STATEFULSET_NAME,
  type PodTemplateManifest,
  VKE,
  type WorkloadRequest,
  workloadKindOf,
} from '@mgpu/shared';
import { validRequest } from '@mgpu/shared/test-support';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  eventually,
  type RawResponse,
  startTestCluster,
  type TestCluster,
  UNSCHEDULED,
} from './test-cluster.js';

// A real cluster answers slower than the sim, and every run makes several requests.
vi.setConfig({ testTimeout: 600_000, hookTimeout: 120_000 });

const RUNS = 80;
/** Every REAL_EVERY-th request is also created for real (and deleted), not only dry-run. */
const REAL_EVERY = 5;
/** A fixed seed, so a failure repeats; MGPU_PROPERTY_SEED replays another run. */
const SEED = Number(process.env.MGPU_PROPERTY_SEED ?? 1412);

let cluster: TestCluster;
let namespace: string;

beforeAll(async () => {
  cluster = await startTestCluster();
  namespace = await cluster.createNamespace('valid-objects');
});

afterAll(async () => {
  await cluster?.close();
});

/** A name of exactly `length` characters (every length up to a limit is reached). */
const nameOfLength = (max: number) =>
  fc.integer({ min: 1, max }).map((length) => (length === 1 ? 'w' : `w${'x'.repeat(length - 2)}1`));
/** DNS-1123 labels of any shape, near the limit or not. */
const label = fc.oneof(
  nameOfLength(63),
  fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/).filter((name) => name.length <= 63),
);
/** DNS-1123 subdomains: dotted labels up to 253 characters, and often near a name's limits. */
const subdomain = fc.oneof(
  nameOfLength(253),
  fc
    .array(label, { minLength: 1, maxLength: 5 })
    .map((labels) => labels.join('.'))
    .filter((name) => name.length <= 253),
  // Around a StatefulSet's limit (52) and a label value's (63).
  fc
    .integer({ min: MAX_STATEFULSET_NAME - 4, max: 63 })
    .map((length) => `w${'x'.repeat(length - 2)}1`),
);

/**
 * The shared valid requests (every GPU shape the §3 rules allow) of every kind, with the names
 * an operator may choose instead of the generator's short ones: container names up to the
 * DNS-label limit, workload names up to the subdomain limit. Only those `checkRequest` accepts
 * remain.
 */
const acceptedRequest: fc.Arbitrary<WorkloadRequest> = fc
  .tuple(
    validRequest,
    subdomain,
    fc.uniqueArray(label, { minLength: 4, maxLength: 4 }),
    fc.constantFrom<CreatableKind | undefined>(undefined, ...CREATABLE_KINDS),
  )
  .map(([request, name, containerNames, kind]) => ({
    ...request,
    ...(kind !== undefined ? { kind } : {}),
    name,
    namespace,
    containers: request.containers.map((container, index) => ({
      ...container,
      name: containerNames[index] ?? container.name,
    })),
  }))
  .filter((request) => checkRequest(request).valid);

/** Where each kind is created, and its own API group's path. */
const COLLECTION: Record<CreatableKind, string> = {
  Deployment: 'apis/apps/v1/namespaces/NS/deployments',
  StatefulSet: 'apis/apps/v1/namespaces/NS/statefulsets',
  Job: 'apis/batch/v1/namespaces/NS/jobs',
};

/** The annotations the mGPU scheduler writes on a pod once it has chosen the cards (bind). */
function schedulerAnnotations(request: WorkloadRequest): Record<string, string> {
  const annotations: Record<string, string> = { [VKE.assumedAnnotation]: 'true' };
  for (const share of checkRequest(request).containers) {
    const cards = Array.from({ length: share.cards }, (_, card) => card);
    annotations[gpuIndexAnnotation(share.name)] = formatCardIndexes(cards);
  }
  return annotations;
}

/**
 * A pod as the workload's controller would make it from `template` (the workload as the API
 * server stored it: a Job's template carries the labels it generated), held back from every
 * scheduler. A StatefulSet's pod is `<name>-<ordinal>` (an ordinal past the set's own pods, which
 * a real controller may still be removing), with its revision label at the longest hash
 * kube-controller-manager writes (10 characters) and its DNS names.
 */
function podFrom(
  kind: CreatableKind,
  workload: string,
  template: PodTemplateManifest,
  run: number,
  annotations: Record<string, string>,
) {
  const ordinal = String(100 + run);
  const podName = kind === 'StatefulSet' ? `${workload}-${ordinal}` : `valid-object-${run}`;
  const setLabels =
    kind === 'StatefulSet'
      ? {
          'controller-revision-hash': `${workload}-${'7'.repeat(10)}`,
          'statefulset.kubernetes.io/pod-name': podName,
          'apps.kubernetes.io/pod-index': ordinal,
        }
      : {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName,
      labels: { ...template.metadata.labels, ...setLabels },
      annotations: { ...template.metadata.annotations, ...annotations },
    },
    spec: {
      ...template.spec,
      schedulerName: UNSCHEDULED,
      ...(kind === 'StatefulSet' ? { hostname: podName, subdomain: workload } : {}),
    },
  };
}

const JSON_BODY = 'application/json';
const ok = (response: RawResponse) => response.status >= 200 && response.status < 300;

describe('every request check calls valid makes objects the API server accepts', () => {
  it(`the workload of its kind, and its pods with the scheduler's annotations (${RUNS} requests)`, async () => {
    console.log(`valid-request-objects: seed ${SEED} (set MGPU_PROPERTY_SEED to replay another)`);
    const pods = `/api/v1/namespaces/${namespace}/pods`;
    const services = `/api/v1/namespaces/${namespace}/services`;
    let run = 0;
    const runs: Record<CreatableKind, number> = { Deployment: 0, StatefulSet: 0, Job: 0 };
    const createdForReal: Record<CreatableKind, number> = { Deployment: 0, StatefulSet: 0, Job: 0 };
    let longestGpuContainerName = 0;
    let longestStatefulSetName = 0;
    await fc.assert(
      fc.asyncProperty(acceptedRequest, async (request) => {
        run++;
        const kind = workloadKindOf(request);
        runs[kind]++;
        if (kind === 'StatefulSet')
          longestStatefulSetName = Math.max(longestStatefulSetName, request.name.length);
        for (const container of request.containers)
          if (container.gpu)
            longestGpuContainerName = Math.max(longestGpuContainerName, container.name.length);
        const workload = checkRequest(request).manifest;
        if (!workload) throw new Error('a valid request has a manifest');
        const said = (what: string, response: RawResponse) =>
          `${what} refused (${response.status}) for the request ${JSON.stringify(request)}:\n${response.text}`;
        const post = (path: string, body: unknown) =>
          cluster.request('POST', path, { body: JSON.stringify(body), contentType: JSON_BODY });
        const collection = `/${COLLECTION[kind].replace('NS', namespace)}`;
        const service = kind === 'StatefulSet' ? buildHeadlessService(request) : undefined;

        const dryWorkload = await post(`${collection}?dryRun=All&fieldValidation=Strict`, workload);
        expect(ok(dryWorkload), said(`${kind} (dry run)`, dryWorkload)).toBe(true);
        if (service) {
          const dryService = await post(`${services}?dryRun=All&fieldValidation=Strict`, service);
          expect(ok(dryService), said('headless Service (dry run)', dryService)).toBe(true);
        }
        // The template as stored: a Job's carries the labels the API server generated.
        const stored = JSON.parse(dryWorkload.text) as { spec: { template: PodTemplateManifest } };
        const template = stored.spec.template;

        const scheduled = podFrom(kind, request.name, template, run, schedulerAnnotations(request));
        const dryPod = await post(`${pods}?dryRun=All&fieldValidation=Strict`, scheduled);
        expect(ok(dryPod), said('scheduled Pod (dry run)', dryPod)).toBe(true);

        if (run % REAL_EVERY !== 0) return;
        createdForReal[kind]++;
        const created = await post(`${collection}?fieldValidation=Strict`, workload);
        expect(ok(created), said(kind, created)).toBe(true);
        const made = [`${collection}/${request.name}`];
        if (service) {
          const createdService = await post(`${services}?fieldValidation=Strict`, service);
          expect(ok(createdService), said('headless Service', createdService)).toBe(true);
          made.push(`${services}/${request.name}`);
        }
        const realTemplate = (
          JSON.parse(created.text) as { spec: { template: PodTemplateManifest } }
        ).spec.template;
        for (const path of made) {
          const deleted = await cluster.request('DELETE', path, {
            body: JSON.stringify({ propagationPolicy: 'Background' }),
            contentType: JSON_BODY,
          });
          expect(ok(deleted), said(`delete of ${path}`, deleted)).toBe(true);
          // The next run may use the same workload name.
          await eventually(async () =>
            (await cluster.request('GET', path)).status === 404 ? true : undefined,
          );
        }

        // The scheduler's own path: a pod made from the template, then its annotations patched on.
        const pod = podFrom(kind, request.name, realTemplate, run, {});
        const createdPod = await post(pods, pod);
        expect(ok(createdPod), said('Pod', createdPod)).toBe(true);
        const podPath = `${pods}/${pod.metadata.name}`;
        const patched = await cluster.request('PATCH', podPath, {
          body: JSON.stringify({ metadata: { annotations: schedulerAnnotations(request) } }),
          contentType: 'application/merge-patch+json',
        });
        expect(ok(patched), said('scheduler annotations on the Pod', patched)).toBe(true);
        const podDeleted = await cluster.request('DELETE', podPath, {
          body: JSON.stringify({ gracePeriodSeconds: 0 }),
          contentType: JSON_BODY,
        });
        expect(ok(podDeleted), said('Pod delete', podDeleted)).toBe(true);
        await eventually(async () =>
          (await cluster.request('GET', podPath)).status === 404 ? true : undefined,
        );
      }),
      { numRuns: RUNS, seed: SEED },
    );
    console.log(
      `valid-request-objects: ${run} requests (${JSON.stringify(runs)}), created for real ${JSON.stringify(createdForReal)}, longest GPU container name ${longestGpuContainerName}, longest StatefulSet name ${longestStatefulSetName}`,
    );
    expect(run).toBeGreaterThanOrEqual(RUNS);
    // Every kind is drawn, and created for real at least once.
    for (const kind of CREATABLE_KINDS) expect(createdForReal[kind], kind).toBeGreaterThan(0);
    // The generator must reach GPU containers near the key limit (43 characters), or it says little.
    expect(longestGpuContainerName).toBeGreaterThanOrEqual(30);
    // And StatefulSet names near theirs (52).
    expect(longestStatefulSetName).toBeGreaterThanOrEqual(MAX_STATEFULSET_NAME - 4);
  });
});
