/**
 * The BFF's procedure inputs and outputs (spec §7), declared once so the server validates what
 * it sends and the web app and the CLI get the same types: one file per procedure (or per
 * router area, `cluster-pending.ts`), the pieces several share in `building-blocks.ts`.
 */
export * from './allocations-watch.js';
export * from './building-blocks.js';
export * from './cluster-history.js';
export * from './cluster-namespaces.js';
export * from './cluster-nodes.js';
export * from './cluster-pending.js';
export * from './cluster-quotas.js';
export * from './cluster-summary.js';
export * from './gpu-models.js';
export * from './pod-events.js';
export * from './pod-logs.js';
export * from './session-whoami.js';
export * from './usage-cards.js';
export * from './usage-namespaces.js';
export * from './usage-workloads.js';
export * from './workload-create.js';
export * from './workload-delete.js';
export * from './workload-get.js';
export * from './workload-history.js';
export * from './workload-list.js';
export * from './workload-preview.js';
export * from './workload-progress.js';
export * from './workload-rollback.js';
export * from './workload-scale.js';
export * from './workload-scale-preview.js';
export * from './workload-update.js';
export * from './workload-watch.js';
