import { checkRequest, newWorkloadRequest, type SuggestedFix } from '@mgpu/shared';
import { describe, expect, it } from 'vitest';
import { uiTranslator } from '../../i18n/i18n.js';
import { errorShown, errorsShown } from './draft.js';
import { DraftStore } from './draft-store.js';
import { fieldLabelOfPath } from './field-labels.js';
import { fixLabel } from './fix-buttons.js';

describe('errors stay quiet until the operator touches a field', () => {
  it('a fresh form shows no field in red, though the submit row counts its problems', () => {
    const store = new DraftStore(newWorkloadRequest(), 'zh-CN', 300);
    const snapshot = store.getSnapshot();
    expect(snapshot.errors.length).toBeGreaterThan(0);
    for (const error of snapshot.errors)
      expect(errorsShown(error.path, snapshot.engaged)).toBe(false);
    store.dispose();
  });

  it('typing into a GPU field wakes the container’s GPU fields; a submit or YAML wakes all', () => {
    const store = new DraftStore(newWorkloadRequest(), 'en', 300);
    store.engage('containers.0.gpu.compute');
    const { engaged } = store.getSnapshot();
    expect(errorsShown('containers.0.gpu.memoryGiB', engaged)).toBe(true);
    expect(errorsShown('containers.1.gpu.memoryGiB', engaged)).toBe(false);
    expect(errorsShown('name', engaged)).toBe(false);
    store.engage('containers.0.gpu.multiCard');
    expect(errorsShown('computePolicy', store.getSnapshot().engaged)).toBe(true);
    store.engage(undefined);
    expect(errorsShown('name', store.getSnapshot().engaged)).toBe(true);
    store.dispose();
  });

  it('an error shows once a field its fix changes is touched (quota: fewer replicas)', () => {
    const quota = {
      path: 'containers.0.gpu.compute',
      rule: 'quota-exceeded',
      message: 'over the quota',
      fixes: [{ changes: [{ path: 'replicas', value: 2 }] }],
    };
    const store = new DraftStore(newWorkloadRequest(), 'en', 300);
    expect(errorShown(quota, store.getSnapshot().engaged)).toBe(false);
    store.engage('replicas');
    const { engaged } = store.getSnapshot();
    expect(errorsShown(quota.path, engaged)).toBe(false);
    expect(errorShown(quota, engaged)).toBe(true);
    expect(errorShown({ ...quota, fixes: [] }, engaged)).toBe(false);
    store.dispose();
  });
});

describe('fields named by their labels', () => {
  it('reads a request path as the form labels it, in both languages', () => {
    expect(fieldLabelOfPath('containers.0.gpu.compute', uiTranslator('zh-CN'))).toBe('GPU 算力');
    expect(fieldLabelOfPath('containers.0.gpu.compute', uiTranslator('en'))).toBe('GPU compute');
    expect(fieldLabelOfPath('containers.1.gpu.memoryGiB', uiTranslator('en'))).toContain(
      'GPU memory',
    );
    expect(fieldLabelOfPath('containers.1.gpu.memoryGiB', uiTranslator('en'))).toContain('2');
    expect(fieldLabelOfPath('replicas', uiTranslator('zh-CN'))).toBe('副本数');
  });

  it('words a fix button by the fields and values it sets', () => {
    const request = {
      ...newWorkloadRequest(),
      name: 'demo',
      computePolicy: 'native-burst-share',
      containers: [
        {
          name: 'main',
          image: 'nginx:1.27',
          gpu: {
            type: 'mgpu' as const,
            multiCard: true,
            cards: 2,
            compute: '0.015',
            memoryGiB: '4',
          },
        },
      ],
    };
    const fix = checkRequest(request).errors[0]?.fixes?.[0] as SuggestedFix;
    expect(fixLabel(fix, uiTranslator('zh-CN'))).toBe('改为 GPU 算力 0.02');
    expect(fixLabel(fix, uiTranslator('en'))).toBe('Use GPU compute 0.02');
  });
});
