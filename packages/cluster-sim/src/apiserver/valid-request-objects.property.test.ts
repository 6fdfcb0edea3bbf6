/**
 * Issue 14 item 7, at the level of whole objects: every request `checkRequest` calls valid
 * produces a Deployment the API server accepts, and the pods made from its template still
 * pass once the scheduler has written its card annotations (gpu-index-container-<name>: a
 * 44-character container name once made a key over 63 and every later pod update a 422).
 * Runs on the embedded API server, and on the real one when MGPU_TEST_KUBECONFIG is set.
 */
import {
  checkRequest,
  type DeploymentManifest,
  formatCardIndexes,
  gpuIndexAnnotation,
  VKE,
  type WorkloadRequest,
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
/** DNS-1123 subdomains: dotted labels up to 253 characters. */
const subdomain = fc.oneof(
  nameOfLength(253),
  fc
    .array(label, { minLength: 1, maxLength: 5 })
    .map((labels) => labels.join('.'))
    .filter((name) => name.length <= 253),
);

/**
 * The shared valid requests (every GPU shape the §3 rules allow), with the names an operator
 * may choose instead of the generator's short ones: container names up to the DNS-label
 * limit, workload names up to the subdomain limit. Only those `checkRequest` accepts remain.
 */
const acceptedRequest: fc.Arbitrary<WorkloadRequest> = fc
  .tuple(validRequest, subdomain, fc.uniqueArray(label, { minLength: 4, maxLength: 4 }))
  .map(([request, name, containerNames]) => ({
    ...request,
    name,
    namespace,
    containers: request.containers.map((container, index) => ({
      ...container,
      name: containerNames[index] ?? container.name,
    })),
  }))
  .filter((request) => checkRequest(request).valid);

/** The annotations the mGPU scheduler writes on a pod once it has chosen the cards (bind). */
function schedulerAnnotations(request: WorkloadRequest): Record<string, string> {
  const annotations: Record<string, string> = { [VKE.assumedAnnotation]: 'true' };
  for (const share of checkRequest(request).containers) {
    const cards = Array.from({ length: share.cards }, (_, card) => card);
    annotations[gpuIndexAnnotation(share.name)] = formatCardIndexes(cards);
  }
  return annotations;
}

/** A pod as the Deployment's ReplicaSet would make it, held back from every scheduler. */
function podFrom(
  deployment: DeploymentManifest,
  name: string,
  annotations: Record<string, string>,
) {
  const template = deployment.spec.template;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      labels: template.metadata.labels,
      annotations: { ...template.metadata.annotations, ...annotations },
    },
    spec: { ...template.spec, schedulerName: UNSCHEDULED },
  };
}

const JSON_BODY = 'application/json';
const ok = (response: RawResponse) => response.status >= 200 && response.status < 300;

describe('every request check calls valid makes objects the API server accepts', () => {
  it(`the Deployment, and its pods with the scheduler's annotations (${RUNS} requests)`, async () => {
    console.log(`valid-request-objects: seed ${SEED} (set MGPU_PROPERTY_SEED to replay another)`);
    const deployments = `/apis/apps/v1/namespaces/${namespace}/deployments`;
    const pods = `/api/v1/namespaces/${namespace}/pods`;
    let run = 0;
    let createdForReal = 0;
    let longestGpuContainerName = 0;
    await fc.assert(
      fc.asyncProperty(acceptedRequest, async (request) => {
        run++;
        for (const container of request.containers)
          if (container.gpu)
            longestGpuContainerName = Math.max(longestGpuContainerName, container.name.length);
        // validRequest has no `kind`: the manifest is a Deployment.
        const deployment = checkRequest(request).manifest as DeploymentManifest | undefined;
        if (!deployment) throw new Error('a valid request has a manifest');
        const said = (what: string, response: RawResponse) =>
          `${what} refused (${response.status}) for the request ${JSON.stringify(request)}:\n${response.text}`;
        const post = (path: string, body: unknown) =>
          cluster.request('POST', path, { body: JSON.stringify(body), contentType: JSON_BODY });

        const dryDeployment = await post(
          `${deployments}?dryRun=All&fieldValidation=Strict`,
          deployment,
        );
        expect(ok(dryDeployment), said('Deployment (dry run)', dryDeployment)).toBe(true);

        const podName = `valid-object-${run}`;
        const scheduled = podFrom(deployment, podName, schedulerAnnotations(request));
        const dryPod = await post(`${pods}?dryRun=All&fieldValidation=Strict`, scheduled);
        expect(ok(dryPod), said('scheduled Pod (dry run)', dryPod)).toBe(true);

        if (run % REAL_EVERY !== 0) return;
        createdForReal++;
        const created = await post(`${deployments}?fieldValidation=Strict`, deployment);
        expect(ok(created), said('Deployment', created)).toBe(true);
        const deploymentPath = `${deployments}/${deployment.metadata.name}`;
        const deleted = await cluster.request('DELETE', deploymentPath, {
          body: JSON.stringify({ propagationPolicy: 'Background' }),
          contentType: JSON_BODY,
        });
        expect(ok(deleted), said('Deployment delete', deleted)).toBe(true);
        // The next run may use the same workload name.
        await eventually(async () =>
          (await cluster.request('GET', deploymentPath)).status === 404 ? true : undefined,
        );

        // The scheduler's own path: a pod made from the template, then its annotations patched on.
        const pod = await post(pods, podFrom(deployment, podName, {}));
        expect(ok(pod), said('Pod', pod)).toBe(true);
        const patched = await cluster.request('PATCH', `${pods}/${podName}`, {
          body: JSON.stringify({ metadata: { annotations: schedulerAnnotations(request) } }),
          contentType: 'application/merge-patch+json',
        });
        expect(ok(patched), said('scheduler annotations on the Pod', patched)).toBe(true);
        const podDeleted = await cluster.request('DELETE', `${pods}/${podName}`, {
          body: JSON.stringify({ gracePeriodSeconds: 0 }),
          contentType: JSON_BODY,
        });
        expect(ok(podDeleted), said('Pod delete', podDeleted)).toBe(true);
      }),
      { numRuns: RUNS, seed: SEED },
    );
    console.log(
      `valid-request-objects: ${run} requests, ${createdForReal} created for real, longest GPU container name ${longestGpuContainerName}`,
    );
    expect(run).toBeGreaterThanOrEqual(RUNS);
    expect(createdForReal).toBeGreaterThan(0);
    // The generator must reach GPU containers near the key limit (43 characters), or it says little.
    expect(longestGpuContainerName).toBeGreaterThanOrEqual(30);
  });
});
