import {
  managedFieldsOf,
  readWorkloadObject,
  VKE,
  WorkloadDetailSchema,
  WorkloadLookupSchema,
} from '@mgpu/shared';
import { CONSOLE_LABELS } from '../cluster/workload-objects.js';
import { seesNodes, summaryWithoutNodes } from '../identity/cluster-view.js';
import { requireListPods } from '../identity/filtered-reads.js';
import { publicProcedure } from '../trpc/init.js';
import { kubeFailure } from './kube-failure.js';
import { summarizeWorkload } from './workload-list.js';

/** The annotations the console's manifest sets (manifest.ts); with CONSOLE_LABELS, nothing else leaves. */
const isConsoleAnnotation = (key: string) =>
  key === VKE.computePolicyAnnotation || key.startsWith(VKE.multiCardAnnotationPrefix);

const pick = (from: Record<string, string> | undefined, keep: (key: string) => boolean) =>
  Object.fromEntries(Object.entries(from ?? {}).filter(([key]) => keep(key)));

/**
 * `workload.get`: one Deployment, StatefulSet or Job (the first kind with that name unless the
 * input names one), read from the API server — its resourceVersion is what an edit sends back —
 * into the form's request, with its status, what the request cannot express (paths only) and
 * the object cut to the form's fields for the edit form's YAML diff.
 */
export const workloadGet = publicProcedure
  .input(WorkloadLookupSchema)
  .output(WorkloadDetailSchema)
  .query(async ({ ctx, input }) => {
    await requireListPods(ctx, input.namespace);
    const deployment = await ctx.cluster.workloads
      .find(input.namespace, input.name, input.kind)
      .catch((error: unknown) => {
        throw kubeFailure(error);
      });
    const read = readWorkloadObject(deployment, { modelLabel: ctx.modelLabel });
    const summary = summarizeWorkload(ctx, deployment);
    return {
      ...((await seesNodes(ctx)) ? summary : summaryWithoutNodes(summary)),
      request: read?.request ?? {
        name: input.name,
        namespace: input.namespace,
        replicas: 1,
        containers: [],
      },
      labels: pick(deployment.metadata?.labels, (key) => CONSOLE_LABELS.has(key)),
      annotations: pick(deployment.spec?.template.metadata?.annotations, isConsoleAnnotation),
      unexpressed: read?.unexpressed ?? [],
      manifest: managedFieldsOf(deployment as unknown as Record<string, unknown>, {
        modelLabel: ctx.modelLabel,
      }),
      modelLabel: ctx.modelLabel,
    };
  });
