/**
 * Usage as the console shows it (issue 28), over the embedded cluster's exporter read
 * in-process: a workload whose pod template says 0 % is idle with efficiency ≈0, one at 80 % is
 * not with efficiency ≈0.8; the namespace table agrees with the workload rows; every card shows
 * used beside allocated; /metrics carries the verdicts. A console with no usage source lists the
 * same workloads with every figure null, never 0 — on both tiers.
 */
import { createCaller, unavailableUsageSource } from '@mgpu/api';
import { podWholeCards, type WorkloadUsage } from '@mgpu/shared';
import { onRealTier } from '@mgpu/shared/test-tier';
import { beforeAll, describe, expect, it } from 'vitest';
import { type RunningBff, startBff } from '../server.js';
import { eventually, seedRequest, startBffTest, uniqueName } from '../test-support/bff-harness.js';
import { createSimulatedDeployment, settledVerdicts } from './usage-verdicts-support.js';

const IDLE_AFTER_SECONDS = 4;
const cleanups: (() => Promise<unknown>)[] = [];
const harness = startBffTest(
  {
    usage: { idleAfterSeconds: IDLE_AFTER_SECONDS, exporterSampleIntervalMs: 500 },
    metricsPort: 0,
  },
  cleanups,
);
const names = { idle: uniqueName('usage-idle'), busy: uniqueName('usage-busy') };
/** The default topology's bare pod holding two whole A100s (`nvidia.com/gpu`), in team-a. */
const pretrain = (rows: readonly WorkloadUsage[]) =>
  rows.find((row) => row.namespace === 'team-a' && row.workload === 'pretrain-0');
const ours = (rows: readonly WorkloadUsage[]) =>
  rows.filter((row) => row.workload === names.idle || row.workload === names.busy);
/** The real tier has no GPU exporter: its console's usage source is `unavailable`. */
const NO_EXPORTER = onRealTier();

beforeAll(async () => {
  const { namespace } = harness;
  for (const [name, percent] of [
    [names.idle, '0'],
    [names.busy, '80'],
  ] as const) {
    const preview = await harness.caller.workload.preview({
      request: seedRequest(name, { namespace }),
      lang: 'en',
    });
    await createSimulatedDeployment(harness.adminKubeConfig, preview.manifest, percent);
    cleanups.push(() => harness.caller.workload.delete({ namespace, name }));
  }
  // Both hold their cards before any test reads usage.
  await eventually(() => {
    const held = new Set(
      harness.bff.context.allocations.snapshot({ namespace }).map((record) => record.workload),
    );
    return held.has(names.idle) && held.has(names.busy);
  }, 'both workloads’ allocation records');
}, 120_000);

