import fc from 'fast-check';
import { Big, formatDecimal } from '../decimal.js';
import type { ContainerRequest, WorkloadRequest } from '../request.js';

/** A compute in percent that `compute-format` accepts: 1–100, or above 100 in tens. */
const validComputePercent = (percent: number) =>
  percent >= 1 && (percent <= 100 || percent % 10 === 0);

/** One mGPU container that every rule of spec §3 accepts, built from its per-card shares. */
export const validMgpuContainer = (name: string): fc.Arbitrary<ContainerRequest> =>
  fc
    .record({
      multiCard: fc.boolean(),
      cards: fc.integer({ min: 1, max: 8 }),
      perCardPercent: fc.integer({ min: 1, max: 100 }),
      perCardMiB: fc.integer({ min: 1024, max: 81920 }),
    })
    .filter(({ multiCard, cards, perCardPercent }) => {
      const total = perCardPercent * (multiCard ? cards : 1);
      return validComputePercent(total);
    })
    .map(({ multiCard, cards, perCardPercent, perCardMiB }) => {
      const n = multiCard ? cards : 1;
      const compute = formatDecimal(new Big(perCardPercent * n).div(100));
      const memoryGiB =
        perCardPercent === 100 ? undefined : formatDecimal(new Big(perCardMiB * n).div(1024));
      return {
        name,
        image: 'nginx:1.27',
        gpu: {
          type: 'mgpu' as const,
          multiCard,
          compute,
          ...(memoryGiB !== undefined ? { memoryGiB } : {}),
          ...(multiCard ? { cards } : {}),
        },
      };
    });

/** A request with one to four containers, valid under every rule that needs no cluster. */
export const validRequest: fc.Arbitrary<WorkloadRequest> = fc
  .integer({ min: 1, max: 4 })
  .chain((count) =>
    fc.tuple(
      ...Array.from({ length: count }, (_, index) =>
        fc.oneof(
          { weight: 4, arbitrary: validMgpuContainer(`c${index}`) },
          {
            weight: 1,
            arbitrary: fc.integer({ min: 1, max: 8 }).map((cards) => ({
              name: `c${index}`,
              image: 'nginx:1.27',
              gpu: { type: 'nvidia' as const, multiCard: false, cards },
            })),
          },
          {
            weight: 1,
            arbitrary: fc.constant<ContainerRequest>({ name: `c${index}`, image: 'busybox:1.36' }),
          },
        ),
      ),
    ),
  )
  .chain((containers) =>
    fc
      .record({
        name: fc.constantFrom('demo', 'train-job', 'a.b-c'),
        namespace: fc.constantFrom('default', 'team-a'),
        replicas: fc.integer({ min: 0, max: 5 }),
        model: fc.constantFrom(undefined, 'NVIDIA-L20', 'Tesla-V100'),
      })
      .map(({ name, namespace, replicas, model }) => ({
        name,
        namespace,
        replicas,
        computePolicy: 'native-burst-share',
        containers: containers.map((container) =>
          container.gpu && model ? { ...container, gpu: { ...container.gpu, model } } : container,
        ),
      })),
  );
