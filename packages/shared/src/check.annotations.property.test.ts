/**
 * Issue 14: whatever request `checkRequest` calls valid, Kubernetes accepts every name, label
 * and annotation key that the console writes and that the scheduler will write afterwards
 * (with the same shared key builders the scheduler uses), whatever the card count.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkRequest } from './check.js';
import type { GpuInventory } from './inventory.js';
import { isDns1123Label, isDns1123Subdomain } from './kubernetes-names.js';
import type { DeploymentManifest } from './manifest.js';
import { type WorkloadRequestInput, WorkloadRequestSchema } from './request.js';
import { gpuIndexAnnotation, multiCardAnnotation, VKE } from './vke.js';

/** Kubernetes' qualified name (name part of a key): ≤ 63, alnum at both ends, `-_.` inside. */
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

function expectValidKey(key: string): void {
  const slash = key.indexOf('/');
  const prefix = slash === -1 ? '' : key.slice(0, slash);
  const name = slash === -1 ? key : key.slice(slash + 1);
  expect(name.length, key).toBeLessThanOrEqual(63);
  expect(name, key).toMatch(QUALIFIED_NAME);
  if (slash !== -1) {
    expect(prefix.length, key).toBeLessThanOrEqual(253);
    expect(isDns1123Subdomain(prefix), key).toBe(true);
  }
}

/** Names around every length limit: 1 to 70 characters (and up to 260 for the workload). */
const nameOfLength = (max: number) =>
  fc.integer({ min: 1, max }).map((length) => (length === 1 ? 'w' : `w${'x'.repeat(length - 2)}1`));

const gpu = fc.oneof(
  fc.record({
    type: fc.constant('mgpu' as const),
    multiCard: fc.constant(false),
    compute: fc.constantFrom('0.5', '1', '2'),
  }),
  fc.record({
    type: fc.constant('mgpu' as const),
    multiCard: fc.constant(true),
    compute: fc.constantFrom('1.2', '2', '0.8'),
    cards: fc.constantFrom(2, 4),
  }),
  fc.record({ type: fc.constant('nvidia' as const), cards: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ type: fc.constant('none' as const) }),
);

const request: fc.Arbitrary<WorkloadRequestInput> = fc.record({
  name: nameOfLength(260),
  namespace: fc.oneof(nameOfLength(70), fc.constantFrom('default', 'kube-system')),
  replicas: fc.integer({ min: 0, max: 3 }),
  computePolicy: fc.constant('native-burst-share'),
  containers: fc.uniqueArray(
    fc.record({ name: nameOfLength(70), image: fc.constant('nginx:1.27'), gpu }),
    { minLength: 1, maxLength: 3, selector: (container) => container.name },
  ),
});

const inventory: GpuInventory = {
  pools: [
    {
      model: 'NVIDIA-L20',
      resourceType: 'mgpu',
      policy: 'native-burst-share',
      cardsPerNode: 8,
      memoryMiBPerCard: 49152,
      nodes: 2,
    },
  ],
};

describe('every valid request writes only keys and names Kubernetes accepts', () => {
  it('manifest and scheduler annotations, labels and names', () => {
    let valid = 0;
    fc.assert(
      fc.property(request, fc.boolean(), (input, withInventory) => {
        const parsed = WorkloadRequestSchema.parse({
          ...input,
          containers: input.containers.map((container) => ({
            ...container,
            // Memory so that every slice is complete: 8 GiB per card.
            gpu:
              container.gpu?.type === 'mgpu' &&
              !['1', '2'].includes(String(container.gpu.compute)) &&
              !(container.gpu.multiCard && container.gpu.compute === '2')
                ? { ...container.gpu, memoryGiB: String(8 * Number(container.gpu.cards ?? 1)) }
                : container.gpu,
          })),
        });
        const result = checkRequest(parsed, withInventory ? { inventory } : {});
        if (!result.valid || result.manifest === undefined) return;
        valid++;
        // A request without `kind` builds a Deployment.
        const deployment = result.manifest as DeploymentManifest;
        const template = deployment.spec.template;
        expect(isDns1123Subdomain(deployment.metadata.name)).toBe(true);
        expect(isDns1123Label(deployment.metadata.namespace)).toBe(true);
        for (const container of template.spec.containers)
          expect(isDns1123Label(container.name)).toBe(true);
        // What the scheduler writes once it has chosen the cards (cluster-sim's bind).
        const scheduler: Record<string, string> = { [VKE.assumedAnnotation]: 'true' };
        for (const share of result.containers) scheduler[gpuIndexAnnotation(share.name)] = '0';
        for (const share of result.containers.filter((s) => s.multiCard))
          expect(template.metadata.annotations?.[multiCardAnnotation(share.name)]).toBe(
            String(share.cards),
          );
        const keys = [
          ...Object.keys(template.metadata.annotations ?? {}),
          ...Object.keys(scheduler),
          ...Object.keys(deployment.metadata.labels),
          ...Object.keys(template.metadata.labels),
        ];
        keys.forEach(expectValidKey);
        const values = [
          ...Object.values(deployment.metadata.labels),
          ...Object.values(template.metadata.labels),
          ...Object.values(deployment.spec.selector.matchLabels),
        ];
        for (const value of values) {
          expect(value.length, value).toBeLessThanOrEqual(63);
          expect(value).toMatch(LABEL_VALUE);
        }
      }),
      { numRuns: 500 },
    );
    // The generator must reach valid requests near the limits, or the property says nothing.
    expect(valid).toBeGreaterThan(20);
  });
});