describe.skipIf(NO_EXPORTER)(
  'usage from the embedded cluster’s exporter (the real tier has none)',
  () => {
    it('flags the 0 % workload idle with efficiency ≈0, and the 80 % one busy at ≈0.8', {
      timeout: 120_000,
    }, async () => {
      const verdicts = await settledVerdicts(
        () => harness.caller.usage.workloads({ namespace: harness.namespace }),
        names,
      );
      const idle = verdicts.get(names.idle);
      const busy = verdicts.get(names.busy);
      expect(idle).toMatchObject({ source: 'embedded', simulated: true, kind: 'Deployment' });
      expect(idle?.efficiency).not.toBeNull();
      expect(idle?.efficiency ?? 1).toBeLessThanOrEqual(0.1);
      expect(idle?.idleGpuHours).toBeGreaterThan(0);
      expect(Math.abs((busy?.efficiency ?? 0) - 0.8)).toBeLessThanOrEqual(0.1);
      expect(busy).toMatchObject({ idle: false, idleGpuHours: 0, efficiencyUnknownReason: null });
      // Used is in the allocation's own units: 80 % of what it holds.
      const allocated = busy?.allocated.computePercent ?? 0;
      expect(allocated).toBeGreaterThan(0);
      expect(Math.abs((busy?.used.computePercent ?? 0) / allocated - 0.8)).toBeLessThanOrEqual(0.1);
      expect(busy?.used.memoryMiB).toBeGreaterThan(0);
    });

    it('the namespace table agrees with its workloads’ rows', { timeout: 120_000 }, async () => {
      await settledVerdicts(
        () => harness.caller.usage.workloads({ namespace: harness.namespace }),
        names,
      );
      const [rows, namespaces] = await Promise.all([
        harness.caller.usage.workloads({ namespace: harness.namespace }),
        harness.caller.usage.namespaces({}),
      ]);
      const team = namespaces.find((row) => row.namespace === harness.namespace);
      const holding = rows.filter((row) => row.instances > 0);
      expect(team).toMatchObject({
        source: 'embedded',
        workloads: holding.length,
        idleWorkloads: holding.filter((row) => row.idle === true).length,
        unknownWorkloads: holding.filter((row) => row.efficiency === null).length,
      });
      expect(team?.idleWorkloads).toBeGreaterThanOrEqual(1);
      expect(team?.allocated.computePercent).toBe(
        holding.reduce((sum, row) => sum + row.allocated.computePercent, 0),
      );
      const known = holding.filter((row) => row.efficiency !== null);
      const used = known.reduce((sum, row) => sum + (row.used.computePercent ?? 0), 0);
      const held = known.reduce((sum, row) => sum + row.allocated.computePercent, 0);
      expect(Math.abs((team?.efficiency ?? -1) - used / held)).toBeLessThanOrEqual(0.05);
    });

    it('shows used beside allocated on every card the workloads hold', {
      timeout: 60_000,
    }, async () => {
      const records = harness.bff.context.allocations
        .snapshot({ namespace: harness.namespace })
        .filter((record) => record.workload === names.busy);
      expect(records.length).toBeGreaterThan(0);
      const usage = await harness.caller.usage.cards({});
      expect(usage).toMatchObject({ source: 'embedded', simulated: true });
      for (const record of records) {
        const card = usage.cards.find((c) => c.node === record.node && c.card === record.card);
        expect(card?.used.computePercent).not.toBeNull();
        const instance = card?.instances.find((i) => i.id === record.id);
        const used = instance?.used.computePercent ?? 0;
        // About 80 % of its own share of the card (the model moves it by at most 2 points).
        expect(Math.abs(used / record.requested.computePercent - 0.8)).toBeLessThanOrEqual(0.1);
        // The card's own figure beside it: the whole card's, over the window (from before the pod too).
        expect(card?.used.computePercent ?? -1).toBeGreaterThan(0);
        expect(card?.used.computePercent ?? 101).toBeLessThanOrEqual(100);
      }
    });

    it('counts a pod’s whole nvidia.com/gpu cards: its row has their use and idleness', {
      timeout: 60_000,
    }, async () => {
      const row = await eventually(async () => {
        const found = pretrain(await harness.caller.usage.workloads({ namespace: 'team-a' }));
        return found?.efficiency !== null && found?.idle !== null ? found : undefined;
      }, 'pretrain-0’s use read');
      expect(row).toMatchObject({
        kind: 'Pod',
        source: 'embedded',
        instances: 2,
        allocated: { computePercent: 200 },
        efficiencyUnknownReason: null,
      });
      // A whole card brings its memory; the embedded nvidia node reports its size as 0: unknown.
      expect(row.allocated.memoryMiB).not.toBe(0);
      expect(row.used.computePercent).toBeGreaterThan(0);
      const team = (await harness.caller.usage.namespaces({})).find(
        (namespace) => namespace.namespace === 'team-a',
      );
      expect(team?.allocated.computePercent).toBeGreaterThanOrEqual(200);
    });

    it('refuses a window longer than the exporter keeps, naming windowMinutes and the most', async () => {
      // --idle-after 4 s: the exporter keeps the default 10 minutes. Asked as a client asks.
      const ask = (windowMinutes: number) =>
        fetch(
          `${harness.url}/trpc/usage.workloads?input=${encodeURIComponent(JSON.stringify({ windowMinutes }))}`,
        );
      const refused = await ask(60);
      expect(refused.status).toBe(400);
      const { error } = (await refused.json()) as {
        error: { data: { ruleErrors: { path: string; message: string; fix: string }[] } };
      };
      expect(error.data.ruleErrors).toEqual([
        expect.objectContaining({
          path: 'windowMinutes',
          message: expect.stringMatching(/windowMinutes 60 .* 10 minutes/),
          fix: expect.stringMatching(/at most 10 minutes.*--idle-after.*--prometheus-url/),
        }),
      ]);
      expect((await ask(10)).status).toBe(200);
    });

    it('exports the verdicts on /metrics for alerts', { timeout: 120_000 }, async () => {
      await settledVerdicts(
        () => harness.caller.usage.workloads({ namespace: harness.namespace }),
        names,
      );
      const text = await (await fetch(harness.bff.metricsUrl ?? '')).text();
      const series = (metric: string, name: string) =>
        new RegExp(
          `^${metric}\\{namespace="${harness.namespace}",workload="${name}",kind="Deployment"\\} (\\S+)$`,
          'm',
        ).exec(text)?.[1];
      expect(series('mgpu_workload_idle', names.idle)).toBe('1');
      expect(series('mgpu_workload_idle', names.busy)).toBe('0');
      // The bare pod on two whole cards has a verdict too, read from its cards' use.
      expect(text).toMatch(
        /^mgpu_workload_idle\{namespace="team-a",workload="pretrain-0",kind="Pod"\} [01]$/m,
      );
      expect(
        Math.abs(Number(series('mgpu_workload_efficiency_ratio', names.busy)) - 0.8),
      ).toBeLessThanOrEqual(0.1);
    });
  },
);

