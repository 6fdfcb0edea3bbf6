import { describe, expect, it } from 'vitest';
import { checkRequest, evaluateRequest } from './check.js';
import { manifestDiff } from './manifest-diff.js';
import { readWorkloadObject } from './read-workload.js';
import { type WorkloadRequest, WorkloadRequestSchema } from './request.js';
import { SEED_REQUEST } from './seed-request.js';
import { applyRequestToObject, diffRequests, managedFieldsOf } from './workload-update.js';

const MODEL_LABEL = 'machine.cluster.vke.volcengine.com/gpu-name';

/** A Deployment someone wrote with kubectl: everything the form does not manage is in it. */
const foreignDeployment = () => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'trainer',
    namespace: 'ml',
    resourceVersion: '4711',
    labels: { team: 'vision', 'app.kubernetes.io/name': 'trainer' },
    annotations: { 'owner.example.com/ticket': 'ML-42' },
  },
  spec: {
    replicas: 1,
    selector: { matchLabels: { 'app.kubernetes.io/name': 'trainer' } },
    strategy: { type: 'Recreate' },
    template: {
      metadata: {
        labels: { 'app.kubernetes.io/name': 'trainer', tier: 'gpu' },
        annotations: {
          'vke.volcengine.com/container-multiple-gpu': '2,1',
          'vke.volcengine.com/mgpu-compute-policy': 'native-burst-share',
          'prometheus.io/scrape': 'true',
        },
      },
      spec: {
        serviceAccountName: 'trainer',
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [
                {
                  matchExpressions: [
                    { key: 'zone', operator: 'In', values: ['a'] },
                    { key: MODEL_LABEL, operator: 'In', values: ['NVIDIA-L20'] },
                  ],
                },
              ],
            },
          },
        },
        volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data' } }],
        containers: [
          {
            name: 'worker',
            image: 'registry.example.com/trainer:1',
            env: [{ name: 'TOKEN', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
            volumeMounts: [{ name: 'data', mountPath: '/data' }],
            resources: {
              requests: {
                cpu: '4',
                'vke.volcengine.com/mgpu-core': '120',
                'vke.volcengine.com/mgpu-memory': '8192',
              },
              limits: {
                cpu: '8',
                'vke.volcengine.com/mgpu-core': '120',
                'vke.volcengine.com/mgpu-memory': '8192',
              },
            },
          },
          {
            name: 'sidecar',
            image: 'busybox:1.36',
            args: ['sleep', 'infinity'],
            resources: { requests: { cpu: '100m', memory: '64Mi' } },
          },
        ],
      },
    },
  },
});

const shareOf = (request: WorkloadRequest) => evaluateRequest(request).shares;

describe('applyRequestToObject (workload.update on a live object)', () => {
  it('changes only the form fields of an object the console did not make', () => {
    const live = foreignDeployment();
    const read = readWorkloadObject(live);
    expect(read?.request.containers[0]?.gpu).toMatchObject({ compute: '1.2', cards: '2' });
    const request = structuredClone(read?.request as WorkloadRequest);
    const worker = request.containers[0];
    if (worker?.gpu === undefined) throw new Error('the worker reads back as a GPU container');
    worker.gpu.compute = '1.6';
    worker.gpu.memoryGiB = '12';
    request.replicas = 2;

    const next = applyRequestToObject(live, request, shareOf(request)) as ReturnType<
      typeof foreignDeployment
    >;
    const expected = foreignDeployment();
    expected.spec.replicas = 2;
    // The older positional annotation is replaced by the seed's form (spec §4: write the seed's).
    const { 'vke.volcengine.com/container-multiple-gpu': _old, ...keptAnnotations } =
      expected.spec.template.metadata.annotations;
    (expected.spec.template.metadata as { annotations: Record<string, string> }).annotations = {
      ...keptAnnotations,
      'vke.volcengine.com/multiple-mgpu-worker': '2',
    };
    const gpu = {
      'vke.volcengine.com/mgpu-core': '160',
      'vke.volcengine.com/mgpu-memory': '12288',
    };
    const container = expected.spec.template.spec.containers[0] as unknown as {
      resources: { requests: Record<string, string>; limits: Record<string, string> };
    };
    container.resources.requests = { ...container.resources.requests, ...gpu };
    container.resources.limits = { ...container.resources.limits, ...gpu };
    expect(next).toEqual(expected);
    // And it reads back as what the operator asked.
    expect(readWorkloadObject(next)?.request).toEqual(request);
  });

  it('writes an unchanged request back as the same object (seed form)', () => {
    const request = WorkloadRequestSchema.parse(SEED_REQUEST);
    const manifest = checkRequest(request).manifest as unknown as Record<string, unknown>;
    const live = {
      ...manifest,
      metadata: { ...(manifest.metadata as object), resourceVersion: '9' },
    };
    const read = readWorkloadObject(live);
    expect(applyRequestToObject(live, read?.request as WorkloadRequest, shareOf(request))).toEqual(
      live,
    );
  });

  it('moves the model pin, keeps other affinity, and drops it when the model is cleared', () => {
    const live = foreignDeployment();
    const request = structuredClone(readWorkloadObject(live)?.request as WorkloadRequest);
    const gpu = request.containers[0]?.gpu;
    if (gpu === undefined) throw new Error('GPU container');
    gpu.model = 'Tesla-V100';
    const moved = applyRequestToObject(live, request, shareOf(request)) as ReturnType<
      typeof foreignDeployment
    >;
    expect(
      moved.spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
        .nodeSelectorTerms,
    ).toEqual([
      {
        matchExpressions: [
          { key: 'zone', operator: 'In', values: ['a'] },
          { key: MODEL_LABEL, operator: 'In', values: ['Tesla-V100'] },
        ],
      },
    ]);
    gpu.model = '';
    const cleared = applyRequestToObject(live, request, shareOf(request)) as ReturnType<
      typeof foreignDeployment
    >;
    expect(
      cleared.spec.template.spec.affinity.nodeAffinity
        .requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms,
    ).toEqual([{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }]);
  });

  it("writes a Job's replicas as its parallelism and keeps its completions", () => {
    const request = WorkloadRequestSchema.parse({ ...SEED_REQUEST, kind: 'Job', replicas: 2 });
    const manifest = checkRequest(request).manifest as unknown as Record<string, unknown>;
    expect(manifest).toMatchObject({
      apiVersion: 'batch/v1',
      kind: 'Job',
      spec: { parallelism: 2, completions: 2, template: { spec: { restartPolicy: 'OnFailure' } } },
    });
    const read = readWorkloadObject(manifest);
    expect(read?.request.kind).toBe('Job');
    expect(read?.request.replicas).toBe(2);
    const scaled = { ...(read?.request as WorkloadRequest), replicas: 3 };
    expect(applyRequestToObject(manifest, scaled, shareOf(scaled))).toMatchObject({
      spec: { parallelism: 3, completions: 2 },
    });
  });
});

