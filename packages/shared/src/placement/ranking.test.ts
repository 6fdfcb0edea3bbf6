import { describe, expect, it } from 'vitest';
import { mgpu, node, place, pod } from '../test-support/placement.js';
import { describeRejections, placePod } from './place-pod.js';
import { excludedLine, rankRejections } from './ranking.js';
import { rejectionLine } from './rejections.js';

const A100 = 'NVIDIA-A100';
const nbs = 'native-burst-share';

/** A busy A100 node beside node groups the choice of A100 (and its policy) rules out. */
function cluster() {
  const nodes = [
    node({ name: 'l20-a', model: 'NVIDIA-L20', policy: nbs, cards: 4 }),
    node({ name: 'l20-b', model: 'NVIDIA-L20', policy: 'fixed-share', cards: 4 }),
    node({ name: 'v100', model: 'Tesla-V100', policy: nbs, cards: 8 }),
    node({ name: 'a100-fixed', model: A100, policy: 'fixed-share', cards: 4 }),
    node({ name: 'a100', model: A100, policy: nbs, cards: 4 }),
  ];
  // The A100 node now has 320 % free.
  place(pod([mgpu('x', 80, 4096)], { policy: nbs, model: A100 }), nodes);
  return nodes;
}

describe('rejections ranked for the operator', () => {
  const request = pod([mgpu('worker', 90, 4096, 4)], { policy: nbs, model: A100 });

  it('folds the groups the operator’s model and policy rule out into one line', () => {
    const result = placePod(request, cluster());
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const { ranked, excluded } = rankRejections(result.rejections);
    expect(excluded?.groups.sort()).toEqual([
      `${A100}/fixed-share`,
      'NVIDIA-L20/fixed-share',
      `NVIDIA-L20/${nbs}`,
      `Tesla-V100/${nbs}`,
    ]);
    expect(excluded?.reasons).toEqual(['policy', 'model']);
    expect(ranked.every((r) => r.group === `${A100}/${nbs}`)).toBe(true);
    if (!excluded) return;
    expect(excludedLine(excluded, 'zh-CN')).toContain('另有 4 组节点');
    expect(excludedLine(excluded, 'zh-CN')).toContain('显卡类型');
    expect(excludedLine(excluded, 'en')).toContain('4 other node group(s)');
  });

  it('puts the closest group first with its shortfall in numbers', () => {
    const result = placePod(request, cluster());
    if (result.ok) throw new Error('the request should not fit');
    const [first] = rankRejections(result.rejections).ranked;
    if (!first) throw new Error('no rejection left');
    expect(first.code).toBe('compute');
    expect(rejectionLine(first, 'en')).toContain('needs 360%, 320% free on the best node');
    expect(rejectionLine(first, 'zh-CN')).toContain('需要 360%，最空闲的节点只有 320%');
    // The figure lives in the parameters only: the English message goes into the pod's
    // condition and Events, which operators who may not see nodes read too.
    expect(first.params.freeComputePercent).toBe(320);
    expect(first.message).not.toContain('320');
    expect(describeRejections(result)).not.toContain('free on the best node');
  });

  it('puts the closest of several node groups first though they come farthest first', () => {
    const v100 = 'Tesla-V100';
    const nodes = [
      node({ name: 'a100', model: A100, policy: nbs, cards: 4 }),
      node({ name: 'l20', model: 'NVIDIA-L20', policy: nbs, cards: 4 }),
      node({ name: 'v100', model: v100, policy: nbs, cards: 4 }),
    ];
    // 80 % free on the A100 node, 240 % on the L20 node, 320 % on the V100 node.
    const busy = (model: string, pods: number) => {
      for (let i = 0; i < pods; i++)
        place(pod([mgpu('x', 80, 4096)], { policy: nbs, model }), nodes);
    };
    busy(A100, 4);
    busy('NVIDIA-L20', 2);
    busy(v100, 1);
    const result = placePod(pod([mgpu('worker', 90, 4096, 4)], { policy: nbs }), nodes);
    if (result.ok) throw new Error('no node has 360 % free');
    const free = (rejections: typeof result.rejections) =>
      rejections.map((r) => [r.group, r.params.freeComputePercent]);
    // The groups arrive farthest first, so keeping their order would put the A100 group first.
    expect(free(result.rejections)).toEqual([
      [`${A100}/${nbs}`, 80],
      [`NVIDIA-L20/${nbs}`, 240],
      [`${v100}/${nbs}`, 320],
    ]);
    const { ranked, excluded } = rankRejections(result.rejections);
    expect(excluded).toBeUndefined();
    expect(free(ranked)).toEqual([
      [`${v100}/${nbs}`, 320],
      [`NVIDIA-L20/${nbs}`, 240],
      [`${A100}/${nbs}`, 80],
    ]);
    const [first] = ranked;
    if (!first) throw new Error('no rejection left');
    expect(rejectionLine(first, 'en')).toContain('needs 360%, 320% free on the best node');
    expect(rejectionLine(first, 'zh-CN')).toContain('需要 360%，最空闲的节点只有 320%');
  });

  it('keeps every line when nothing but the operator’s choices rule nodes out', () => {
    const result = placePod(pod([mgpu('worker', 50, 4096)], { policy: nbs, model: 'H100' }), [
      node({ name: 'l20', model: 'NVIDIA-L20', policy: nbs }),
    ]);
    if (result.ok) throw new Error('no H100 node exists');
    const { ranked, excluded } = rankRejections(result.rejections);
    expect(excluded).toBeUndefined();
    expect(ranked).toHaveLength(result.rejections.length);
  });
});
