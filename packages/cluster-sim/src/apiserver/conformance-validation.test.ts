/**
 * API conformance: validation, dry run, the MgpuNode custom resource and the sim's state file,
 * answered the way a kube-apiserver answers them.
 */
import { PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  apps,
  cluster,
  core,
  custom,
  deployment,
  namespace,
  pod,
  useConformanceCluster,
} from '../test-support/conformance.js';
import { expectStatus } from './test-cluster.js';

useConformanceCluster();

describe('validation', () => {
  it('answers 422 Invalid with a cause per broken field', async () => {
    const broken = deployment('broken');
    const template = broken.spec?.template.spec;
    if (!template) throw new Error('fixture has a template');
    template.containers = [
      { name: 'worker', image: '' },
      { name: 'worker', image: 'nginx' },
      { name: 'Bad_Name', image: 'nginx' },
    ];
    const status = await expectStatus(apps.createNamespacedDeployment({ namespace, body: broken }));
    expect(status).toMatchObject({
      kind: 'Status',
      code: 422,
      reason: 'Invalid',
      details: { name: 'broken', kind: 'Deployment' },
    });
    expect(status.details?.causes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          reason: 'FieldValueRequired',
          field: 'spec.template.spec.containers[0].image',
        }),
        expect.objectContaining({
          reason: 'FieldValueDuplicate',
          field: 'spec.template.spec.containers[1].name',
        }),
        expect.objectContaining({
          reason: 'FieldValueInvalid',
          field: 'spec.template.spec.containers[2].name',
        }),
      ]),
    );
    const mismatch = deployment('mismatch');
    if (mismatch.spec) mismatch.spec.selector = { matchLabels: { app: 'other' } };
    const selectorStatus = await expectStatus(
      apps.createNamespacedDeployment({ namespace, body: mismatch }),
    );
    expect(selectorStatus.details?.causes).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'spec.template.metadata.labels' })]),
    );
    const badName = await expectStatus(
      apps.createNamespacedDeployment({ namespace, body: deployment('Not_A_Name') }),
    );
    expect(badName.details?.causes?.[0]).toMatchObject({
      reason: 'FieldValueInvalid',
      field: 'metadata.name',
    });
    const noContainers = await expectStatus(
      core.createNamespacedPod({
        namespace,
        body: { metadata: { name: 'empty' }, spec: { containers: [] } },
      }),
    );
    expect(noContainers.details?.causes?.[0]).toMatchObject({
      reason: 'FieldValueRequired',
      field: 'spec.containers',
    });
  });

  it('names a Service with a DNS-1035 label: a letter first, no dots', async () => {
    const service = (name: string) => ({
      metadata: { name },
      spec: { clusterIP: 'None', selector: { app: name } },
    });
    for (const name of ['web.v2', '1web']) {
      const status = await expectStatus(
        core.createNamespacedService({ namespace, body: service(name), dryRun: 'All' }),
      );
      expect(status).toMatchObject({ code: 422, reason: 'Invalid' });
      expect(status.details?.causes?.[0]).toMatchObject({
        reason: 'FieldValueInvalid',
        field: 'metadata.name',
      });
    }
    const valid = await core.createNamespacedService({
      namespace,
      body: service('web-v2'),
      dryRun: 'All',
    });
    expect(valid.metadata?.name).toBe('web-v2');
  });

  it('keeps the selector of a deployment and the spec of a pod immutable', async () => {
    await apps.createNamespacedDeployment({ namespace, body: deployment('fixed') });
    const changed = await expectStatus(
      apps.patchNamespacedDeployment(
        {
          name: 'fixed',
          namespace,
          body: {
            spec: {
              selector: { matchLabels: { extra: 'x' } },
              template: { metadata: { labels: { extra: 'x' } } },
            },
          },
        },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      ),
    );
    expect(changed.details?.causes).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'spec.selector' })]),
    );
    await core.createNamespacedPod({ namespace, body: pod('frozen') });
    const image = await core.patchNamespacedPod(
      {
        name: 'frozen',
        namespace,
        body: { spec: { containers: [{ name: 'worker', image: 'nginx:1.28' }] } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
    );
    expect(image.spec?.containers[0]?.image).toBe('nginx:1.28');
    const forbidden = await expectStatus(
      core.patchNamespacedPod(
        { name: 'frozen', namespace, body: { spec: { restartPolicy: 'Never' } } },
        setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
      ),
    );
    expect(forbidden).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(forbidden.details?.causes?.[0]).toMatchObject({
      reason: 'FieldValueForbidden',
      field: 'spec',
    });
  });
});

