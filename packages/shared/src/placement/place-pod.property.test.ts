/** Properties of placement against a brute force, and the first constraint a node breaks. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { allocationOf, applyAllocation } from '../ledger/book.js';
import type { CardType } from '../ledger/claim.js';
import { mgpu, node, nvidia, place, pod } from '../test-support/placement.js';
import { MAX_INSTANCES_PER_CARD } from '../vke.js';
import { placePod } from './place-pod.js';
import type { CardPolicy, ContainerDemand, NodeState, PodDemand } from './types.js';

const containerArb = (name: string): fc.Arbitrary<ContainerDemand> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .record({
          cards: fc.integer({ min: 1, max: 4 }),
          compute: fc.integer({ min: 1, max: 99 }),
          memory: fc.integer({ min: 1, max: 12 }),
        })
        .map(({ cards, compute, memory }) => mgpu(name, compute, memory * 1024, cards, cards > 1)),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 1, max: 2 }).map((cards) => mgpu(name, 100, null, cards, false)),
    },
  );

const podArb: fc.Arbitrary<PodDemand> = fc
  .integer({ min: 1, max: 2 })
  .chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => containerArb(`c${i}`))))
  .map((containers) => pod(containers, { policy: 'native-burst-share' }));

const clusterArb = fc
  .array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 3 })
  .map((cardCounts) =>
    cardCounts.map((cards, i) =>
      node({ name: `n${i}`, policy: 'native-burst-share', cards, memoryMiBPerCard: 16384 }),
    ),
  );

/** Every feasible assignment of the pod's containers to one node's cards, by brute force. */
function bruteForce(state: NodeState, demand: PodDemand): number[][][] {
  const results: number[][][] = [];
  const n = state.cards.length;
  const subsets = (k: number): number[][] => {
    const out: number[][] = [];
    const walk = (from: number, acc: number[]) => {
      if (acc.length === k) out.push([...acc]);
      else for (let i = from; i < n; i++) walk(i + 1, [...acc, i]);
    };
    walk(0, []);
    return out;
  };
  const walk = (index: number, acc: number[][]) => {
    const container = demand.containers[index];
    if (container === undefined) {
      const copy: NodeState = { ...state, cards: state.cards.map((card) => ({ ...card })) };
      try {
        applyAllocation(
          copy,
          allocationOf(
            demand,
            copy.name,
            Object.fromEntries(demand.containers.map((c, i) => [c.name, acc[i] ?? []])),
          ),
        );
      } catch {
        return;
      }
      const fits = copy.cards.every(
        (card) =>
          card.usedCompute <= 100 &&
          card.usedMemoryMiB <= copy.memoryMiBPerCard &&
          card.instances <= MAX_INSTANCES_PER_CARD &&
          !(card.wholeNvidia && card.instances > 0),
      );
      // A whole card must have been idle before.
      const wholeOk = demand.containers.every(
        (c, i) =>
          !c.wholeCards ||
          (acc[i] ?? []).every((cardIndex) => {
            const before = state.cards[cardIndex];
            return before !== undefined && before.instances === 0 && before.usedCompute === 0;
          }),
      );
      const wholeAlone = demand.containers.every(
        (c, i) =>
          !c.wholeCards ||
          (acc[i] ?? []).every((cardIndex) => (copy.cards[cardIndex]?.instances ?? 0) === 1),
      );
      if (fits && wholeOk && wholeAlone) results.push(acc);
      return;
    }
    for (const subset of subsets(container.cards)) walk(index + 1, [...acc, subset]);
  };
  walk(0, []);
  return results;
}

