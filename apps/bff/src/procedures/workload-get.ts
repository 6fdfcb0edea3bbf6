import {
  APP_LABEL,
  MANAGED_BY_LABEL,
  readWorkloadObject,
  VKE,
  WorkloadDetailSchema,
  WorkloadRefSchema,
} from '@mgpu/shared';
import { publicProcedure } from '../trpc/init.js';
import { kubeFailure } from './kube-failure.js';
import { summarizeDeployment } from './workload-list.js';

/** The labels and annotations the console's manifest sets (manifest.ts); nothing else leaves. */
const CONSOLE_LABELS = new Set([APP_LABEL, MANAGED_BY_LABEL]);
const isConsoleAnnotation = (key: string) =>
  key === VKE.computePolicyAnnotation || key.startsWith(VKE.multiCardAnnotationPrefix);

const pick = (from: Record<string, string> | undefined, keep: (key: string) => boolean) =>
  Object.fromEntries(Object.entries(from ?? {}).filter(([key]) => keep(key)));

/** `workload.get`: one Deployment, read back into the form's request, with its status. */
export const workloadGet = publicProcedure
  .input(WorkloadRefSchema)
  .output(WorkloadDetailSchema)
  .query(async ({ ctx, input }) => {
    const deployment = await ctx.cluster
      .readDeployment(input.namespace, input.name)
      .catch((error: unknown) => {
        throw kubeFailure(error);
      });
    const read = readWorkloadObject(
      { ...deployment, kind: 'Deployment' },
      { modelLabel: ctx.modelLabel },
    );
    return {
      ...summarizeDeployment(deployment, ctx.modelLabel),
      request: read?.request ?? {
        name: input.name,
        namespace: input.namespace,
        replicas: 1,
        containers: [],
      },
      labels: pick(deployment.metadata?.labels, (key) => CONSOLE_LABELS.has(key)),
      annotations: pick(deployment.spec?.template.metadata?.annotations, isConsoleAnnotation),
    };
  });
