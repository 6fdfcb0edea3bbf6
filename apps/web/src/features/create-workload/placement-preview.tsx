import type { PreviewResult } from '@mgpu/shared';
import { memo } from 'react';
import { useI18n } from '../../i18n/i18n.js';
import { RejectionList } from './rejection-list.js';

interface PlacementPreviewProps {
  preview: PreviewResult | undefined;
  loading: boolean;
  failure: string | undefined;
}

/**
 * Where each replica would land now (node, cards per container), and why other nodes would not.
 * For an operator who may not list nodes the BFF withholds nodes, cards and counts: the panel
 * then says whether each replica fits and why not per node group, and that the rest needs
 * permission to list nodes.
 */
function PlacementPreviewView({ preview, loading, failure }: PlacementPreviewProps) {
  const { t } = useI18n();
  let body: React.ReactNode;
  if (failure) body = <p className="muted">{t('placement.unavailable', { message: failure })}</p>;
  else if (!preview) body = <p className="muted">{t('placement.loading')}</p>;
  else if (preview.placement.replicas.length === 0)
    body = (
      <p className="muted">
        {preview.containers.length > 0 || preview.errors.length === 0
          ? t('placement.none')
          : t('placement.waiting')}
      </p>
    );
  else {
    const { replicas, nodesWithheld } = preview.placement;
    // Why not the others, once: later replicas see the same pools, only fuller.
    const first = replicas[0];
    body = (
      <>
        <p className="muted">
          {t('placement.cardPolicy', { policy: preview.placement.cardPolicy })}
        </p>
        {nodesWithheld ? (
          <p className="muted" data-testid="placement-nodes-withheld">
            {t('placement.nodesWithheld')}
          </p>
        ) : null}
        <ul className="placement-list">
          {replicas.map((replica) =>
            replica.ok ? (
              <li key={replica.replica} data-testid="placement-replica">
                <strong>{t('placement.replica', { n: replica.replica + 1 })}</strong>{' '}
                {replica.node === undefined
                  ? t('placement.fits')
                  : t('placement.node', { node: replica.node })}
                {replica.cards ? (
                  <ul>
                    {Object.entries(replica.cards).map(([container, cards]) => (
                      <li key={container}>
                        {t('placement.cards', { container, cards: cards.join(', ') })}
                      </li>
                    ))}
                  </ul>
                ) : null}
              </li>
            ) : (
              <li key={replica.replica} className="placement-rejected">
                {replica.totalNodes === undefined
                  ? t('placement.rejectedWithheld', { n: replica.replica + 1 })
                  : t('placement.rejected', { n: replica.replica + 1, total: replica.totalNodes })}
                <RejectionList rejections={replica.rejections} />
              </li>
            ),
          )}
        </ul>
        {first?.ok ? (
          <div className="placement-others">
            {first.rejections.length === 0 ? (
              <p className="muted">{t('placement.noOthers')}</p>
            ) : (
              <>
                <p className="muted">
                  {first.fitting === undefined
                    ? t('placement.othersWithheld')
                    : t('placement.others', { fitting: first.fitting })}
                </p>
                <RejectionList rejections={first.rejections} fold={false} />
              </>
            )}
          </div>
        ) : null}
      </>
    );
  }
  return (
    <section className="side-panel" aria-labelledby="placement-title" aria-busy={loading}>
      <h2 id="placement-title" className="panel-title">
        {t('placement.title')}
      </h2>
      {body}
    </section>
  );
}

/** Changes only when a preview answer arrives, not on every keystroke. */
export const PlacementPreview = memo(PlacementPreviewView);