describe('dry run', () => {
  it('validates but stores nothing on create, update, patch and delete', async () => {
    const dry = await apps.createNamespacedDeployment({
      namespace,
      body: deployment('dry'),
      dryRun: 'All',
    });
    expect(dry.metadata?.name).toBe('dry');
    expect(
      (await expectStatus(apps.readNamespacedDeployment({ name: 'dry', namespace }))).code,
    ).toBe(404);
    const invalidDry = await expectStatus(
      apps.createNamespacedDeployment({ namespace, body: deployment('Bad Name'), dryRun: 'All' }),
    );
    expect(invalidDry.code).toBe(422);
    // Update, patch and delete on a pod: no controller writes to an unscheduled pod, so its
    // resourceVersion stays put on a real cluster too.
    const real = await core.createNamespacedPod({ namespace, body: pod('wet') });
    await core.patchNamespacedPod(
      { name: 'wet', namespace, dryRun: 'All', body: { metadata: { labels: { dry: 'patch' } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    await core.replaceNamespacedPod({
      name: 'wet',
      namespace,
      dryRun: 'All',
      body: { ...real, metadata: { ...real.metadata, labels: { dry: 'update' } } },
    });
    await core.deleteNamespacedPod({ name: 'wet', namespace, dryRun: 'All' });
    const after = await core.readNamespacedPod({ name: 'wet', namespace });
    expect(after.metadata?.labels ?? {}).toEqual({});
    expect(after.metadata?.resourceVersion).toBe(real.metadata?.resourceVersion);
  });
});

describe('custom resource MgpuNode', () => {
  it('stores node-agent reports with a status subresource', async () => {
    const report = {
      apiVersion: 'mgpu.console.io/v1alpha1',
      kind: 'MgpuNode',
      metadata: { name: 'node-report-a' },
      spec: { nodeName: 'node-a' },
      status: { ignored: true },
    };
    const created = (await custom.createClusterCustomObject({
      group: 'mgpu.console.io',
      version: 'v1alpha1',
      plural: 'mgpunodes',
      body: report,
    })) as { status?: unknown; metadata: { resourceVersion: string } };
    expect(created.status).toBeUndefined();
    const updated = (await custom.replaceClusterCustomObjectStatus({
      group: 'mgpu.console.io',
      version: 'v1alpha1',
      plural: 'mgpunodes',
      name: 'node-report-a',
      body: {
        ...report,
        // Custom resources refuse a PUT without the version it replaces.
        metadata: { name: 'node-report-a', resourceVersion: created.metadata.resourceVersion },
        status: { instances: [{ device_id: 0, compute_weight_online: 60 }] },
      },
    })) as { status?: { instances: unknown[] } };
    expect(updated.status?.instances).toHaveLength(1);
    const strategic = await expectStatus(
      custom.patchClusterCustomObject(
        {
          group: 'mgpu.console.io',
          version: 'v1alpha1',
          plural: 'mgpunodes',
          name: 'node-report-a',
          body: { spec: {} },
        },
        setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch),
      ),
    );
    expect(strategic.code).toBe(415);
    await custom.deleteClusterCustomObject({
      group: 'mgpu.console.io',
      version: 'v1alpha1',
      plural: 'mgpunodes',
      name: 'node-report-a',
    });
  });
});

describe('state file', () => {
  it('keeps objects across a restart and keeps resourceVersions increasing', async () => {
    if (!cluster.isSim) return;
    const kept = await apps.createNamespacedDeployment({ namespace, body: deployment('kept') });
    await cluster.restart();
    const restored = await apps.readNamespacedDeployment({ name: 'kept', namespace });
    expect(restored.metadata?.uid).toBe(kept.metadata?.uid);
    expect(restored.metadata?.resourceVersion).toBe(kept.metadata?.resourceVersion);
    const changed = await apps.patchNamespacedDeployment(
      {
        name: 'kept',
        namespace,
        body: { metadata: { labels: { app: 'kept', after: 'restart' } } },
      },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(BigInt(changed.metadata?.resourceVersion ?? '0')).toBeGreaterThan(
      BigInt(kept.metadata?.resourceVersion ?? '0'),
    );
  });
});