describe('placePod properties', () => {
  it('never exceeds a card, never passes 16 instances, gives each container distinct cards', () => {
    fc.assert(
      fc.property(
        clusterArb,
        fc.array(podArb, { minLength: 1, maxLength: 25 }),
        fc.constantFrom<CardPolicy>('binpack', 'spread'),
        (nodes, pods, cardPolicy) => {
          for (const demand of pods) {
            const result = place(demand, nodes, cardPolicy);
            if (!result.ok) {
              const named = result.rejections.flatMap((rejection) => rejection.nodes).sort();
              expect(named).toEqual(nodes.map((state) => state.name).sort());
              for (const rejection of result.rejections) expect(rejection.message).not.toBe('');
              continue;
            }
            for (const container of demand.containers) {
              const cards = result.cards[container.name] ?? [];
              expect(cards).toHaveLength(container.cards);
              expect(new Set(cards).size).toBe(cards.length);
            }
          }
          for (const state of nodes) {
            for (const card of state.cards) {
              expect(card.usedCompute).toBeLessThanOrEqual(100);
              expect(card.usedMemoryMiB).toBeLessThanOrEqual(state.memoryMiBPerCard);
              expect(card.instances).toBeLessThanOrEqual(MAX_INSTANCES_PER_CARD);
            }
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it('explains every node but the fitting ones, and explaining never changes the choice', () => {
    fc.assert(
      fc.property(
        clusterArb,
        fc.array(podArb, { maxLength: 10 }),
        podArb,
        fc.constantFrom<CardPolicy>('binpack', 'spread'),
        (nodes, earlier, demand, cardPolicy) => {
          for (const previous of earlier) place(previous, nodes, cardPolicy);
          const explained = placePod(demand, nodes, { cardPolicy, explainRejected: true });
          const plain = placePod(demand, nodes, { cardPolicy });
          if (!explained.ok || !plain.ok) {
            expect(explained).toEqual(plain);
            return;
          }
          const { rejections = [], fitting = 0, ...choice } = explained;
          expect(choice).toEqual(plain);
          const named = rejections.flatMap((rejection) => rejection.nodes);
          expect(new Set(named).size).toBe(named.length);
          expect(named).not.toContain(explained.node);
          expect(named.length + fitting).toBe(nodes.length);
          for (const rejection of rejections) expect(rejection.message).not.toBe('');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('finds a placement exactly when one exists, with the best binpack or spread score', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(podArb, { maxLength: 8 }),
        podArb,
        fc.constantFrom<CardPolicy>('binpack', 'spread'),
        (cards, earlier, demand, cardPolicy) => {
          const nodes = [
            node({ name: 'n', policy: 'native-burst-share', cards, memoryMiBPerCard: 16384 }),
          ];
          for (const previous of earlier) place(previous, nodes);
          const state = nodes[0];
          if (state === undefined) return;
          const feasible = bruteForce(state, demand);
          const result = placePod(demand, nodes, { cardPolicy });
          expect(result.ok).toBe(feasible.length > 0);
          if (!result.ok || feasible.length === 0) return;
          const scoreOf = (assignment: number[][]) => {
            const copy: NodeState = { ...state, cards: state.cards.map((card) => ({ ...card })) };
            applyAllocation(
              copy,
              allocationOf(
                demand,
                'n',
                Object.fromEntries(demand.containers.map((c, i) => [c.name, assignment[i] ?? []])),
              ),
            );
            return copy;
          };
          // The chosen assignment scores at least as well as every feasible one.
          const score = (assignment: number[][]) => {
            const copy = scoreOf(assignment);
            let core = 0;
            let memory = 0;
            for (const card of copy.cards) {
              core += (card.usedCompute / 100) ** 2;
              memory += (card.usedMemoryMiB / copy.memoryMiBPerCard) ** 2;
            }
            const used = (20 * core + 80 * memory) / 100 / copy.cards.length;
            return 100 * (cardPolicy === 'binpack' ? used : 1 - used);
          };
          const best = Math.max(...feasible.map(score));
          expect(result.score).toBeCloseTo(best, 6);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('rejections name the failing constraint', () => {
  const policies = ['native-burst-share', 'fixed-share', 'guaranteed-burst-share'] as const;
  const models = ['NVIDIA-L20', 'Tesla-V100'] as const;
  it('reports the first node-layer constraint an empty node breaks', () => {
    fc.assert(
      fc.property(
        fc.record({
          type: fc.constantFrom<CardType | 'none'>('mgpu', 'nvidia', 'none'),
          policy: fc.constantFrom(...policies),
          model: fc.constantFrom(...models),
          cards: fc.integer({ min: 1, max: 4 }),
        }),
        fc.record({
          type: fc.constantFrom<CardType>('mgpu', 'nvidia'),
          policy: fc.constantFrom(...policies),
          model: fc.option(fc.constantFrom(...models), { nil: undefined }),
          multiCard: fc.boolean(),
          cards: fc.integer({ min: 1, max: 4 }),
          whole: fc.boolean(),
        }),
        (nodeSpec, podSpec) => {
          const state = node({ name: 'n', ...nodeSpec, memoryMiBPerCard: 16384 });
          const multiCard = podSpec.type === 'mgpu' && podSpec.multiCard;
          const cards = multiCard || podSpec.whole || podSpec.type === 'nvidia' ? podSpec.cards : 1;
          const container =
            podSpec.type === 'nvidia'
              ? nvidia('c', cards)
              : podSpec.whole
                ? mgpu('c', 100, null, cards, multiCard)
                : mgpu('c', 40, 4096, cards, multiCard);
          const demand = pod([container], {
            policy: podSpec.policy,
            ...(podSpec.model ? { model: podSpec.model } : {}),
          });
          const fractional = container.type === 'mgpu' && !container.wholeCards;
          let expected: string | undefined;
          if (multiCard && podSpec.policy !== 'native-burst-share') expected = 'policy';
          else if (nodeSpec.type !== container.type) expected = 'resource-type';
          else if (multiCard && nodeSpec.policy !== 'native-burst-share') expected = 'policy';
          else if (fractional && nodeSpec.type === 'mgpu' && nodeSpec.policy !== podSpec.policy)
            expected = 'policy';
          else if (podSpec.model !== undefined && podSpec.model !== nodeSpec.model)
            expected = 'model';
          else if (cards > nodeSpec.cards) expected = 'cards';
          const result = placePod(demand, [state]);
          if (expected === undefined) {
            expect(result.ok).toBe(true);
          } else {
            expect(result.ok).toBe(false);
            if (!result.ok)
              expect(result.rejections.map((rejection) => rejection.reason)).toEqual([expected]);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
