import { applyRequestToObject, managedFieldsOf, manifestDiff } from '@mgpu/shared';
import { useMemo } from 'react';
import { ScrollRegion } from '../../components/scroll-region.js';
import { useI18n } from '../../i18n/i18n.js';
import { useDraft } from '../create-workload/draft-store.js';

const MARK = { same: ' ', removed: '-', added: '+' } as const;

interface YamlDiffPanelProps {
  /** The live object cut to the form's fields (`workload.get`'s `manifest`). */
  live: Record<string, unknown>;
  modelLabel: string | undefined;
}

/**
 * The YAML diff before applying (issue 17): the live object's form fields against the same
 * object with the draft written onto it by `applyRequestToObject`, as `workload.update` will
 * write it. Loaded with its chunk only on the edit page (`yaml` and `diff` stay out of the form's).
 */
export default function YamlDiffPanel({ live, modelLabel }: YamlDiffPanelProps) {
  const { t } = useI18n();
  const request = useDraft((draft) => draft.request);
  const local = useDraft((draft) => draft.local);
  const lines = useMemo(() => {
    if (!request || !local?.valid) return undefined;
    const options = modelLabel ? { modelLabel } : {};
    const edited = managedFieldsOf(
      applyRequestToObject(live, request, local.containers, options),
      options,
    );
    return manifestDiff(live, edited);
  }, [live, modelLabel, request, local]);
  return (
    // Not a region itself: the scrolling diff below is, under this heading's name (one region).
    <div className="edit-yaml-diff">
      <h2 id="edit-yaml-diff-title" className="section-title">
        {t('edit.yamlDiff')}
      </h2>
      {lines === undefined ? (
        <p className="form-note">{t('edit.yamlDiffPending')}</p>
      ) : lines.every((line) => line.change === 'same') ? (
        <p className="form-note">{t('edit.yamlDiffSame')}</p>
      ) : (
        <ScrollRegion labelledBy="edit-yaml-diff-title">
          <pre className="yaml-diff">
            {lines.map((line, index) => (
              <span
                // Lines have no identity of their own; the diff is rebuilt whole on each change.
                // biome-ignore lint/suspicious/noArrayIndexKey: see above
                key={index}
                className={`yaml-diff-${line.change}`}
                data-change={line.change}
              >
                {`${MARK[line.change]} ${line.text}\n`}
              </span>
            ))}
          </pre>
        </ScrollRegion>
      )}
    </div>
  );
}
