import { newWorkloadRequest, type WorkloadRequestInput } from '@mgpu/shared';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DraftStore } from './draft-store.js';

const SETTLE_MS = 300;

/** The seed's example with the compute the operator is typing. */
function draft(compute: string, name = 'demo'): WorkloadRequestInput {
  return {
    ...newWorkloadRequest(),
    name,
    computePolicy: 'native-burst-share',
    containers: [
      {
        name: 'main',
        image: 'nginx:1.27',
        gpu: { type: 'mgpu', multiCard: true, compute, memoryGiB: '8', cards: '2' },
      },
    ],
  } as unknown as WorkloadRequestInput;
}

describe('DraftStore', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('checks each new request once and tells subscribers; the same request again changes nothing', () => {
    const store = new DraftStore(draft('1.2'), 'en', SETTLE_MS);
    const heard = vi.fn();
    store.subscribe(heard);
    expect(store.getSnapshot().local?.containers[0]?.perCard.computePercent).toBe(60);

    store.setDraft(draft('1.2'));
    expect(heard).not.toHaveBeenCalled();

    store.setDraft(draft('1.4'));
    expect(heard).toHaveBeenCalledTimes(1);
    expect(store.getSnapshot().local?.containers[0]?.perCard.computePercent).toBe(70);
  });

  it('keeps a field its errors array while they stay the same, so the field skips a render', () => {
    const store = new DraftStore(draft('0.31'), 'en', SETTLE_MS);
    const path = 'containers.0.gpu.compute';
    const before = store.getSnapshot().errorsByPath.get(path);
    expect(before?.map((e) => e.rule)).toEqual(['per-card-compute-precision']);

    // Typing in another field: this one's errors, and the list, read the same.
    const list = store.getSnapshot().errors;
    store.setDraft(draft('0.31', 'demo-2'));
    expect(store.getSnapshot().errorsByPath.get(path)).toBe(before);
    expect(store.getSnapshot().errors).toBe(list);

    store.setDraft(draft('0.33', 'demo-2'));
    expect(store.getSnapshot().errorsByPath.get(path)?.[0]?.message).toContain('0.33');

    store.setDraft(draft('0.3'));
    expect(store.getSnapshot().errorsByPath.get(path)).toBeUndefined();
    expect(store.getSnapshot().errors).toEqual([]);
  });

  it('settles the request after a pause in typing, not before', () => {
    const store = new DraftStore(draft('1.2'), 'en', SETTLE_MS);
    const first = store.getSnapshot().requestJson;
    store.setDraft(draft('1.4'));
    vi.advanceTimersByTime(SETTLE_MS - 1);
    store.setDraft(draft('1.6'));
    vi.advanceTimersByTime(SETTLE_MS - 1);
    expect(store.getSnapshot().settledJson).toBe(first);
    vi.advanceTimersByTime(1);
    expect(store.getSnapshot().settledJson).toBe(store.getSnapshot().requestJson);
    expect(JSON.parse(store.getSnapshot().settledJson).containers[0].gpu.compute).toBe('1.6');
  });

  it("shows the preview's and the server's errors only while the request is the one they judged", () => {
    const store = new DraftStore(draft('1.2'), 'en', SETTLE_MS);
    const judged = store.getSnapshot().requestJson;
    store.setPreviewErrors({
      forJson: judged,
      errors: [
        { path: 'containers.0.gpu.model', rule: 'model-unknown', message: 'no such model' },
        // Not cluster-aware: the browser's own check speaks for these.
        { path: 'name', rule: 'name-format', message: 'stale' },
      ],
    });
    store.setServerErrors({
      forJson: judged,
      errors: [{ path: 'name', rule: 'name-taken', message: 'taken' }],
    });
    expect(store.getSnapshot().errors.map((e) => e.rule)).toEqual(['model-unknown', 'name-taken']);
    expect(
      store
        .getSnapshot()
        .errorsByPath.get('name')
        ?.map((e) => e.rule),
    ).toEqual(['name-taken']);

    store.setDraft(draft('1.4'));
    expect(store.getSnapshot().errors).toEqual([]);
  });

  it('speaks the operator language', () => {
    const store = new DraftStore(draft('1.27'), 'en', SETTLE_MS);
    const english = store.getSnapshot().errors[0]?.message;
    store.setLang('zh-CN');
    const chinese = store.getSnapshot().errors[0]?.message;
    expect(chinese).not.toBe(english);
    expect(chinese).toMatch(/[\u4e00-\u9fff]/);
  });
});
