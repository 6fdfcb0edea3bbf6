import type { WorkloadRequestInput } from '@mgpu/shared';
import type { ComponentProps, ReactElement, ReactNode } from 'react';
import {
  type Control,
  Controller,
  type ControllerRenderProps,
  type FieldPath,
} from 'react-hook-form';
import { TextInput } from '../../components/text-input.js';
import { useI18n } from '../../i18n/i18n.js';
import type { FieldError } from './draft.js';
import { errorId, fieldId } from './draft.js';
import { useFieldErrors } from './draft-store.js';
import { FixButtons } from './fix-buttons.js';

/**
 * The attributes an input gets for its request path and its current errors: its id, the accessible
 * state and, for a container's inputs, the form that owns them (see `containerFormId`).
 */
export function fieldAttributes(
  path: string,
  errors: readonly FieldError[] | undefined,
  form?: string,
) {
  const invalid = errors !== undefined && errors.length > 0;
  return {
    id: fieldId(path),
    'aria-invalid': invalid,
    ...(invalid ? { 'aria-describedby': errorId(path) } : {}),
    ...(form ? { form } : {}),
  };
}

export type FieldAttributes = ReturnType<typeof fieldAttributes>;

type RequestPath = FieldPath<WorkloadRequestInput>;

interface FieldFrameProps<P extends RequestPath> {
  control: Control<WorkloadRequestInput>;
  path: P;
  label: string;
  /** Text read after the label for the second and later containers, so each label is unique. */
  labelSuffix?: string | undefined;
  hint?: ReactNode;
  /** The id of the `<form>` that owns the input, when it is not the enclosing one. */
  form?: string | undefined;
  /** The input: the attributes that tie it to its label, errors and form, and the form's field. */
  children(input: {
    attributes: FieldAttributes;
    field: ControllerRenderProps<WorkloadRequestInput, P>;
  }): ReactElement;
}

/**
 * A label, the input for one request path, and every failing rule for it with its fix, right under
 * the input. It reads its own errors from the draft and its value from the form, so typing
 * elsewhere or a change of rules elsewhere does not re-render it.
 */
export function FieldFrame<P extends RequestPath>({
  control,
  path,
  label,
  labelSuffix,
  hint,
  form,
  children,
}: FieldFrameProps<P>) {
  const { t } = useI18n();
  const errors = useFieldErrors(path);
  const attributes = fieldAttributes(path, errors, form);
  return (
    <div className={errors.length > 0 ? 'field field-invalid' : 'field'}>
      <label className="field-label" htmlFor={fieldId(path)}>
        {label}
        {labelSuffix ? <span className="visually-hidden">{labelSuffix}</span> : null}
      </label>
      <Controller
        control={control}
        name={path}
        render={({ field }) => children({ attributes, field })}
      />
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
              <FixButtons fixes={error.fixes} />
            </p>
          ))}
        </div>
      ) : null}
    </div>
  );
}

type TextFieldProps<P extends RequestPath> = Omit<FieldFrameProps<P>, 'children'> &
  Pick<ComponentProps<typeof TextInput>, 'inputMode' | 'placeholder' | 'suffix' | 'readOnly'>;

/**
 * A text box for a request path: the value shown as text, the typed text stored as it is. Names,
 * images and numbers are not words: no spellcheck (its idle-time pass after each keystroke also
 * cost ~2 ms of main thread on this machine).
 */
export function TextField<P extends RequestPath>({
  inputMode,
  placeholder,
  suffix,
  readOnly,
  ...frame
}: TextFieldProps<P>) {
  return (
    <FieldFrame {...frame}>
      {({ attributes, field }) => (
        <TextInput
          {...attributes}
          value={field.value === undefined || field.value === null ? '' : String(field.value)}
          onValueChange={field.onChange}
          onBlur={field.onBlur}
          inputMode={inputMode}
          placeholder={placeholder}
          suffix={suffix}
          readOnly={readOnly}
          autoComplete="off"
          spellCheck={false}
        />
      )}
    </FieldFrame>
  );
}
