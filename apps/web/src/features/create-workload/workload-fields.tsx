import type { WorkloadRequestInput } from '@mgpu/shared';
import { COMPUTE_POLICIES } from '@mgpu/shared';
import { memo } from 'react';
import type { Control } from 'react-hook-form';
import { NativeSelect } from '../../components/native-select.js';
import { TextInput } from '../../components/text-input.js';
import { useI18n } from '../../i18n/i18n.js';
import { FieldFrame, TextField } from './field-frame.js';
import { NamespaceQuota } from './namespace-quota.js';

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
        <TextField control={control} path="name" label={t('field.name')} placeholder="demo" />
        <TextField control={control} path="namespace" label={t('field.namespace')} />
        <FieldFrame control={control} path="replicas" label={t('field.replicas')}>
          {({ attributes, field }) => (
            <TextInput
              {...attributes}
              type="number"
              min={0}
              value={String(field.value ?? 1)}
              // An emptied box means zero replicas; the rules judge the number.
              onValueChange={(text) => field.onChange(Number(text || 0))}
              onBlur={field.onBlur}
            />
          )}
        </FieldFrame>
      </div>
      <NamespaceQuota />
      <FieldFrame
        control={control}
        path="computePolicy"
        label={t('field.computePolicy')}
        hint={t('form.policy.hint')}
      >
        {({ attributes, field }) => (
          <NativeSelect
            {...attributes}
            // The schema reads any input here (null = no policy); the select shows text only.
            value={typeof field.value === 'string' ? field.value : ''}
            onValueChange={(value) => field.onChange(value === '' ? undefined : value)}
            options={[
              { value: '', label: t('form.policy.none') },
              ...COMPUTE_POLICIES.map((policy) => ({ value: policy, label: policy })),
            ]}
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
