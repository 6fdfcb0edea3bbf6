import { excludedLine, type PreviewResult, rankRejections, rejectionLine } from '@mgpu/shared';
import { useI18n } from '../../i18n/i18n.js';

/** One node group's verdict as the API sends it (preview, progress and pending alike). */
type Rejection = PreviewResult['placement']['replicas'][number]['rejections'][number];

interface RejectionListProps {
  rejections: readonly Rejection[];
  /** Fold the groups the operator's own choices rule out; off where every group is listed anyway. */
  fold?: boolean;
  listTestId?: string;
  itemTestId?: string;
}

/**
 * Why no node takes the pod, closest first (`rankRejections`): the group that came nearest
 * leads with its shortfall in numbers, and the groups the operator's own choices rule out (another
 * model, another policy) fold into one last line instead of burying it.
 */
export function RejectionList({
  rejections,
  fold = true,
  listTestId = 'placement-rejections',
  itemTestId = 'placement-rejection',
}: RejectionListProps) {
  const { lang } = useI18n();
  const ranking = rankRejections(rejections);
  const ranked = fold
    ? ranking.ranked
    : [...ranking.ranked, ...rejections.filter((r) => !ranking.ranked.includes(r))];
  const excluded = fold ? ranking.excluded : undefined;
  return (
    <ul data-testid={listTestId}>
      {ranked.map((rejection) => (
        <li
          key={`${rejection.group}-${rejection.code}-${rejection.nodes?.[0] ?? ''}`}
          data-testid={itemTestId}
          data-reason={rejection.reason}
          title={rejection.nodes?.join(', ')}
        >
          {rejectionLine(rejection, lang)}
        </li>
      ))}
      {excluded ? (
        <li data-testid="rejections-excluded" className="muted" title={excluded.groups.join(', ')}>
          {excludedLine(excluded, lang)}
        </li>
      ) : null}
    </ul>
  );
}
