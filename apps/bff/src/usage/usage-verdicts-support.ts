/**
 * What the usage-verdict tests share: a workload whose pod template sets the embedded cluster's
 * simulated use, and waiting until a console has settled verdicts on an idle and a busy one.
 */
import { AppsV1Api, type KubeConfig, type V1Deployment } from '@kubernetes/client-node';
import { SIMULATED_UTILIZATION_ANNOTATION, type WorkloadUsage } from '@mgpu/shared';

/** Creates the console's own manifest (a preview's) with its pod template saying `percent`. */
export async function createSimulatedDeployment(
  kubeConfig: KubeConfig,
  previewManifest: unknown,
  percent: string,
): Promise<void> {
  const manifest = structuredClone(previewManifest) as V1Deployment;
  const template = manifest.spec?.template.metadata;
  if (!template) throw new Error('the preview has no pod template');
  template.annotations = { ...template.annotations, [SIMULATED_UTILIZATION_ANNOTATION]: percent };
  await kubeConfig.makeApiClient(AppsV1Api).createNamespacedDeployment({
    namespace: manifest.metadata?.namespace ?? 'default',
    body: manifest,
  });
}

/**
 * Polls `read` (a console's `usage.workloads`) until the idle workload is idle and the busy one
 * is not with a known efficiency; their rows then, by name. Throws with the last rows after 90 s.
 */
export async function settledVerdicts(
  read: () => Promise<readonly WorkloadUsage[]>,
  names: { idle: string; busy: string },
): Promise<Map<string, WorkloadUsage>> {
  const deadline = Date.now() + 90_000;
  let last: readonly WorkloadUsage[] = [];
  while (Date.now() < deadline) {
    last = (await read()).filter(
      (row) => row.workload === names.idle || row.workload === names.busy,
    );
    const byName = new Map(last.map((row) => [row.workload, row]));
    const idle = byName.get(names.idle);
    const busy = byName.get(names.busy);
    if (idle?.idle === true && busy?.idle === false && busy.efficiency !== null) return byName;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  throw new Error(`no settled verdicts within 90 s: ${JSON.stringify(last)}`);
}
