import type { WorkloadRequestInput } from '@mgpu/shared';
import { COMPUTE_POLICIES } from '@mgpu/shared';
import { memo } from 'react';
import { type Control, Controller } from 'react-hook-form';
import { NativeSelect } from '../../components/native-select.js';
import { TextInput } from '../../components/text-input.js';
import { useI18n } from '../../i18n/i18n.js';
import { FieldFrame } from './field-frame.js';

interface WorkloadFieldsProps {
  control: Control<WorkloadRequestInput>;
}

/** Name, namespace, replicas and the pod's compute policy (算力分配策略). */
function WorkloadFieldsView({ control }: WorkloadFieldsProps) {
  const { t } = useI18n();
  return (
    <fieldset className="workload-card">
      <legend>{t('form.workload')}</legend>
      <div className="field-row">
        <FieldFrame path="name" label={t('field.name')}>
          {(aria) => (
            <Controller
              control={control}
              name="name"
              render={({ field }) => (
                <TextInput
                  {...aria}
                  value={field.value}
                  onValueChange={field.onChange}
                  onBlur={field.onBlur}
                  placeholder="demo"
                  autoComplete="off"
                />
              )}
            />
          )}
        </FieldFrame>
        <FieldFrame path="namespace" label={t('field.namespace')}>
          {(aria) => (
            <Controller
              control={control}
              name="namespace"
              render={({ field }) => (
                <TextInput
                  {...aria}
                  value={field.value ?? ''}
                  onValueChange={field.onChange}
                  onBlur={field.onBlur}
                  autoComplete="off"
                />
              )}
            />
          )}
        </FieldFrame>
        <FieldFrame path="replicas" label={t('field.replicas')}>
          {(aria) => (
            <Controller
              control={control}
              name="replicas"
              render={({ field }) => (
                <TextInput
                  {...aria}
                  type="number"
                  min={0}
                  value={String(field.value ?? 1)}
                  // An emptied box means zero replicas; the rules judge the number.
                  onValueChange={(text) => field.onChange(Number(text || 0))}
                  onBlur={field.onBlur}
                />
              )}
            />
          )}
        </FieldFrame>
      </div>
      <FieldFrame
        path="computePolicy"
        label={t('field.computePolicy')}
        hint={t('form.policy.hint')}
      >
        {(aria) => (
          <Controller
            control={control}
            name="computePolicy"
            render={({ field }) => (
              <NativeSelect
                {...aria}
                // The schema reads any input here (null = no policy); the select shows text only.
                value={typeof field.value === 'string' ? field.value : ''}
                onValueChange={(value) => field.onChange(value === '' ? undefined : value)}
                options={[
                  { value: '', label: t('form.policy.none') },
                  ...COMPUTE_POLICIES.map((policy) => ({ value: policy, label: policy })),
                ]}
              />
            )}
          />
        )}
      </FieldFrame>
    </fieldset>
  );
}

export const WorkloadFields = memo(
  WorkloadFieldsView,
  (before, after) => before.control === after.control,
);
