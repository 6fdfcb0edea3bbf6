import { describe, expect, it } from 'vitest';
import { LANGS } from '../rules.js';
import {
  REJECTION_CODES,
  type RejectionParams,
  rejectionLine,
  rejectionMessage,
  rejectionText,
} from './rejections.js';

/** A value for every parameter any code is worded from. */
const EVERY_PARAM: Required<RejectionParams> = {
  rules: 'compute-range',
  podPolicy: 'fixed-share',
  nodePolicy: 'guaranteed-burst-share',
  podTypes: 'mgpu',
  nodeType: 'nvidia',
  model: 'NVIDIA-L20, NVIDIA-A10',
  nodeModel: 'Tesla-V100',
  key: 'zone',
  value: 'a',
  maxPods: 110,
  container: 'worker',
  cards: 2,
  nodeCards: 1,
  computePercent: 60,
  memoryMiB: 4096,
  instances: 3,
  instancesPerCard: 16,
  freeComputePercent: 240,
  freeMemoryMiB: 2048,
};

describe('the rejection catalog', () => {
  it('words every code in every language, every placeholder filled', () => {
    for (const lang of LANGS)
      for (const code of REJECTION_CODES) {
        const text = rejectionText(code, EVERY_PARAM, lang);
        expect(text, `${lang} ${code}`).not.toMatch(/\{\w+\}|undefined/);
        expect(text.trim(), `${lang} ${code}`).not.toBe('');
      }
  });

  it('types each code’s parameters', () => {
    expect(rejectionText('model', { nodeModel: 'Tesla-V100', model: 'NVIDIA-L20' }, 'en')).toBe(
      'GPU model Tesla-V100 is not NVIDIA-L20',
    );
    // @ts-expect-error the model rejection names the node's model too
    rejectionText('model', { model: 'NVIDIA-L20' }, 'en');
    // @ts-expect-error no rejection is worded from a parameter RejectionParams lacks
    rejectionText('pods', { maxPods: 110, pods: 3 }, 'en');
  });

  it('lists the models an affinity allows in each language', () => {
    const params = { nodeModel: 'Tesla-V100', model: 'NVIDIA-L20, NVIDIA-A10' };
    expect(rejectionText('model', params, 'en')).toBe(
      'GPU model Tesla-V100 is not any of NVIDIA-L20, NVIDIA-A10',
    );
    expect(rejectionText('model', params, 'zh-CN')).toBe(
      '显卡类型是 Tesla-V100，不是 NVIDIA-L20、NVIDIA-A10 中的任何一种',
    );
  });

  it('words the scheduler’s Events from the English catalog, in kube-scheduler’s idiom', () => {
    for (const code of REJECTION_CODES) {
      if (code === 'policy-multi-card') continue;
      expect(rejectionMessage(code, EVERY_PARAM), code).toBe(
        rejectionText(code, EVERY_PARAM, 'en'),
      );
    }
    expect(rejectionMessage('policy-multi-card', { nodePolicy: 'fixed-share' })).toBe(
      'policy fixed-share does not match native-burst-share (multi-card sharing)',
    );
    expect(rejectionText('policy-multi-card', { nodePolicy: 'fixed-share' }, 'en')).toBe(
      'policy fixed-share does not allow multi-card sharing (needs native-burst-share)',
    );
  });

  it('names the node group and count on a console line, not for the pod itself', () => {
    const nodes = { group: 'NVIDIA-L20/fixed-share', nodes: ['a', 'b'] };
    const policy = {
      code: 'policy',
      params: { nodePolicy: 'fixed-share', podPolicy: 'native-burst-share' },
    } as const;
    expect(rejectionLine({ ...nodes, ...policy }, 'en')).toBe(
      '2 node(s) of NVIDIA-L20/fixed-share: policy fixed-share does not match native-burst-share',
    );
    expect(rejectionLine({ ...nodes, ...policy }, 'zh-CN')).toBe(
      '2 个 NVIDIA-L20/fixed-share 节点：算力分配策略 fixed-share 与 Pod 的 native-burst-share 不一致',
    );
    const invalid = {
      group: 'pod',
      nodes: [],
      code: 'pod-invalid',
      params: { rules: 'compute-range' },
    } as const;
    expect(rejectionLine(invalid, 'en')).toBe("the pod's GPU request breaks compute-range");
  });

  it('names the group without a count when the nodes are withheld', () => {
    const policy = {
      group: 'NVIDIA-L20/fixed-share',
      code: 'policy',
      params: { nodePolicy: 'fixed-share', podPolicy: 'native-burst-share' },
    } as const;
    expect(rejectionLine(policy, 'en')).toBe(
      'nodes of NVIDIA-L20/fixed-share: policy fixed-share does not match native-burst-share',
    );
    expect(rejectionLine(policy, 'zh-CN')).toBe(
      'NVIDIA-L20/fixed-share 节点：算力分配策略 fixed-share 与 Pod 的 native-burst-share 不一致',
    );
  });
});
