import type { GpuModel, WorkloadRequestInput } from '@mgpu/shared';
import { GPU_TYPES } from '@mgpu/shared';
import { memo } from 'react';
import { type Control, Controller, useWatch } from 'react-hook-form';
import { NativeSelect } from '../../components/native-select.js';
import { PlainButton } from '../../components/plain-button.js';
import { TextInput } from '../../components/text-input.js';
import { ToggleSwitch } from '../../components/toggle-switch.js';
import { useI18n } from '../../i18n/i18n.js';
import type { FieldError } from './draft.js';
import { FieldFrame, fieldAria } from './field-frame.js';

interface ContainerFieldsProps {
  index: number;
  control: Control<WorkloadRequestInput>;
  /** This container's errors by path; compared by content so typing elsewhere skips a render. */
  errors: ReadonlyMap<string, FieldError[]>;
  errorsKey: string;
  models: readonly GpuModel[];
  canRemove: boolean;
  onRemove(index: number): void;
}

function ContainerFieldsView({
  index,
  control,
  errors,
  models,
  canRemove,
  onRemove,
}: ContainerFieldsProps) {
  const { t } = useI18n();
  const base = `containers.${index}` as const;
  // A container without a gpu object asks for no GPU (the request schema's reading).
  const gpuType = useWatch({ control, name: `${base}.gpu.type` }) ?? 'none';
  const multiCard = useWatch({ control, name: `${base}.gpu.multiCard` }) ?? false;
  // The first container's fields carry exactly the §7 labels; later ones add "(container n)".
  const suffix = index === 0 ? undefined : t('field.ofContainer', { n: index + 1 });
  const frame = (path: string) => ({
    path,
    labelSuffix: suffix,
    errors: errors.get(path),
  });
  const gpuTypeLabel: Record<(typeof GPU_TYPES)[number], string> = {
    mgpu: t('form.gpuType.mgpu'),
    nvidia: t('form.gpuType.nvidia'),
    none: t('form.gpuType.none'),
  };

  return (
    <fieldset className="container-card">
      <legend>{t('form.container', { n: index + 1 })}</legend>
      {canRemove ? (
        <PlainButton size="small" className="container-remove" onClick={() => onRemove(index)}>
          {t('form.removeContainer', { n: index + 1 })}
        </PlainButton>
      ) : null}
      <div className="field-row">
        <FieldFrame {...frame(`${base}.name`)} label={t('field.containerName')}>
          <Controller
            control={control}
            name={`${base}.name`}
            render={({ field }) => (
              <TextInput
                {...fieldAria(`${base}.name`, errors.get(`${base}.name`))}
                value={field.value}
                onValueChange={field.onChange}
                onBlur={field.onBlur}
                autoComplete="off"
              />
            )}
          />
        </FieldFrame>
        <FieldFrame {...frame(`${base}.image`)} label={t('field.image')}>
          <Controller
            control={control}
            name={`${base}.image`}
            render={({ field }) => (
              <TextInput
                {...fieldAria(`${base}.image`, errors.get(`${base}.image`))}
                value={field.value ?? ''}
                onValueChange={field.onChange}
                onBlur={field.onBlur}
                placeholder="nginx:1.27"
                autoComplete="off"
              />
            )}
          />
        </FieldFrame>
      </div>
      <div className="field-row">
        <FieldFrame
          {...frame(`${base}.gpu.type`)}
          label={t('field.gpuType')}
          hint={index === 0 ? t('form.gpuType.hint') : undefined}
        >
          <Controller
            control={control}
            name={`${base}.gpu.type`}
            render={({ field }) => (
              <NativeSelect
                {...fieldAria(`${base}.gpu.type`, errors.get(`${base}.gpu.type`))}
                value={field.value ?? 'none'}
                onValueChange={field.onChange}
                options={GPU_TYPES.map((type) => ({ value: type, label: gpuTypeLabel[type] }))}
              />
            )}
          />
        </FieldFrame>
        {gpuType === 'mgpu' ? (
          <FieldFrame {...frame(`${base}.gpu.multiCard`)} label={t('field.multiCard')}>
            <Controller
              control={control}
              name={`${base}.gpu.multiCard`}
              render={({ field }) => (
                <ToggleSwitch
                  {...fieldAria(`${base}.gpu.multiCard`, errors.get(`${base}.gpu.multiCard`))}
                  checked={field.value ?? false}
                  onCheckedChange={field.onChange}
                  onBlur={field.onBlur}
                />
              )}
            />
          </FieldFrame>
        ) : null}
      </div>
      {gpuType !== 'none' ? (
        <div className="field-row">
          {gpuType === 'mgpu' ? (
            <>
              <FieldFrame {...frame(`${base}.gpu.compute`)} label={t('field.compute')}>
                <Controller
                  control={control}
                  name={`${base}.gpu.compute`}
                  render={({ field }) => (
                    <TextInput
                      {...fieldAria(`${base}.gpu.compute`, errors.get(`${base}.gpu.compute`))}
                      value={String(field.value ?? '')}
                      onValueChange={field.onChange}
                      onBlur={field.onBlur}
                      inputMode="decimal"
                      suffix={t('form.compute.unit')}
                      autoComplete="off"
                    />
                  )}
                />
              </FieldFrame>
              <FieldFrame {...frame(`${base}.gpu.memoryGiB`)} label={t('field.memory')}>
                <Controller
                  control={control}
                  name={`${base}.gpu.memoryGiB`}
                  render={({ field }) => (
                    <TextInput
                      {...fieldAria(`${base}.gpu.memoryGiB`, errors.get(`${base}.gpu.memoryGiB`))}
                      value={String(field.value ?? '')}
                      onValueChange={field.onChange}
                      onBlur={field.onBlur}
                      inputMode="decimal"
                      suffix={t('form.memory.unit')}
                      autoComplete="off"
                    />
                  )}
                />
              </FieldFrame>
            </>
          ) : null}
          {(gpuType === 'mgpu' && multiCard) || gpuType === 'nvidia' ? (
            <FieldFrame {...frame(`${base}.gpu.cards`)} label={t('field.cards')}>
              <Controller
                control={control}
                name={`${base}.gpu.cards`}
                render={({ field }) => (
                  <TextInput
                    {...fieldAria(`${base}.gpu.cards`, errors.get(`${base}.gpu.cards`))}
                    value={field.value === undefined ? '' : String(field.value)}
                    onValueChange={field.onChange}
                    onBlur={field.onBlur}
                    inputMode="numeric"
                    autoComplete="off"
                  />
                )}
              />
            </FieldFrame>
          ) : null}
          <FieldFrame {...frame(`${base}.gpu.model`)} label={t('field.model')}>
            <Controller
              control={control}
              name={`${base}.gpu.model`}
              render={({ field }) => (
                <NativeSelect
                  {...fieldAria(`${base}.gpu.model`, errors.get(`${base}.gpu.model`))}
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
            />
          </FieldFrame>
        </div>
      ) : null}
    </fieldset>
  );
}

/** One container's fields; re-renders only when its own errors, models or language change. */
export const ContainerFields = memo(
  ContainerFieldsView,
  (before, after) =>
    before.index === after.index &&
    before.errorsKey === after.errorsKey &&
    before.models === after.models &&
    before.canRemove === after.canRemove &&
    before.control === after.control &&
    before.onRemove === after.onRemove,
);
