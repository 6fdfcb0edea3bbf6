/**
 * The per-card shares a workload's pods really run with, grouped (issue 27 "the list as a health
 * view"): mid-rollout the old template's pods hold other shares than the new one's, so the list
 * shows each group with its pod count instead of the template's share for all of them. A pod's
 * shares are read back from the pod itself by the same reader the edit form uses.
 */
import type { RevisionShares } from './api/workload-list.js';
import { evaluateRequest } from './check.js';
import { isPodReady } from './pod-status.js';
import { readWorkloadObject } from './read-workload.js';

interface SharePod {
  metadata?: { name?: string; annotations?: Record<string, string> } | undefined;
  spec?: unknown;
  status?:
    | { phase?: string; conditions?: readonly { type?: string; status?: string }[] }
    | undefined;
}

type Shares = RevisionShares['containers'];

/** A pod's shares, once per pod object: the informers replace a pod's object when it changes. */
const sharesOfPod = new WeakMap<object, { key: string; shares: Shares }>();

function podShares(pod: SharePod, modelLabel: string | undefined) {
  const cached = sharesOfPod.get(pod);
  if (cached) return cached;
  // The pod read as the template it was made from: its containers, resources and annotations.
  const read = readWorkloadObject(
    {
      kind: 'Deployment',
      metadata: { name: pod.metadata?.name ?? 'pod' },
      spec: { replicas: 1, template: { metadata: pod.metadata ?? {}, spec: pod.spec ?? {} } },
    },
    modelLabel ? { modelLabel } : {},
  );
  const shares = read ? evaluateRequest(read.request).shares : [];
  const entry = { key: JSON.stringify(shares), shares };
  sharesOfPod.set(pod, entry);
  return entry;
}

/**
 * The pods grouped by the shares they run with, the current template's group first, then the
 * larger groups. `isCurrent`: whether a pod (by name) runs the current template.
 */
export function revisionShares(
  pods: readonly SharePod[],
  isCurrent: (pod: string) => boolean,
  options: { modelLabel?: string } = {},
): RevisionShares[] {
  const groups = new Map<string, RevisionShares>();
  for (const pod of pods) {
    const { key, shares } = podShares(pod, options.modelLabel);
    const current = isCurrent(pod.metadata?.name ?? '');
    const groupKey = `${current}/${key}`;
    const group = groups.get(groupKey) ?? {
      current,
      pods: 0,
      ready: 0,
      scheduled: 0,
      containers: shares,
    };
    group.pods++;
    if (isPodReady(pod)) group.ready++;
    // Only a pod a node took holds cards: a Pending one frees nothing when deleted.
    if ((pod.spec as { nodeName?: unknown } | undefined)?.nodeName) group.scheduled++;
    groups.set(groupKey, group);
  }
  return [...groups.values()].sort(
    (a, b) => Number(b.current) - Number(a.current) || b.pods - a.pods,
  );
}
