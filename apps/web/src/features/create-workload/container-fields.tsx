import type { GpuModel, WorkloadRequestInput } from '@mgpu/shared';
import { GPU_TYPES } from '@mgpu/shared';
import { type KeyboardEvent, memo } from 'react';
import { type Control, useWatch } from 'react-hook-form';
import { NativeSelect } from '../../components/native-select.js';
import { PlainButton } from '../../components/plain-button.js';
import { ToggleSwitch } from '../../components/toggle-switch.js';
import { useI18n } from '../../i18n/i18n.js';
import { FieldFrame, TextField } from './field-frame.js';

/**
 * The `<form>` that owns container `index`'s inputs (the page renders one per container, outside
 * the creation form). Chrome's autofill reads the whole form that owns a field after every edit
 * of it: with every container in the creation form that was ~4 ms of main thread per keystroke on
 * an 8-container form, against ~1 ms for one container's fields.
 */
export const containerFormId = (index: number) => `container-form-${index}`;

/**
 * Enter in a container's text box submits the creation form, as it does in the workload's own
 * fields: HTML's implicit submission (a click on the default button, unless it is disabled), which
 * the container's own form cannot give as it has no submit button.
 */
function submitOnEnter(event: KeyboardEvent<HTMLFieldSetElement>) {
  if (
    event.key !== 'Enter' ||
    event.nativeEvent.isComposing ||
    !(event.target instanceof HTMLInputElement)
  )
    return;
  event.preventDefault();
  const button = event.currentTarget
    .closest('form')
    ?.querySelector<HTMLButtonElement>('button[type="submit"]');
  if (button && !button.disabled) button.click();
}

interface ContainerFieldsProps {
  index: number;
  control: Control<WorkloadRequestInput>;
  models: readonly GpuModel[];
  canRemove: boolean;
  onRemove(index: number): void;
  /** Multi-card sharing was switched on: the form may select the policy it needs. */
  onMultiCardOn(): void;
}

function ContainerFieldsView({
  index,
  control,
  models,
  canRemove,
  onRemove,
  onMultiCardOn,
}: ContainerFieldsProps) {
  const { t } = useI18n();
  const base = `containers.${index}` as const;
  // A container without a gpu object asks for no GPU (the request schema's reading).
  const gpuType = useWatch({ control, name: `${base}.gpu.type` }) ?? 'none';
  const multiCard = useWatch({ control, name: `${base}.gpu.multiCard` }) ?? false;
  // The first container's fields carry exactly the §7 labels; later ones add "(container n)".
  const suffix = index === 0 ? undefined : t('field.ofContainer', { n: index + 1 });
  const frame = { control, labelSuffix: suffix, form: containerFormId(index) };
  const gpuTypeLabel: Record<(typeof GPU_TYPES)[number], string> = {
    mgpu: t('form.gpuType.mgpu'),
    nvidia: t('form.gpuType.nvidia'),
    none: t('form.gpuType.none'),
  };

  return (
    <fieldset className="container-card" onKeyDown={submitOnEnter}>
      <legend>{t('form.container', { n: index + 1 })}</legend>
      {canRemove ? (
        <PlainButton size="small" className="container-remove" onClick={() => onRemove(index)}>
          {t('form.removeContainer', { n: index + 1 })}
        </PlainButton>
      ) : null}
      <div className="field-row">
        <TextField {...frame} path={`${base}.name`} label={t('field.containerName')} />
        <TextField
          {...frame}
          path={`${base}.image`}
          label={t('field.image')}
          placeholder="nginx:1.27"
        />
      </div>
      <div className="field-row">
        <FieldFrame
          {...frame}
          path={`${base}.gpu.type`}
          label={t('field.gpuType')}
          hint={index === 0 ? t('form.gpuType.hint') : undefined}
        >
          {({ attributes, field }) => (
            <NativeSelect
              {...attributes}
              value={field.value ?? 'none'}
              onValueChange={field.onChange}
              options={GPU_TYPES.map((type) => ({ value: type, label: gpuTypeLabel[type] }))}
            />
          )}
        </FieldFrame>
        {gpuType === 'mgpu' ? (
          <FieldFrame {...frame} path={`${base}.gpu.multiCard`} label={t('field.multiCard')}>
            {({ attributes, field }) => (
              <ToggleSwitch
                {...attributes}
                checked={field.value ?? false}
                onCheckedChange={(checked: boolean) => {
                  field.onChange(checked);
                  if (checked) onMultiCardOn();
                }}
                onBlur={field.onBlur}
              />
            )}
          </FieldFrame>
        ) : null}
      </div>
      {gpuType !== 'none' ? (
        <div className="field-row">
          {gpuType === 'mgpu' ? (
            <>
              <TextField
                {...frame}
                path={`${base}.gpu.compute`}
                label={t('field.compute')}
                inputMode="decimal"
                suffix={t('form.compute.unit')}
              />
              <TextField
                {...frame}
                path={`${base}.gpu.memoryGiB`}
                label={t('field.memory')}
                inputMode="decimal"
                suffix={t('form.memory.unit')}
              />
            </>
          ) : null}
          {(gpuType === 'mgpu' && multiCard) || gpuType === 'nvidia' ? (
            <TextField
              {...frame}
              path={`${base}.gpu.cards`}
              label={t('field.cards')}
              inputMode="numeric"
            />
          ) : null}
          <FieldFrame {...frame} path={`${base}.gpu.model`} label={t('field.model')}>
            {({ attributes, field }) => (
              <NativeSelect
                {...attributes}
                // The schema reads any input here (null = any model); the select shows text only.
                value={typeof field.value === 'string' ? field.value : ''}
                onValueChange={field.onChange}
                options={[
                  { value: '', label: t('form.model.any') },
                  ...models.map((model) => ({
                    value: model.model,
                    label: t('form.model.option', {
                      model: model.model,
                      mib: model.memoryMiBPerCard,
                      cards: model.cardsPerNode,
                    }),
                  })),
                ]}
              />
            )}
          </FieldFrame>
        </div>
      ) : null}
    </fieldset>
  );
}

/**
 * One container's fields; re-renders only when its GPU type, multi-card switch, models or language
 * change. Each field reads its own value and errors.
 */
export const ContainerFields = memo(
  ContainerFieldsView,
  (before, after) =>
    before.index === after.index &&
    before.models === after.models &&
    before.canRemove === after.canRemove &&
    before.control === after.control &&
    before.onRemove === after.onRemove &&
    before.onMultiCardOn === after.onMultiCardOn,
);
