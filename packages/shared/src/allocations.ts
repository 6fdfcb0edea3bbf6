import { z } from 'zod';
import { type CardClaim, CardClaimSchema } from './ledger/claim.js';
import {
  type MgpuInstanceReport,
  MgpuInstanceReportSchema,
  type MgpuNodeStatus,
} from './ledger/mgpu-node.js';
import { type KubeContainerLike, type KubePodLike, readPodClaims } from './ledger/read-pod.js';
import { type OwnerReferenceLike, workloadOfPod } from './ownership.js';
import { readRequestedClaims } from './placement/demand.js';
import { VKE } from './vke.js';

/** The node-side fields of spec §6, in their snake_case names; null = no node reported it. */
export const NODE_SIDE_FIELDS = [
  'container_id',
  'device_id',
  'instance_id',
  'pod_uid',
  'compute_priority',
  'compute_qos_enable',
  'compute_weight',
  'compute_weight_native_burst',
  'compute_weight_online',
  'minor',
  'online',
  'tasks',
  'vmem_info',
  'vmem_limit',
] as const;
export type NodeSideField = (typeof NODE_SIDE_FIELDS)[number];

type ReportedShape = typeof MgpuInstanceReportSchema.shape;
/**
 * The node-side fields of a record: the `MgpuNode` schema's own fields, null where no node
 * reported them (the report leaves them out), so the two never disagree on a field's type.
 */
const nodeSideFields = Object.fromEntries(
  NODE_SIDE_FIELDS.map((field) => [
    field,
    MgpuInstanceReportSchema.shape[field].unwrap().nullable(),
  ]),
) as { [Field in NodeSideField]: z.ZodNullable<ReturnType<ReportedShape[Field]['unwrap']>> };

export const VerificationSchema = z.enum(['verified', 'drift', 'unreported']);
/** Whether the node gave an instance what its pod asked for (spec §6 结果验证). */
export type Verification = z.infer<typeof VerificationSchema>;

/** One mGPU instance (one container on one card) as the console shows it (spec §7). */
export const AllocationRecordSchema = z.object({
  /** `<namespace>/<pod>/<container>/<card>`: stable across updates of the same instance. */
  id: z.string(),
  namespace: z.string(),
  pod: z.string(),
  container: z.string(),
  node: z.string(),
  /** Card index on the node, from the scheduler's `gpu-index-container-<name>` annotation. */
  card: z.number(),
  /** The Deployment (or other owner) the pod belongs to, when known. */
  workload: z.string().nullable(),
  policy: z.string().nullable(),
  /** What the pod asked for on this card: compute percent and MiB (null for whole cards). */
  requested: CardClaimSchema,
  phase: z.string().nullable(),
  ...nodeSideFields,
  /** Where the values came from: the card choice is always the scheduler's annotation. */
  sources: z.object({
    card: z.literal('scheduler-annotation'),
    container_id: z.enum(['node-agent', 'pod-status']).nullable(),
    nodeFields: z.enum(['node-agent']).nullable(),
  }),
  verification: VerificationSchema,
  /** Fields whose node-side value differs from the request, for the drift badge. */
  drift: z.array(z.string()),
});
export type AllocationRecord = z.infer<typeof AllocationRecordSchema>;

/** An instance's id, `<namespace>/<pod>/<container>/<card>`: records and usage series share it. */
export const allocationRecordId = (
  namespace: string,
  pod: string,
  container: string,
  card: number,
): string => `${namespace}/${pod}/${container}/${card}`;

/** The parts of a Pod the records are built from (a V1Pod fits). */
export interface PodLike extends KubePodLike {
  metadata?: KubePodLike['metadata'] & {
    uid?: string;
    labels?: Record<string, string>;
    ownerReferences?: OwnerReferenceLike[];
  };
  status?: { phase?: string; containerStatuses?: { name: string; containerID?: string }[] };
}

/**
 * Compares what the node reports with what was asked (spec §6: "60 on both cards, matching the
 * configuration"). Under native-burst-share the instance's `compute_weight_native_burst` is the
 * share; otherwise `compute_weight_online`. Memory is compared only for slices (whole cards bring
 * the card's memory). Nothing reported → `unreported`, never assumed fine.
 */
export function verifyInstance(
  requested: CardClaim,
  policy: string | null,
  report: MgpuInstanceReport | undefined,
): { verification: Verification; drift: string[] } {
  if (report === undefined) return { verification: 'unreported', drift: [] };
  const drift: string[] = [];
  const weightField =
    policy === 'native-burst-share' ? 'compute_weight_native_burst' : 'compute_weight_online';
  const weight = report[weightField];
  if (weight === undefined || weight !== requested.computePercent) drift.push(weightField);
  if (requested.memoryMiB !== null && report.vmem_limit !== requested.memoryMiB)
    drift.push('vmem_limit');
  return { verification: drift.length === 0 ? 'verified' : 'drift', drift };
}

/** Which pod, container and card a holding is: the fields a record and a whole card share. */
type CardHolder = Pick<
  AllocationRecord,
  'id' | 'namespace' | 'pod' | 'container' | 'node' | 'card' | 'workload' | 'phase'
>;

/** The holder of each card of one pod, by container and card (the id form of both). */
function cardHolderOf(pod: PodLike, podName: string, node: string) {
  const namespace = pod.metadata?.namespace ?? 'default';
  const workload = workloadOfPod(pod)?.name ?? null;
  const phase = pod.status?.phase ?? null;
  return (container: string, card: number): CardHolder => ({
    id: allocationRecordId(namespace, podName, container, card),
    namespace,
    pod: podName,
    container,
    node,
    card,
    workload,
    phase,
  });
}