describe('a console with no usage source', () => {
  let bare: RunningBff;
  beforeAll(async () => {
    bare = await startBff({
      connection: harness.connection,
      port: 0,
      logger: false,
      metricsPort: 0,
      usage: { source: unavailableUsageSource },
    });
    cleanups.push(() => bare.close());
  });

  it('lists the workloads with every usage figure null, never 0', async () => {
    const caller = createCaller(bare.context);
    const rows = await eventually(async () => {
      const listed = ours(await caller.usage.workloads({ namespace: harness.namespace }));
      return listed.length === 2 ? listed : undefined;
    }, 'both workloads listed');
    for (const row of rows)
      expect(row).toMatchObject({
        source: 'unavailable',
        simulated: false,
        used: { computePercent: null, memoryMiB: null },
        efficiency: null,
        efficiencyUnknownReason: 'no-source',
        idle: null,
        idleGpuHours: null,
      });
    // What they hold is still known: only the use is not.
    expect(rows.every((row) => row.allocated.computePercent > 0)).toBe(true);
    const team = (await caller.usage.namespaces({})).find(
      (row) => row.namespace === harness.namespace,
    );
    expect(team).toMatchObject({ efficiency: null, efficiencyUnknownReason: 'no-source' });
    const cards = await caller.usage.cards({});
    expect(cards.source).toBe('unavailable');
    expect(cards.cards.every((card) => card.used.computePercent === null)).toBe(true);
    // Every held card counts once, bare pods' too (a row of kind Pod), whole nvidia.com/gpu
    // cards too (no allocation record, not being mGPU instances): the team table is whole.
    await eventually(async () => {
      const all = await caller.usage.workloads({});
      const held = bare.context.allocations
        .snapshot()
        .filter((record) => record.phase !== 'Succeeded' && record.phase !== 'Failed');
      const whole = bare.context.cluster.pods
        .list()
        .flatMap((pod) => podWholeCards(pod, () => undefined));
      return all.reduce((sum, row) => sum + row.instances, 0) === held.length + whole.length;
    }, 'every held card in one row');
    expect(pretrain(await caller.usage.workloads({}))).toMatchObject({
      kind: 'Pod',
      instances: 2,
      allocated: { computePercent: 200 },
      efficiency: null,
      efficiencyUnknownReason: 'no-source',
      idle: null,
    });
    // No series rather than a 0 an alert would read as idle.
    const text = await (await fetch(bare.metricsUrl ?? '')).text();
    expect(text).not.toMatch(
      new RegExp(
        `^mgpu_workload_(idle|efficiency_ratio)\\{[^}]*workload="(${names.idle}|${names.busy})"`,
        'm',
      ),
    );
  });
});
