/** The check's per-card memory, multi-card policy and annotation-key rules, read from the spec. */
import { describe, expect, it } from 'vitest';
import { checkRequest } from './check.js';
import { MEMORY, multi, type Row, requestOf, runRow, single } from './test-support/check-rows.js';

describe('per-card-memory-integer and per-card-memory-range', () => {
  const rows: Row[] = [
    {
      label: '12 GiB over 3 cards (4096 MiB)',
      gpu: multi('0.9', 3, '12'),
      errors: [],
      cards: 3,
      perCard: { computePercent: 30, memoryMiB: 4096 },
    },
    {
      label: '5 GiB over 3 cards (1706.67 MiB)',
      gpu: multi('0.9', 3, '5'),
      errors: [['per-card-memory-integer', MEMORY]],
    },
    {
      label: '1.5 GiB on one card (1536 MiB)',
      gpu: single('0.5', '1.5'),
      errors: [],
      cards: 1,
      perCard: { computePercent: 50, memoryMiB: 1536 },
    },
    {
      label: '1.0009765625 GiB on one card (1025 MiB)',
      gpu: single('0.5', '1.0009765625'),
      errors: [],
      cards: 1,
      perCard: { computePercent: 50, memoryMiB: 1025 },
    },
    {
      label: '1.0001 GiB on one card (1024.1024 MiB)',
      gpu: single('0.5', '1.0001'),
      errors: [['per-card-memory-integer', MEMORY]],
    },
    {
      label: '1 GiB on one card (1024 MiB, the lower bound)',
      gpu: single('0.5', '1'),
      errors: [],
      cards: 1,
      perCard: { computePercent: 50, memoryMiB: 1024 },
    },
    {
      label: '0.9990234375 GiB on one card (1023 MiB)',
      gpu: single('0.5', '0.9990234375'),
      errors: [['per-card-memory-range', MEMORY]],
    },
    {
      label: '0.99 GiB on one card (1013.76 MiB: fractional and too small)',
      gpu: single('0.5', '0.99'),
      errors: [
        ['per-card-memory-integer', MEMORY],
        ['per-card-memory-range', MEMORY],
      ],
    },
    {
      label: '80 GiB on one card (81920 MiB, the upper bound)',
      gpu: single('0.5', '80'),
      errors: [],
      cards: 1,
      perCard: { computePercent: 50, memoryMiB: 81920 },
    },
    {
      label: '80.0009765625 GiB on one card (81921 MiB)',
      gpu: single('0.5', '80.0009765625'),
      errors: [['per-card-memory-range', MEMORY]],
    },
    {
      label: '80.5 GiB on one card (82432 MiB)',
      gpu: single('0.5', '80.5'),
      errors: [['per-card-memory-range', MEMORY]],
    },
    {
      label: '160 GiB over 2 cards (81920 MiB each)',
      gpu: multi('1.2', 2, '160'),
      errors: [],
      cards: 2,
      perCard: { computePercent: 60, memoryMiB: 81920 },
    },
    {
      label: '160.5 GiB over 2 cards (82176 MiB each)',
      gpu: multi('1.2', 2, '160.5'),
      errors: [['per-card-memory-range', MEMORY]],
    },
    {
      label: '2 GiB over 2 cards (1024 MiB each)',
      gpu: multi('1.2', 2, '2'),
      errors: [],
      cards: 2,
      perCard: { computePercent: 60, memoryMiB: 1024 },
    },
    {
      label: '1.5 GiB over 2 cards (768 MiB each)',
      gpu: multi('1.2', 2, '1.5'),
      errors: [['per-card-memory-range', MEMORY]],
    },
  ];
  it.each(rows)('$label', (row) => runRow(row));
});