/**
 * Every mGPU instance of one scheduled pod: the ledger's claims as asked (the cards from the
 * scheduler's annotations, the shares from the pod's own requests), container IDs from the pod status, and the node-side
 * fields from the node agent's report where the node has one.
 */
export function podAllocationRecords(
  pod: PodLike,
  nodeReport: MgpuNodeStatus | undefined,
): AllocationRecord[] {
  const metadata = pod.metadata ?? {};
  const node = pod.spec?.nodeName;
  const namespace = metadata.namespace ?? 'default';
  const podName = metadata.name;
  if (node === undefined || podName === undefined) return [];
  const reading = readRequestedClaims(pod);
  if (reading === undefined) return [];
  const policy = reading.computePolicy ?? null;
  const holder = cardHolderOf(pod, podName, node);
  const reported = new Map<string, MgpuInstanceReport>();
  for (const card of nodeReport?.cards ?? []) {
    for (const instance of card.instances) {
      if (instance.namespace === namespace && instance.pod === podName) {
        reported.set(`${instance.container}/${card.index}`, instance);
      }
    }
  }
  const statusIds = new Map(
    (pod.status?.containerStatuses ?? []).map((status) => [status.name, status.containerID]),
  );

  const records: AllocationRecord[] = [];
  for (const claim of reading.claims.containers) {
    // Whole nvidia cards are not mGPU instances: no record.
    if (claim.type === 'nvidia') continue;
    const requested = claim.perCard;
    for (const card of claim.cards) {
      const report = reported.get(`${claim.name}/${card}`);
      const statusId = statusIds.get(claim.name);
      const containerId = report?.container_id ?? statusId ?? null;
      records.push({
        ...holder(claim.name, card),
        policy,
        requested,
        container_id: containerId,
        device_id: report?.device_id ?? null,
        instance_id: report?.instance_id ?? null,
        pod_uid: report?.pod_uid ?? null,
        compute_priority: report?.compute_priority ?? null,
        compute_qos_enable: report?.compute_qos_enable ?? null,
        compute_weight: report?.compute_weight ?? null,
        compute_weight_native_burst: report?.compute_weight_native_burst ?? null,
        compute_weight_online: report?.compute_weight_online ?? null,
        minor: report?.minor ?? null,
        online: report?.online ?? null,
        tasks: report?.tasks ?? null,
        vmem_info: report?.vmem_info
          ? {
              free_mib: report.vmem_info.free_mib,
              used: report.vmem_info.used.map(({ pid, used_mib }) => ({ pid, used_mib })),
            }
          : null,
        vmem_limit: report?.vmem_limit ?? null,
        sources: {
          card: 'scheduler-annotation',
          container_id:
            report?.container_id !== undefined
              ? 'node-agent'
              : statusId !== undefined
                ? 'pod-status'
                : null,
          nodeFields: report !== undefined ? 'node-agent' : null,
        },
        ...verifyInstance(requested, policy, report),
      });
    }
  }
  return records;
}

/**
 * What a container holds on one card as usage counts it: an allocation record, or a whole
 * `nvidia.com/gpu` card (which has none, not being an mGPU instance) under the same id form.
 */
export type HeldCard = CardHolder &
  Pick<AllocationRecord, 'requested'> & { vmem_info?: AllocationRecord['vmem_info'] };

/** A first look, before any parse: usage.workloads asks it of every cached pod at each read. */
const asksForWholeCards = (pod: PodLike): boolean =>
  (pod.spec?.containers ?? []).some((container) => {
    const resources = (container as KubeContainerLike | undefined)?.resources;
    return (
      resources?.limits?.[VKE.nvidiaResource] !== undefined ||
      resources?.requests?.[VKE.nvidiaResource] !== undefined
    );
  });

/**
 * The whole cards one scheduled pod holds (the scheduler's card indexes), each all of its card's
 * compute and, when the node reports its cards' size, memory. Usage counts them beside the
 * records: a pod alone on its card is what dcgm-exporter's card series measure. Read without the
 * rule engine (a whole card's claim comes from its resources alone), so every pod can be asked.
 */
export function podWholeCards(
  pod: PodLike,
  nodeReport: () => MgpuNodeStatus | undefined,
): HeldCard[] {
  const metadata = pod.metadata ?? {};
  const podName = metadata.name;
  if (!asksForWholeCards(pod)) return [];
  const claims = readPodClaims(pod)?.containers.filter((claim) => claim.type === 'nvidia');
  if (podName === undefined || claims === undefined || claims.length === 0) return [];
  const holder = cardHolderOf(pod, podName, pod.spec?.nodeName ?? '');
  const report = nodeReport();
  // A node that does not know its cards' memory reports 0: unknown, never a 0 MiB card.
  const positive = (mib: number | undefined) => (mib !== undefined && mib > 0 ? mib : undefined);
  const memoryOf = (card: number): number | null =>
    positive(report?.cards.find((reported) => reported.index === card)?.memoryMiB) ??
    positive(report?.memoryMiBPerCard) ??
    null;
  return claims.flatMap((claim) =>
    claim.cards.map((card) => ({
      ...holder(claim.name, card),
      requested: { computePercent: claim.perCard.computePercent, memoryMiB: memoryOf(card) },
    })),
  );
}
