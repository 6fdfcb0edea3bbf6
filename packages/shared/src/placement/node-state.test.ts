import { describe, expect, it } from 'vitest';
import type { KubePodLike } from '../ledger/read-pod.js';
import { gpuIndexAnnotation, VKE } from '../vke.js';
import { buildNodeStates, type KubeNodeLike, NodeStatesBuilder } from './node-state.js';

const gpuNode = (name: string, cards = 2): KubeNodeLike => ({
  metadata: {
    name,
    labels: {
      [VKE.scheduleLabel]: 'mgpu',
      [VKE.defaultModelLabel]: 'NVIDIA-L20',
      [VKE.computePolicyLabel]: 'native-burst-share',
    },
  },
  status: {
    allocatable: {
      pods: '110',
      [VKE.coreResource]: String(cards * 100),
      [VKE.memoryResource]: String(cards * 46068),
    },
  },
});

const boundPod = (name: string, node: string, card: string, core = 30): KubePodLike => ({
  metadata: {
    name,
    namespace: 'team-a',
    annotations: { [gpuIndexAnnotation('main')]: card },
  },
  spec: {
    nodeName: node,
    containers: [
      {
        name: 'main',
        resources: {
          requests: { [VKE.coreResource]: String(core), [VKE.memoryResource]: '4096' },
          limits: { [VKE.coreResource]: String(core), [VKE.memoryResource]: '4096' },
        },
      },
    ],
  },
});

describe('NodeStatesBuilder', () => {
  const nodes = [gpuNode('a'), gpuNode('b'), gpuNode('c')];
  const pods = [boundPod('p1', 'a', '0'), boundPod('p2', 'b', '1'), boundPod('p3', 'a', '1')];

  it('builds what buildNodeStates builds', () => {
    expect(new NodeStatesBuilder().build(nodes, pods)).toEqual(buildNodeStates(nodes, pods));
  });

  it('keeps the states of nodes whose Node and pods are the same objects, and the array when nothing changed', () => {
    const builder = new NodeStatesBuilder();
    const first = builder.build(nodes, pods);
    expect(builder.build(nodes, [...pods])).toBe(first);

    // p2 on b replaced by another object (as a watch event does): only b is built again.
    const moved = [pods[0], boundPod('p2', 'b', '0', 50), pods[2]].filter(
      (pod): pod is KubePodLike => pod !== undefined,
    );
    const second = builder.build(nodes, moved);
    expect(second).not.toBe(first);
    expect(second[0]).toBe(first[0]);
    expect(second[2]).toBe(first[2]);
    expect(second[1]).not.toBe(first[1]);
    expect(second).toEqual(buildNodeStates(nodes, moved));
  });

  it('builds a node again when its Node object is replaced, and drops nodes that went away', () => {
    const builder = new NodeStatesBuilder();
    const first = builder.build(nodes, pods);
    const relabelled = [gpuNode('a', 4), nodes[1]].filter(
      (node): node is KubeNodeLike => node !== undefined,
    );
    const second = builder.build(relabelled, pods);
    expect(second.map((state) => state.name)).toEqual(['a', 'b']);
    expect(second[0]?.cards).toHaveLength(4);
    expect(second[1]).toBe(first[1]);
    expect(second).toEqual(buildNodeStates(relabelled, pods));
  });
});
