import { MAX_INSTANCES_PER_CARD } from '@mgpu/shared';
import { memo } from 'react';
import { Link } from 'react-router';
import { FigureText, sentenceWithFigures } from '../../components/figure-text.js';
import { CardUsedLine, InstanceUsedText, useNodeCardUsage } from '../usage/card-usage.js';
import { UsageSourceNotice } from '../usage/usage-figures.js';
import type { LiveNode } from './allocation-model.js';
import { formatGiB, formatMiB, formatMiBFigure, formatPercent } from './format.js';
import { useDashboardI18n } from './i18n/dashboard-i18n.js';
import { UsageBar } from './usage-bar.js';

/**
 * One node's cards as a grid: compute and memory bars, instances of 16, what is stranded, and
 * who holds each card (namespace / pod / container with its share), live. Memoised on the node:
 * the model keeps a node's object until one of its cards changes.
 */
export const NodeView = memo(function NodeView({
  name,
  node,
  linkTo,
}: {
  name: string;
  node: LiveNode | undefined;
  linkTo(change: { node?: string; instance?: string }): string;
}) {
  const { t } = useDashboardI18n();
  // Used beside allocated: the card's own figure, and each instance's where the source has it.
  const usage = useNodeCardUsage(name);
  return (
    <section className="alloc-panel" aria-labelledby="alloc-node-title" data-testid="node-view">
      <div className="panel-head">
        {/* Focus lands here as the panel opens (detail-panel.tsx). */}
        <h2 id="alloc-node-title" className="section-title" tabIndex={-1}>
          {t('allocations.node.title', { node: name })}
        </h2>
        <Link to={linkTo({ node: '' })}>{t('allocations.close')}</Link>
      </div>
      {node === undefined ? (
        <p className="muted">{t('allocations.node.unknown')}</p>
      ) : (
        <>
          <p className="muted">
            {sentenceWithFigures((figure) =>
              t('allocations.node.summary', {
                pool: node.layout.pool,
                cards: node.cards.length,
                memory: figure(formatMiBFigure(node.layout.memoryMiBPerCard)),
              }),
            )}
          </p>
          <UsageSourceNotice source={usage.answer} />
          <ul className="alloc-cards">
            {node.cards.map((card) => (
              <li
                key={card.index}
                className="alloc-card"
                data-testid="card-tile"
                data-card={card.index}
              >
                <h3 className="alloc-card-title">{t('cards.card', { n: card.index })}</h3>
                {card.wholeNvidia ? (
                  <p className="alloc-small">{t('allocations.node.wholeNvidia')}</p>
                ) : (
                  <>
                    <UsageBar
                      used={card.usedCompute}
                      total={100}
                      label={t('allocations.node.compute', {
                        used: formatPercent(card.usedCompute),
                      })}
                    />
                    <UsageBar
                      used={card.usedMemoryMiB}
                      total={node.layout.memoryMiBPerCard}
                      label={t('allocations.node.memory', {
                        used: card.usedMemoryMiB,
                        total: node.layout.memoryMiBPerCard,
                      })}
                    />
                    <CardUsedLine card={usage.index.cards.get(`${name}/${card.index}`)} />
                    <p className="alloc-small" data-testid="card-instances">
                      {t('allocations.node.instances', {
                        count: card.instances,
                        max: MAX_INSTANCES_PER_CARD,
                      })}
                    </p>
                    {card.stranded.computePercent > 0 || card.stranded.memoryMiB > 0 ? (
                      <p className="alloc-small alloc-warn">
                        {sentenceWithFigures((figure) =>
                          t('allocations.node.stranded', {
                            compute: figure(formatPercent(card.stranded.computePercent)),
                            memory: figure(formatGiB(card.stranded.memoryMiB)),
                          }),
                        )}
                      </p>
                    ) : null}
                    {card.holders.length === 0 ? (
                      <p className="alloc-small muted" data-testid="card-free">
                        {t('allocations.node.free')}
                      </p>
                    ) : (
                      <ul className="alloc-holders">
                        {card.holders.map((holder) => (
                          <li key={holder.id} data-testid="card-holder">
                            <Link
                              className="alloc-holder-name"
                              to={linkTo({ instance: holder.id })}
                            >
                              {`${holder.namespace}/${holder.pod}/${holder.container}`}
                            </Link>{' '}
                            <span className="alloc-share">
                              <FigureText>
                                {formatPercent(holder.requested.computePercent)}
                              </FigureText>
                            </span>{' '}
                            <span className="muted">
                              <FigureText>
                                {formatMiB(holder.requested.memoryMiB, t('allocations.wholeCard'))}
                              </FigureText>
                            </span>{' '}
                            <InstanceUsedText used={usage.index.instances.get(holder.id)} />
                          </li>
                        ))}
                      </ul>
                    )}
                  </>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
});
