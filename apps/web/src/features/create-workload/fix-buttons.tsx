import type { FieldValue, SuggestedFix } from '@mgpu/shared';
import { createContext, useContext } from 'react';
import { PlainButton } from '../../components/plain-button.js';
import { type Translate, useI18n } from '../../i18n/i18n.js';
import { fieldLabelOfPath } from './field-labels.js';

/** Applies a suggested fix to the form: each change set as if the operator had typed it. */
export const ApplyFixContext = createContext<((fix: SuggestedFix) => void) | null>(null);

const valueText = (value: FieldValue, t: Translate) =>
  value === true
    ? t('form.fix.on')
    : value === false
      ? t('form.fix.off')
      : value === ''
        ? t('form.fix.empty')
        : String(value);

/** A fix in words for its button: "改为 GPU 算力 0.02", every field it changes. */
export function fixLabel(fix: SuggestedFix, t: Translate): string {
  const changes = fix.changes
    .map((change) =>
      t('form.fix.change', {
        field: fieldLabelOfPath(change.path, t),
        value: valueText(change.value, t),
      }),
    )
    .join(t('form.fix.separator'));
  return t('form.fix.apply', { changes });
}

/** One button per fix a broken rule suggests; a click applies it to the form. */
export function FixButtons({ fixes }: { fixes: readonly SuggestedFix[] | undefined }) {
  const { t } = useI18n();
  const apply = useContext(ApplyFixContext);
  if (!apply || !fixes || fixes.length === 0) return null;
  return (
    <span className="field-fix-buttons">
      {fixes.map((fix) => {
        const label = fixLabel(fix, t);
        return (
          <PlainButton key={label} size="small" data-fix="" onClick={() => apply(fix)}>
            {label}
          </PlainButton>
        );
      })}
    </span>
  );
}
