import type { ContainerShare, WorkloadRequest } from '@mgpu/shared';
import { memo, useLayoutEffect } from 'react';
import { useI18n } from '../../i18n/i18n.js';
import { useDraft } from './draft-store.js';

/** User-timing mark set when the panel commits (read by the budgets benchmark). */
const PANEL_MARK = 'mgpu:per-card-panel';

/** Largest per-card memory the rules allow (81920 MiB): the memory bar's full width. */
const MEMORY_BAR_MAX_MIB = 81920;

function Bar({ percent, label }: { percent: number; label: string }) {
  const clamped = Math.max(0, Math.min(100, percent));
  return (
    <div className="bar">
      <span className="bar-label">{label}</span>
      <span className="bar-track" aria-hidden="true">
        {/* Scaled, not sized: a keystroke that moves a bar then repaints it without a relayout. */}
        <span className="bar-fill" style={{ transform: `scaleX(${clamped / 100})` }} />
      </span>
    </div>
  );
}

interface ShareGroupProps {
  index: number;
  container: WorkloadRequest['containers'][number];
  share: ContainerShare | undefined;
}

function ShareGroupView({ index, container, share }: ShareGroupProps) {
  const { t } = useI18n();
  if (!container.gpu || container.gpu.type === 'none')
    return (
      <div className="share-group">
        <h3 className="share-title">{container.name || t('form.container', { n: index + 1 })}</h3>
        <p className="muted">{t('cards.noGpu')}</p>
      </div>
    );
  if (!share)
    return (
      <div className="share-group">
        <h3 className="share-title">{container.name || t('form.container', { n: index + 1 })}</h3>
        <p className="muted">{t('cards.invalid')}</p>
      </div>
    );
  return (
    <div className="share-group">
      <h3 className="share-title">
        {t('cards.summary', {
          name: share.name,
          cards: share.cards,
          percent: share.perCard.computePercent,
        })}
      </h3>
      <ul className="card-slots">
        {Array.from({ length: share.cards }, (_, card) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: card slots are positions, not items
          <li key={card} className="card-slot" data-testid="card-slot">
            <span className="card-name">{t('cards.card', { n: card + 1 })}</span>
            <Bar
              percent={share.perCard.computePercent}
              label={t('cards.compute', { value: share.perCard.computePercent })}
            />
            {share.perCard.memoryMiB === null ? (
              <Bar percent={100} label={t('cards.memoryWhole')} />
            ) : (
              <Bar
                percent={(share.perCard.memoryMiB / MEMORY_BAR_MAX_MIB) * 100}
                label={t('cards.memory', { value: share.perCard.memoryMiB })}
              />
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/** What a group shows: typing in one container re-renders that container's group only. */
const sameGroup = (before: ShareGroupProps, after: ShareGroupProps) =>
  before.index === after.index &&
  before.container.name === after.container.name &&
  (before.container.gpu?.type ?? 'none') === (after.container.gpu?.type ?? 'none') &&
  before.share?.cards === after.share?.cards &&
  before.share?.name === after.share?.name &&
  before.share?.perCard.computePercent === after.share?.perCard.computePercent &&
  before.share?.perCard.memoryMiB === after.share?.perCard.memoryMiB;

const ShareGroup = memo(ShareGroupView, sameGroup);

const NO_SHARES: readonly ContainerShare[] = [];

/** Every card slot of every container with what it gets: shares come from the shared check only. */
export function PerCardPanel() {
  const { t } = useI18n();
  const request = useDraft((draft) => draft.request);
  const shares = useDraft((draft) => draft.local?.containers ?? NO_SHARES);
  const byIndex = new Map(shares.map((share) => [share.index, share]));
  const containers = request?.containers ?? [];
  // The budgets benchmark times keystroke → the paint after this commit (bench/web/budgets.ts);
  // one mark kept, so a long session does not grow the timeline.
  useLayoutEffect(() => {
    performance.clearMarks(PANEL_MARK);
    performance.mark(PANEL_MARK);
  });
  return (
    <section className="side-panel" aria-labelledby="per-card-title" data-testid="per-card-panel">
      <h2 id="per-card-title" className="panel-title">
        {t('cards.title')}
      </h2>
      {containers.length === 0 ? <p>{t('cards.empty')}</p> : null}
      {containers.map((container, index) => {
        // Containers have no id in the request; position and name tell them apart here.
        const key = `${index}-${container.name}`;
        return (
          <ShareGroup key={key} index={index} container={container} share={byIndex.get(index)} />
        );
      })}
    </section>
  );
}