describe('multi-card-policy (算力分配策略) and annotation-key-too-long', () => {
  const name49 = `w${'x'.repeat(47)}1`;
  const name50 = `w${'x'.repeat(48)}1`;
  const name63 = `w${'x'.repeat(61)}1`;
  const name43 = `w${'x'.repeat(41)}1`;
  const name44 = `w${'x'.repeat(42)}1`;
  const rows: Row[] = [
    {
      label: 'multi-card with native-burst-share',
      gpu: multi('1.2', 2, '8'),
      errors: [],
      cards: 2,
      perCard: { computePercent: 60, memoryMiB: 4096 },
    },
    {
      label: 'multi-card without a policy',
      gpu: multi('1.2', 2, '8'),
      request: { computePolicy: undefined },
      errors: [['multi-card-policy', 'computePolicy']],
    },
    {
      label: 'multi-card with fixed-share',
      gpu: multi('1.2', 2, '8'),
      request: { computePolicy: 'fixed-share' },
      errors: [['multi-card-policy', 'computePolicy']],
    },
    {
      label: 'multi-card with guaranteed-burst-share',
      gpu: multi('1.2', 2, '8'),
      request: { computePolicy: 'guaranteed-burst-share' },
      errors: [['multi-card-policy', 'computePolicy']],
    },
    {
      label: 'single card with fixed-share',
      gpu: single('0.5', '8'),
      request: { computePolicy: 'fixed-share' },
      errors: [],
      cards: 1,
      perCard: { computePercent: 50, memoryMiB: 8192 },
    },
    {
      label: 'single card without a policy',
      gpu: single('0.5', '8'),
      request: { computePolicy: undefined },
      errors: [],
      cards: 1,
      perCard: { computePercent: 50, memoryMiB: 8192 },
    },
    {
      label: 'an unknown policy',
      gpu: single('0.5', '8'),
      request: { computePolicy: 'best-effort' },
      errors: [['compute-policy-unknown', 'computePolicy']],
    },
    {
      // Issue 14: gpu-index-container-<name> (written by the scheduler) is the tighter key.
      label: 'multi-card, container name of 49 characters',
      gpu: multi('1.2', 2, '8'),
      request: { containers: [{ name: name49, image: 'nginx:1.27', gpu: multi('1.2', 2, '8') }] },
      errors: [['annotation-key-too-long', 'containers.0.name']],
    },
    {
      label: 'multi-card, container name of 43 characters',
      gpu: multi('1.2', 2, '8'),
      request: { containers: [{ name: name43, image: 'nginx:1.27', gpu: multi('1.2', 2, '8') }] },
      errors: [],
    },
    {
      label: 'single card, container name of 43 characters',
      gpu: single('0.5', '8'),
      request: { containers: [{ name: name43, image: 'nginx:1.27', gpu: single('0.5', '8') }] },
      errors: [],
    },
    {
      label: 'single card, container name of 44 characters',
      gpu: single('0.5', '8'),
      request: { containers: [{ name: name44, image: 'nginx:1.27', gpu: single('0.5', '8') }] },
      errors: [['annotation-key-too-long', 'containers.0.name']],
    },
    {
      label: 'nvidia, container name of 44 characters',
      gpu: { type: 'nvidia', cards: 1 },
      request: {
        containers: [{ name: name44, image: 'nginx:1.27', gpu: { type: 'nvidia', cards: 1 } }],
      },
      errors: [['annotation-key-too-long', 'containers.0.name']],
    },
    {
      label: 'no GPU, container name of 63 characters',
      gpu: { type: 'none' },
      request: { containers: [{ name: name63, image: 'nginx:1.27' }] },
      errors: [],
    },
    {
      label: 'multi-card, container name of 50 characters',
      gpu: multi('1.2', 2, '8'),
      request: { containers: [{ name: name50, image: 'nginx:1.27', gpu: multi('1.2', 2, '8') }] },
      errors: [['annotation-key-too-long', 'containers.0.name']],
    },
    {
      // Issue 14: the scheduler's gpu-index-container-<name> key is written for one card too.
      label: 'single card, container name of 50 characters',
      gpu: single('0.5', '8'),
      request: { containers: [{ name: name50, image: 'nginx:1.27', gpu: single('0.5', '8') }] },
      errors: [['annotation-key-too-long', 'containers.0.name']],
    },
    {
      // Issue 14: the scheduler's gpu-index-container-<name> key is written for one card too.
      label: 'single card, container name of 63 characters',
      gpu: single('0.5', '8'),
      request: { containers: [{ name: name63, image: 'nginx:1.27', gpu: single('0.5', '8') }] },
      errors: [['annotation-key-too-long', 'containers.0.name']],
    },
  ];
  it.each(rows)('$label', (row) => runRow(row));

  // Issue 14: the longest name accepted is now 43, which makes the scheduler's key 63 long.
  it('the 43-character name gives a 63-character gpu-index annotation key name', () => {
    const result = checkRequest(
      requestOf(undefined, {
        containers: [{ name: name43, image: 'nginx:1.27', gpu: multi('1.2', 2, '8') }],
      }),
    );
    const keys = Object.keys(result.manifest?.spec.template.metadata.annotations ?? {});
    const key = keys.find((k) => k.startsWith('vke.volcengine.com/multiple-mgpu-'));
    expect(result.valid).toBe(true);
    expect(`gpu-index-container-${name43}`).toHaveLength(63);
    expect(key?.split('/')[1]?.length).toBeLessThanOrEqual(63);
  });
});
