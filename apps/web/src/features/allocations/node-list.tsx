import { memo } from 'react';
import { Link } from 'react-router';
import { FigureText } from '../../components/figure-text.js';
import type { LiveCard, LiveNode } from './allocation-model.js';
import { formatCards, formatGiB, formatPercent } from './format.js';
import { useDashboardI18n } from './i18n/dashboard-i18n.js';
import { VirtualTable } from './virtual-table.js';

const ROW_HEIGHT = 36;
const ROW_STYLE = { height: ROW_HEIGHT };
const COLUMNS = ['20%', '20%', '28%', '8%', '12%', '12%'];
const MINI_WIDTH = 8;
const MINI_HEIGHT = 14;

/**
 * One tiny bar per card, compute used (height, darker when the card is full), with its figure
 * under it: the bar alone said nothing to a reader or to anyone who cannot tell its height.
 */
function CardStrip({ cards }: { cards: LiveCard[] }) {
  const { t } = useDashboardI18n();
  return (
    <span className="alloc-strip" data-testid="card-strip">
      {cards.map((card) => {
        const used = Math.min(100, card.usedCompute);
        const height = (MINI_HEIGHT * used) / 100;
        return (
          <span key={card.index} className="alloc-mini" data-testid="card-mini">
            <svg width={MINI_WIDTH} height={MINI_HEIGHT} aria-hidden="true">
              <rect className="strip-track" x={0} y={0} width={MINI_WIDTH} height={MINI_HEIGHT} />
              <rect
                className={used >= 100 || card.wholeNvidia ? 'strip-full' : 'strip-used'}
                x={0}
                y={MINI_HEIGHT - height}
                width={MINI_WIDTH}
                height={height}
              />
            </svg>
            <span className="visually-hidden">{`${t('cards.card', { n: card.index })} `}</span>
            <FigureText>{formatPercent(card.usedCompute)}</FigureText>
          </span>
        );
      })}
    </span>
  );
}

/** One node's cells, memoised on the node: the model rebuilds only nodes whose cards changed. */
const NodeCells = memo(function NodeCells({
  node,
  linkTo,
}: {
  node: LiveNode;
  linkTo(change: { node: string }): string;
}) {
  const { t } = useDashboardI18n();
  const instances = node.cards.reduce((sum, card) => sum + card.instances, 0);
  const whole = node.layout.resourceType === 'nvidia';
  return (
    <>
      <td>
        <Link to={linkTo({ node: node.layout.name })}>{node.layout.name}</Link>
        {node.layout.schedulable ? null : (
          <span className="alloc-badge alloc-badge-drift">
            {t('allocations.nodes.unschedulable')}
          </span>
        )}
      </td>
      <td title={node.layout.pool}>{node.layout.pool}</td>
      <td>
        <CardStrip cards={node.cards} />
      </td>
      <td>{whole ? '—' : instances}</td>
      <td>
        {whole
          ? t('allocations.nodes.idleCards', { cards: node.state.idleCards })
          : t('allocations.nodes.cardsValue', {
              cards: formatCards(node.state.freeCompute),
            })}
      </td>
      <td>{whole ? '—' : formatGiB(node.state.freeMemoryMiB)}</td>
    </>
  );
});

/** A row whose place moved changes one attribute, not its cells. */
const NodeRow = memo(function NodeRow({
  node,
  index,
  linkTo,
}: {
  node: LiveNode;
  index: number;
  linkTo(change: { node: string }): string;
}) {
  return (
    <tr aria-rowindex={index} style={ROW_STYLE} data-testid="node-row" data-node={node.layout.name}>
      <NodeCells node={node} linkTo={linkTo} />
    </tr>
  );
});

/** Every GPU node the filters keep, with a strip of its cards; a node opens its card grid. */
export const NodeList = memo(function NodeList({
  nodes,
  total,
  linkTo,
}: {
  nodes: LiveNode[];
  /** Every GPU node the dashboard knows, filtered or not. */
  total: number;
  linkTo(change: { node: string }): string;
}) {
  const { t } = useDashboardI18n();
  const headings = [
    t('result.col.node'),
    t('allocations.pools.pool'),
    t('allocations.nodes.cards'),
    t('allocations.nodes.instances'),
    t('allocations.nodes.freeCompute'),
    t('allocations.nodes.freeMemory'),
  ];
  return (
    <>
      <VirtualTable
        caption={t('allocations.nodes.title')}
        regionLabel={t('allocations.tableOf', { title: t('allocations.nodes.title') })}
        className="alloc-nodes"
        testId="node-list"
        columns={COLUMNS}
        rowHeight={ROW_HEIGHT}
        maxRows={12}
        items={nodes}
        headings={headings}
        renderRow={(node, index) => (
          <NodeRow key={node.layout.name} node={node} index={index} linkTo={linkTo} />
        )}
      />
      {nodes.length === 0 ? (
        <p className="muted alloc-empty">{t('allocations.nodes.none')}</p>
      ) : null}
      <p className="muted alloc-small" data-testid="node-count">
        {t('allocations.nodes.count', { shown: nodes.length, total })}
      </p>
    </>
  );
});