describe('diffRequests', () => {
  it('lists the fields an edit changes, before and after', () => {
    const before = WorkloadRequestSchema.parse(SEED_REQUEST);
    const after = structuredClone(before);
    const gpu = after.containers[0]?.gpu;
    if (gpu === undefined) throw new Error('GPU container');
    gpu.compute = '1.6';
    expect(diffRequests(before, after)).toEqual([
      { path: 'containers.0.gpu.compute', before: '1.2', after: '1.6' },
    ]);
    expect(diffRequests(before, before)).toEqual([]);
  });
});

describe('what the form cannot express (readWorkloadObject().unexpressed)', () => {
  it('lists every field an update keeps as it is, so none is dropped silently', () => {
    const read = readWorkloadObject(foreignDeployment(), { modelLabel: MODEL_LABEL });
    const base = 'spec.template.spec';
    expect(read?.unexpressed).toEqual([
      { path: `${base}.serviceAccountName`, reason: 'pod-field', kept: true },
      { path: `${base}.volumes`, reason: 'pod-field', kept: true },
      { path: `${base}.containers[0].env`, reason: 'container-field', kept: true },
      { path: `${base}.containers[0].volumeMounts`, reason: 'container-field', kept: true },
      {
        path: `${base}.containers[0].resources.requests["cpu"]`,
        reason: 'other-resource',
        kept: true,
      },
      {
        path: `${base}.containers[0].resources.limits["cpu"]`,
        reason: 'other-resource',
        kept: true,
      },
      { path: `${base}.containers[1].args`, reason: 'container-field', kept: true },
      {
        path: `${base}.containers[1].resources.requests["cpu"]`,
        reason: 'other-resource',
        kept: true,
      },
      {
        path: `${base}.containers[1].resources.requests["memory"]`,
        reason: 'other-resource',
        kept: true,
      },
    ]);
  });

  it('marks what an update would rewrite or drop, so the form does not edit such an object', () => {
    const live = foreignDeployment();
    const spec = live.spec.template.spec;
    const worker = spec.containers[0] as unknown as {
      resources: { requests: Record<string, string>; limits: Record<string, string> };
    };
    worker.resources.requests['vke.volcengine.com/mgpu-core'] = '100';
    const expressions =
      spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
        ?.matchExpressions ?? [];
    expressions[1] = { key: MODEL_LABEL, operator: 'In', values: ['NVIDIA-L20', 'NVIDIA-A10'] };
    (live.spec.template.metadata.annotations as Record<string, string>)[
      'vke.volcengine.com/multiple-mgpu-gone'
    ] = '2';
    (spec as Record<string, unknown>).initContainers = [
      { name: 'warm', image: 'busybox', resources: { limits: { 'nvidia.com/gpu': '1' } } },
    ];
    const lost = readWorkloadObject(live, { modelLabel: MODEL_LABEL })?.unexpressed.filter(
      (field) => !field.kept,
    );
    expect(lost).toEqual([
      {
        path: 'spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1]',
        reason: 'model-requirement',
        kept: false,
      },
      {
        path: 'spec.template.spec.initContainers[0].resources',
        reason: 'init-container-gpu',
        kept: false,
      },
      {
        path: 'spec.template.metadata.annotations["vke.volcengine.com/multiple-mgpu-gone"]',
        reason: 'multi-card-annotation',
        kept: false,
      },
      {
        path: 'spec.template.spec.containers[0].resources.requests["vke.volcengine.com/mgpu-core"]',
        reason: 'gpu-request-not-limit',
        kept: false,
      },
    ]);
  });

  it('finds nothing in an object the console made, nor in what the API server defaults', () => {
    const manifest = checkRequest(WorkloadRequestSchema.parse(SEED_REQUEST)).manifest;
    expect(readWorkloadObject(manifest)?.unexpressed).toEqual([]);
    const job = checkRequest(
      WorkloadRequestSchema.parse({ ...SEED_REQUEST, kind: 'Job' }),
    ).manifest;
    expect(readWorkloadObject(job)?.unexpressed).toEqual([]);
    // As kube-apiserver stores it: SetDefaults_PodSpec and SetDefaults_Container filled in.
    const stored = structuredClone(manifest) as unknown as {
      spec: {
        template: { spec: Record<string, unknown> & { containers: Record<string, unknown>[] } };
      };
    };
    Object.assign(stored.spec.template.spec, {
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
    });
    for (const container of stored.spec.template.spec.containers)
      Object.assign(container, {
        imagePullPolicy: 'IfNotPresent',
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      });
    expect(readWorkloadObject(stored)?.unexpressed).toEqual([]);
    // Set otherwise, they are someone's choice: listed, and kept.
    stored.spec.template.spec.terminationGracePeriodSeconds = 5;
    expect(readWorkloadObject(stored)?.unexpressed).toEqual([
      { path: 'spec.template.spec.terminationGracePeriodSeconds', reason: 'pod-field', kept: true },
    ]);
  });
});

