import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadTopology } from '../topology/topology.js';
import {
  cardUtilizationPercent,
  instanceMemoryUsedMiB,
  instanceUtilizationPercent,
  type ModelledInstance,
  USAGE_BUCKET_MS,
  workloadProfile,
} from './usage-model.js';

const instance = (overrides: Partial<ModelledInstance> = {}): ModelledInstance => ({
  namespace: 'team-a',
  workload: 'chat-infer',
  pod: 'chat-infer-7d9c8-x2k4p',
  container: 'server',
  card: 0,
  memoryLimitMiB: 20_480,
  ...overrides,
});

/** The moments of an hour, one per bucket. */
const hour = Array.from(
  { length: 120 },
  (_, bucket) => 1_800_000_000_000 + bucket * USAGE_BUCKET_MS,
);

describe('the usage model', () => {
  it('shows what the annotation asks: 80 stays within 2 points of 80, 0 stays 0, 100 stays 100', () => {
    for (const now of hour) {
      const at80 = instanceUtilizationPercent(instance({ annotatedPercent: 80 }), now);
      expect(at80).toBeGreaterThanOrEqual(78);
      expect(at80).toBeLessThanOrEqual(82);
      expect(instanceUtilizationPercent(instance({ annotatedPercent: 0 }), now)).toBe(0);
      expect(instanceUtilizationPercent(instance({ annotatedPercent: 100 }), now)).toBe(100);
    }
    const mean =
      hour.reduce(
        (sum, now) => sum + instanceUtilizationPercent(instance({ annotatedPercent: 80 }), now),
        0,
      ) / hour.length;
    expect(Math.abs(mean - 80)).toBeLessThan(1);
  });

  it('gives the same figures for the same container at the same moment, and moves them mildly over time', () => {
    const busy = instance({ annotatedPercent: 60 });
    const figures = hour.map((now) => instanceUtilizationPercent(busy, now));
    expect(hour.map((now) => instanceUtilizationPercent(busy, now))).toEqual(figures);
    // Within one bucket the figure holds; across buckets it varies.
    expect(instanceUtilizationPercent(busy, hour[0] as number)).toBe(
      instanceUtilizationPercent(busy, (hour[0] as number) + USAGE_BUCKET_MS - 1),
    );
    expect(new Set(figures).size).toBeGreaterThan(10);
  });

  it('keeps a workload profile: its replicas share the level, an idle one stays within 0–3 %', () => {
    let idle: string | undefined;
    for (let index = 0; idle === undefined; index += 1)
      if (workloadProfile('team-a', `w${index}`).kind === 'idle') idle = `w${index}`;
    for (const pod of ['a', 'b', 'c'])
      for (const now of hour) {
        const use = instanceUtilizationPercent(instance({ workload: idle, pod }), now);
        expect(use).toBeGreaterThanOrEqual(0);
        expect(use).toBeLessThanOrEqual(3);
      }
  });

  it('never leaves 0–100 nor the memory limit, whatever the container and moment', () => {
    fc.assert(
      fc.property(
        fc.record({
          namespace: fc.string(),
          workload: fc.string(),
          pod: fc.string(),
          container: fc.string(),
          card: fc.nat(15),
          memoryLimitMiB: fc.nat(200_000),
          annotatedPercent: fc.option(fc.double({ min: 0, max: 100, noNaN: true }), {
            nil: undefined,
          }),
        }),
        fc.nat(2 ** 42),
        (drawn, now) => {
          const modelled: ModelledInstance = {
            ...drawn,
            ...(drawn.annotatedPercent === undefined
              ? {}
              : { annotatedPercent: drawn.annotatedPercent }),
          };
          const use = instanceUtilizationPercent(modelled, now);
          const memory = instanceMemoryUsedMiB(modelled);
          return use >= 0 && use <= 100 && memory >= 0 && memory <= drawn.memoryLimitMiB;
        },
      ),
    );
  });

  it('holds memory steady, more of the limit the busier the container', () => {
    const idle = instanceMemoryUsedMiB(instance({ annotatedPercent: 0 }));
    const busy = instanceMemoryUsedMiB(instance({ annotatedPercent: 80 }));
    expect(idle).toBeGreaterThan(0);
    expect(busy).toBeGreaterThan(idle);
    expect(busy).toBeLessThanOrEqual(20_480);
  });

  it('sums a card from its instances, weighted by their share of it, capped at 100', () => {
    expect(cardUtilizationPercent([])).toBe(0);
    expect(
      cardUtilizationPercent([
        { utilizationPercent: 80, allocatedComputePercent: 50 },
        { utilizationPercent: 10, allocatedComputePercent: 30 },
      ]),
    ).toBe(43);
    expect(
      cardUtilizationPercent([
        { utilizationPercent: 100, allocatedComputePercent: 100 },
        { utilizationPercent: 100, allocatedComputePercent: 50 },
      ]),
    ).toBe(100);
  });

  it('has idle and busy workloads in the demo topology, so the console shows both at once', () => {
    const kinds = new Set(
      loadTopology().pods.map((pod) => workloadProfile(pod.namespace, pod.name).kind),
    );
    expect(kinds).toContain('idle');
    expect(kinds).toContain('busy');
  });
});
