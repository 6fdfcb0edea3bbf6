import { allocationsWatch } from './procedures/allocations-watch.js';
import { clusterHistory } from './procedures/cluster-history.js';
import { clusterNamespaces } from './procedures/cluster-namespaces.js';
import { clusterLayout, clusterNodes } from './procedures/cluster-nodes.js';
import { clusterPending } from './procedures/cluster-pending.js';
import { clusterPendingGroups } from './procedures/cluster-pending-groups.js';
import { clusterPendingWatch } from './procedures/cluster-pending-watch.js';
import { clusterQuotas } from './procedures/cluster-quotas.js';
import { clusterSummary } from './procedures/cluster-summary.js';
import { gpuModels } from './procedures/gpu-models.js';
import { podEvents } from './procedures/pod-events.js';
import { podLogs } from './procedures/pod-logs.js';
import { sessionWhoami } from './procedures/session-whoami.js';
import { usageCards } from './procedures/usage-cards.js';
import { usageNamespaces } from './procedures/usage-namespaces.js';
import { usageWorkloads } from './procedures/usage-workloads.js';
import { workloadCreate } from './procedures/workload-create.js';
import { workloadDelete } from './procedures/workload-delete.js';
import { workloadGet } from './procedures/workload-get.js';
import { workloadHistory } from './procedures/workload-history.js';
import { workloadList } from './procedures/workload-list.js';
import { workloadPreview } from './procedures/workload-preview.js';
import { workloadProgressSubscription } from './procedures/workload-progress.js';
import { workloadRollback } from './procedures/workload-rollback.js';
import { workloadScale } from './procedures/workload-scale.js';
import { workloadScalePreview } from './procedures/workload-scale-preview.js';
import { workloadUpdate } from './procedures/workload-update.js';
import { workloadWatch } from './procedures/workload-watch.js';
import { createCallerFactory, router } from './trpc/init.js';

/** The BFF's procedures (spec §7); the names are a contract with outside scripts. */
export const appRouter = router({
  cluster: router({
    summary: clusterSummary,
    nodes: clusterNodes,
    layout: clusterLayout,
    pending: clusterPending,
    pendingGroups: clusterPendingGroups,
    pendingWatch: clusterPendingWatch,
    history: clusterHistory,
    namespaces: clusterNamespaces,
    quotas: clusterQuotas,
  }),
  gpu: router({ models: gpuModels }),
  pod: router({ events: podEvents, logs: podLogs }),
  workload: router({
    preview: workloadPreview,
    create: workloadCreate,
    update: workloadUpdate,
    scale: workloadScale,
    scalePreview: workloadScalePreview,
    list: workloadList,
    watch: workloadWatch,
    get: workloadGet,
    delete: workloadDelete,
    history: workloadHistory,
    rollback: workloadRollback,
    progress: workloadProgressSubscription,
  }),
  allocations: router({ watch: allocationsWatch }),
  session: router({ whoami: sessionWhoami }),
  usage: router({ workloads: usageWorkloads, namespaces: usageNamespaces, cards: usageCards }),
});

export type AppRouter = typeof appRouter;

/** The router called in-process (tests, benches, the SSE transport's one caller per stream). */
export const createCaller = createCallerFactory(appRouter);

/** What `createCaller` gives: every procedure as a function. */
export type AppCaller = ReturnType<typeof createCaller>;
