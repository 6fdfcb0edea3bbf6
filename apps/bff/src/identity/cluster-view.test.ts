/**
 * What an operator who may not `list nodes` gets of the reads every operator needs to create
 * (spec §8): on either cluster, as an operator whose every review fails — a token the API server
 * does not accept, so the filter fails closed. Operators with real RoleBindings, with and
 * without `list nodes`, are in filtered-reads.real.test.ts.
 */

import type { Operator } from '@mgpu/api';
import { pendingWithoutNodes, progressWithoutNodes, summaryWithoutNodes } from '@mgpu/api';
import type { WorkloadProgress } from '@mgpu/shared';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  eventually,
  PENDING_GPU,
  seedRequest,
  startBffTest,
  trackedData,
  uniqueName,
} from '../test-support/bff-harness.js';
import { operatorCaller, operatorWithToken } from '../test-support/operators.js';

const harness = startBffTest();
let refused: Operator;
beforeAll(() => {
  refused = operatorWithToken(harness.connection.kubeConfig, 'not-a-token', 'nobody');
});

const impossibleRequest = (name: string) => seedRequest(name, {}, PENDING_GPU);

/** Every node name the cluster has, to look for in an answer's JSON. */
const nodeNames = async () => (await harness.caller.cluster.nodes()).map((node) => node.name);

describe('an operator who may not list nodes', () => {
  it('gets the GPU models the form offers without node counts or free room', async () => {
    const full = await harness.caller.gpu.models();
    const theirs = await operatorCaller(harness.bff.context, refused).gpu.models();
    expect(full.length).toBeGreaterThan(0);
    expect(full[0]?.nodes).toBeGreaterThan(0);
    expect(theirs).toEqual(
      full.map(({ model, memoryMiBPerCard, cardsPerNode, resourceTypes, policies }) => ({
        model,
        memoryMiBPerCard,
        cardsPerNode,
        resourceTypes,
        policies,
      })),
    );
  });

  it('gets a preview that says whether and why, not where', async () => {
    const request = seedRequest(uniqueName('withheld'), { replicas: 2 });
    const full = await harness.caller.workload.preview({ request, lang: 'en' });
    const theirs = await operatorCaller(harness.bff.context, refused).workload.preview({
      request,
      lang: 'en',
    });
    expect(theirs.valid).toBe(true);
    expect(theirs.manifest).toEqual(full.manifest);
    expect(theirs.placement.nodesWithheld).toBe(true);
    expect(theirs.placement.replicas.map((replica) => replica.ok)).toEqual(
      full.placement.replicas.map((replica) => replica.ok),
    );
    const [replica] = theirs.placement.replicas;
    expect(replica).toEqual({ replica: 0, ok: true, rejections: expect.any(Array) });
    // The same verdicts per node group, without the nodes.
    const verdicts = (preview: typeof full) =>
      preview.placement.replicas[0]?.rejections.map(({ group, code, params }) => ({
        group,
        code,
        params,
      }));
    expect(verdicts(theirs)).toEqual(verdicts(full));
    expect(verdicts(theirs)?.length).toBeGreaterThan(0);
    const text = JSON.stringify(theirs.placement);
    for (const node of await nodeNames()) expect(text).not.toContain(`"${node}"`);
  });

  it('is told why a replica fits nowhere, per node group, without a node count', async () => {
    const request = impossibleRequest(uniqueName('nowhere'));
    const full = await harness.caller.workload.preview({ request, lang: 'en' });
    const theirs = await operatorCaller(harness.bff.context, refused).workload.preview({
      request,
      lang: 'en',
    });
    const [replica] = theirs.placement.replicas;
    if (replica?.ok !== false) throw new Error('expected the replica to fit nowhere');
    expect(replica.totalNodes).toBeUndefined();
    expect(replica.message).toMatch(/^No node is available: /);
    expect(replica.message).not.toMatch(/\d+\/\d+ nodes/);
    expect(replica.rejections.map((rejection) => rejection.code)).toEqual(
      full.placement.replicas[0]?.rejections.map((rejection) => rejection.code),
    );
  });

  it('sees pending pods with their codes per group, no nodes, pools that fit or free room', async () => {
    const name = uniqueName('nofit');
    await harness.caller.workload.create({
      request: impossibleRequest(name),
      clientRequestId: uniqueName('c'),
      lang: 'en',
    });
    const full = await eventually(async () => {
      const pod = (await harness.caller.cluster.pending()).find((p) => p.workload === name);
      return pod && pod.rejections.length > 0 ? pod : undefined;
    }, 'the pod pending with reasons');
    const theirs = pendingWithoutNodes(full);
    expect(full.largestFits?.length).toBeGreaterThan(0);
    expect(theirs).toMatchObject({
      namespace: full.namespace,
      pod: full.pod,
      nodesWithheld: true,
    });
    expect(theirs).not.toHaveProperty('fitsNow');
    expect(theirs).not.toHaveProperty('largestFits');
    expect(theirs.rejections.map(({ group, code }) => `${group} ${code}`)).toEqual(
      full.rejections.map(({ group, code }) => `${group} ${code}`),
    );
    expect(theirs.message).toMatch(/^No node is available: /);
    const text = JSON.stringify(theirs);
    for (const node of await nodeNames()) expect(text).not.toContain(`"${node}"`);
    await harness.caller.workload.delete({ namespace: 'default', name });
  });

  it('reads a waiting workload’s state and stuck pods without node counts or free room', async () => {
    const name = uniqueName('nocount');
    await harness.caller.workload.create({
      request: impossibleRequest(name),
      clientRequestId: uniqueName('c'),
      lang: 'en',
    });
    const summary = await eventually(async () => {
      const found = (await harness.caller.workload.list({ namespace: 'default' })).find(
        (w) => w.name === name,
      );
      return found?.state?.reason === 'unschedulable' ? found : undefined;
    }, 'the list to say why it waits');
    const stream = await harness.caller.workload.progress({ namespace: 'default', name });
    let full: WorkloadProgress | undefined;
    for await (const item of stream) {
      full = trackedData<WorkloadProgress>(item);
      if (full.pods.some((pod) => pod.unschedulable && (pod.rejections?.length ?? 0) > 0)) break;
    }
    if (!full) throw new Error('the stream ended');
    // What the scheduler wrote into the pod counts nodes but names no free room: that lives in
    // the rejections' parameters, which are cut for operators who may not see nodes.
    const schedulerSaid = full.pods[0]?.unschedulable ?? '';
    expect(schedulerSaid).toMatch(/\d+\/\d+ nodes are available/);
    expect(schedulerSaid).not.toMatch(/free on the best node|the best node has/);
    expect(summary.state?.message).toBe(schedulerSaid);

    const theirs = progressWithoutNodes(full);
    const [pod] = theirs.pods;
    expect(pod?.unschedulable).toMatch(/^No node is available: /);
    expect(theirs.state).toMatchObject({ reason: 'unschedulable', message: pod?.unschedulable });
    const stuck = theirs.stages.find((stage) => stage.stage === 'scheduled');
    expect(stuck?.detail).toBe(pod?.unschedulable);
    const text = JSON.stringify({ ...theirs, pods: theirs.pods.map(({ node: _, ...p }) => p) });
    expect(text).not.toMatch(/\d+\/\d+ nodes|free on the best node|the best node has/);
    expect(text).not.toContain('freeComputePercent');
    expect(text).not.toContain('freeMemoryMiB');
    expect(summaryWithoutNodes(summary).state).toEqual({ ...summary.state, message: null });
    await harness.caller.workload.delete({ namespace: 'default', name });
  });
});