describe('managedFieldsOf and manifestDiff: the YAML diff before an edit is applied', () => {
  it('shows only the form fields of the live object, never env or volumes', () => {
    const managed = managedFieldsOf(foreignDeployment(), { modelLabel: MODEL_LABEL });
    const text = JSON.stringify(managed);
    expect(text).not.toContain('TOKEN');
    expect(text).not.toContain('volumes');
    expect(text).not.toContain('"cpu"');
    expect(managed).toMatchObject({
      kind: 'Deployment',
      spec: {
        replicas: 1,
        template: {
          metadata: { annotations: { 'vke.volcengine.com/container-multiple-gpu': '2,1' } },
        },
      },
    });
  });

  it('diffs the live manifest against the edit line by line', () => {
    const live = foreignDeployment();
    const request = structuredClone(
      readWorkloadObject(live, { modelLabel: MODEL_LABEL })?.request as WorkloadRequest,
    );
    const gpu = request.containers[0]?.gpu;
    if (gpu === undefined) throw new Error('GPU container');
    gpu.compute = '1.6';
    const before = managedFieldsOf(live, { modelLabel: MODEL_LABEL });
    // Applying onto the managed fields alone gives the managed fields of the applied object.
    const after = managedFieldsOf(
      applyRequestToObject(before, request, shareOf(request), { modelLabel: MODEL_LABEL }),
      { modelLabel: MODEL_LABEL },
    );
    expect(after).toEqual(
      managedFieldsOf(
        applyRequestToObject(live, request, shareOf(request), { modelLabel: MODEL_LABEL }),
        { modelLabel: MODEL_LABEL },
      ),
    );
    const changed = manifestDiff(before, after).filter((line) => line.change !== 'same');
    expect(changed).toEqual([
      { change: 'removed', text: '        vke.volcengine.com/container-multiple-gpu: 2,1' },
      { change: 'added', text: '        vke.volcengine.com/multiple-mgpu-worker: "2"' },
      { change: 'removed', text: '              vke.volcengine.com/mgpu-core: "120"' },
      { change: 'added', text: '              vke.volcengine.com/mgpu-core: "160"' },
      { change: 'removed', text: '              vke.volcengine.com/mgpu-core: "120"' },
      { change: 'added', text: '              vke.volcengine.com/mgpu-core: "160"' },
    ]);
    expect(manifestDiff(before, before).every((line) => line.change === 'same')).toBe(true);
  });

  it('shows no YAML change for annotations the API server wrote back in key order', () => {
    const live = managedFieldsOf(foreignDeployment(), { modelLabel: MODEL_LABEL });
    const template = (
      live.spec as { template: { metadata: { annotations: Record<string, string> } } }
    ).template;
    const reordered = structuredClone(live);
    const annotations = template.metadata.annotations;
    (
      reordered.spec as typeof live.spec & { template: typeof template }
    ).template.metadata.annotations = Object.fromEntries(Object.entries(annotations).reverse());
    expect(Object.keys(annotations).length).toBeGreaterThan(1);
    expect(manifestDiff(live, reordered).every((line) => line.change === 'same')).toBe(true);
  });
});
