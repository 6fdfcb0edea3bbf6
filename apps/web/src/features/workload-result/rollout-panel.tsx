import type { WorkloadProgress } from '@mgpu/shared';
import { Tag } from 'antd';
import { useI18n } from '../../i18n/i18n.js';
import { STATE_COLOR as WORKLOAD_STATE_COLOR } from '../workloads/workload-state-badge.js';

/** For an older BFF, which sends no workload state. */
const ROLLOUT_COLOR = { complete: 'green', progressing: 'blue', stalled: 'red' } as const;

/**
 * The rolling update of the result view (issue 17 item 5): old and new revision's pods side by
 * side with the cards each holds, the updated / ready / available counts, and when it stalls,
 * why — from `workload.progress`'s `rollout` (shared `readRollout`), no poll of its own.
 */
export function RolloutPanel({ progress }: { progress: WorkloadProgress }) {
  const { t } = useI18n();
  const rollout = progress.rollout;
  if (!rollout) return null;
  // Stalled only if the workload's one state says so: new pods that wait for a node with no old
  // pods beside them are pending (the headline says why), not a stuck rollout.
  const workloadState = progress.state?.state;
  const state =
    rollout.state === 'stalled' && workloadState !== undefined && workloadState !== 'stalled'
      ? 'progressing'
      : rollout.state;
  const color = workloadState ? WORKLOAD_STATE_COLOR[workloadState] : ROLLOUT_COLOR[state];
  const revisionOf = (pod: string) =>
    rollout.newPods.includes(pod) ? 'new' : rollout.oldPods.includes(pod) ? 'old' : null;
  return (
    <section
      className="rollout-panel"
      aria-labelledby="rollout-title"
      data-testid="rollout"
      data-state={state}
      data-stall={state === 'stalled' ? (rollout.stall ?? '') : ''}
    >
      <h2 id="rollout-title" className="section-title">
        {t('result.rollout.title')}
      </h2>
      <p role="status">
        <Tag color={color}>{t(`result.rollout.state.${state}`)}</Tag>{' '}
        {t('result.rollout.counts', {
          updated: rollout.updated,
          desired: rollout.desired,
          ready: rollout.ready,
          available: rollout.available,
          old: rollout.oldPods.length,
        })}
      </p>
      {state === 'stalled' && rollout.stall ? (
        <p className="form-alert" data-rule={rollout.stall}>
          {t(`result.rollout.stall.${rollout.stall}`)}
          {rollout.message ? (
            <>
              {' '}
              <code>{rollout.message}</code>
            </>
          ) : null}
        </p>
      ) : null}
      {/* A list, not a table: the per-card table below stays the page's only table rows. */}
      <ul className="rollout-pods">
        {progress.pods.map((pod) => {
          const revision = revisionOf(pod.name);
          const cards = Object.entries(pod.cards)
            .map(([container, indexes]) => `${container}: ${indexes.join(',')}`)
            .join('; ');
          return (
            <li key={pod.name} data-revision={revision ?? ''}>
              {revision ? (
                <Tag color={revision === 'new' ? 'green' : 'default'}>
                  {t(`result.rollout.${revision}`)}
                </Tag>
              ) : null}
              <code>{pod.name}</code>
              {pod.node ? ` → ${pod.node}` : ''}
              {cards ? ` (${t('result.rollout.cards')} ${cards})` : ''}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
