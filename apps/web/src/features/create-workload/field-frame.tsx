import type { ReactNode } from 'react';
import { useI18n } from '../../i18n/i18n.js';
import type { FieldError } from './draft.js';
import { errorId, fieldId } from './draft.js';
import { useFieldErrors } from './draft-store.js';

/** The accessible attributes an input gets for its request path and its current errors. */
export function fieldAria(path: string, errors: readonly FieldError[] | undefined) {
  const invalid = errors !== undefined && errors.length > 0;
  return {
    id: fieldId(path),
    'aria-invalid': invalid,
    ...(invalid ? { 'aria-describedby': errorId(path) } : {}),
  };
}

export type FieldAria = ReturnType<typeof fieldAria>;

interface FieldFrameProps {
  path: string;
  label: string;
  /** Text read after the label for the second and later containers, so each label is unique. */
  labelSuffix?: string | undefined;
  hint?: ReactNode;
  /** The input, given the attributes that tie it to its label and its errors. */
  children(aria: FieldAria): ReactNode;
}

/**
 * A label, the input, and every failing rule for it with its fix, right under the input. It reads
 * its own errors from the draft, so a change of rules elsewhere does not re-render it.
 */
export function FieldFrame({ path, label, labelSuffix, hint, children }: FieldFrameProps) {
  const { t } = useI18n();
  const errors = useFieldErrors(path);
  return (
    <div className={errors.length > 0 ? 'field field-invalid' : 'field'}>
      <label className="field-label" htmlFor={fieldId(path)}>
        {label}
        {labelSuffix ? <span className="visually-hidden">{labelSuffix}</span> : null}
      </label>
      {children(fieldAria(path, errors))}
      {hint ? <div className="field-hint">{hint}</div> : null}
      {errors.length > 0 ? (
        <div className="field-errors" id={errorId(path)}>
          {errors.map((error) => (
            <p key={error.rule} className="field-error" data-rule={error.rule}>
              {error.message}
              {error.fix ? (
                <span className="field-fix">
                  {' '}
                  {t('form.fix')}
                  {error.fix}
                </span>
              ) : null}
            </p>
          ))}
        </div>
      ) : null}
    </div>
  );
}
