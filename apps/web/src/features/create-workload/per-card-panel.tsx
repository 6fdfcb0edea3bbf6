import {
  type ContainerShare,
  FIGURE_OF_RULE,
  type PerCardFigures,
  perCardFigures,
  type WorkloadRequest,
} from '@mgpu/shared';
import { memo, type ReactNode, useLayoutEffect } from 'react';
import { sentenceWithFigures } from '../../components/figure-text.js';
import { type Translate, useI18n } from '../../i18n/i18n.js';
import { errorShown } from './draft.js';
import { type DraftSnapshot, useDraft } from './draft-store.js';

/** User-timing mark set when the panel commits (read by the budgets benchmark). */
const PANEL_MARK = 'mgpu:per-card-panel';

/** Largest per-card memory the rules allow (81920 MiB): the memory bar's full width. */
const MEMORY_BAR_MAX_MIB = 81920;

/** "算力 50%", "显存 4096 MiB": the figure and its unit kept on one line in a narrow card slot. */
function cardFigure(
  t: Translate,
  key: 'cards.compute' | 'cards.memory',
  value: number | string | null | undefined,
  unit: string,
): ReactNode {
  return sentenceWithFigures((figure) =>
    t(key, {
      value: value === null || value === undefined ? t('cards.unknown') : figure(`${value}${unit}`),
    }),
  );
}

function Bar({ percent, label }: { percent: number; label: ReactNode }) {
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
  /** The rules this container's shown errors break, as `figure:rule` pairs joined by spaces. */
  failing: string;
}

/** One figure of a card that a rule refuses: shown as typed, in red, with the rule's id. */
function FailingFigure({ text, rules }: { text: ReactNode; rules: readonly string[] }) {
  const { t } = useI18n();
  return (
    <span className="figure-failing" data-rules={rules.join(' ')}>
      {text}
      {rules.length > 0 ? ` ${t('cards.failingRule', { rules: rules.join(', ') })}` : null}
    </span>
  );
}

/**
 * The cards of a container whose fields a rule refuses: the figures as typed (issue 27: 768 MiB
 * per card) rather than a blank, each figure a rule is about marked with that rule.
 */
function RefusedCards({ figures, failing }: { figures: PerCardFigures; failing: string }) {
  const { t } = useI18n();
  const rulesOf = (figure: string) =>
    failing
      .split(' ')
      .filter((pair) => pair.startsWith(`${figure}:`))
      .map((pair) => pair.slice(figure.length + 1));
  const figure = (name: 'compute' | 'memory', text: ReactNode) => {
    const rules = rulesOf(name);
    return rules.length > 0 ? <FailingFigure text={text} rules={rules} /> : <span>{text}</span>;
  };
  const cardsRules = rulesOf('cards');
  return (
    <>
      {cardsRules.length > 0 ? (
        <FailingFigure text={t('cards.count', { cards: figures.cards })} rules={cardsRules} />
      ) : null}
      <ul className="card-slots">
        {Array.from({ length: figures.cards }, (_, card) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: card slots are positions, not items
          <li key={card} className="card-slot card-slot-refused" data-testid="card-slot">
            <span className="card-name">{t('cards.card', { n: card + 1 })}</span>
            {figure('compute', cardFigure(t, 'cards.compute', figures.computePercent, '%'))}
            {figure('memory', cardFigure(t, 'cards.memory', figures.memoryMiB, ' MiB'))}
          </li>
        ))}
      </ul>
    </>
  );
}

function ShareGroupView({ index, container, share, failing }: ShareGroupProps) {
  const { t } = useI18n();
  if (!container.gpu || container.gpu.type === 'none')
    return (
      <div className="share-group">
        <h3 className="share-title">{container.name || t('form.container', { n: index + 1 })}</h3>
        <p className="muted">{t('cards.noGpu')}</p>
      </div>
    );
  if (!share) {
    const figures = container.gpu.type === 'mgpu' ? perCardFigures(container.gpu) : undefined;
    return (
      <div className="share-group">
        <h3 className="share-title">{container.name || t('form.container', { n: index + 1 })}</h3>
        {figures ? (
          <RefusedCards figures={figures} failing={failing} />
        ) : (
          <p className="muted">{t('cards.invalid')}</p>
        )}
      </div>
    );
  }
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
              label={cardFigure(t, 'cards.compute', share.perCard.computePercent, '%')}
            />
            {share.perCard.memoryMiB === null ? (
              <Bar percent={100} label={t('cards.memoryWhole')} />
            ) : (
              <Bar
                percent={(share.perCard.memoryMiB / MEMORY_BAR_MAX_MIB) * 100}
                label={cardFigure(t, 'cards.memory', share.perCard.memoryMiB, ' MiB')}
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
  before.failing === after.failing &&
  (before.share !== undefined ||
    JSON.stringify(before.container.gpu) === JSON.stringify(after.container.gpu)) &&
  before.container.name === after.container.name &&
  (before.container.gpu?.type ?? 'none') === (after.container.gpu?.type ?? 'none') &&
  before.share?.cards === after.share?.cards &&
  before.share?.name === after.share?.name &&
  before.share?.perCard.computePercent === after.share?.perCard.computePercent &&
  before.share?.perCard.memoryMiB === after.share?.perCard.memoryMiB;

const ShareGroup = memo(ShareGroupView, sameGroup);

const NO_SHARES: readonly ContainerShare[] = [];

/**
 * Per container, the figures its shown errors are about (`figure:rule` pairs), as one string per
 * container so a keystroke that changes nothing here re-renders nothing.
 */
function failingFigures(draft: DraftSnapshot): string {
  const byContainer: string[] = [];
  for (const error of draft.errors) {
    const index = /^containers\.(\d+)\.gpu\./.exec(error.path)?.[1];
    const figure = FIGURE_OF_RULE[error.rule as keyof typeof FIGURE_OF_RULE];
    if (index === undefined || figure === undefined || !errorShown(error, draft.engaged)) continue;
    const i = Number(index);
    byContainer[i] = `${byContainer[i] ?? ''} ${figure}:${error.rule}`.trim();
  }
  return byContainer.join('\n');
}

/** Every card slot of every container with what it gets: shares come from the shared check only. */
export function PerCardPanel() {
  const { t } = useI18n();
  const request = useDraft((draft) => draft.request);
  const shares = useDraft((draft) => draft.local?.containers ?? NO_SHARES);
  const byIndex = new Map(shares.map((share) => [share.index, share]));
  const containers = request?.containers ?? [];
  const failing = useDraft(failingFigures).split('\n');
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
          <ShareGroup
            key={key}
            index={index}
            container={container}
            share={byIndex.get(index)}
            failing={failing[index] ?? ''}
          />
        );
      })}
    </section>
  );
}
