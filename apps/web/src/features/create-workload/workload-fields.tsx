import type { WorkloadRequestInput } from '@mgpu/shared';
import { COMPUTE_POLICIES, CREATABLE_KINDS } from '@mgpu/shared';
import { memo } from 'react';
import type { Control } from 'react-hook-form';
import { NativeSelect } from '../../components/native-select.js';
import { TextInput } from '../../components/text-input.js';
import { useI18n } from '../../i18n/i18n.js';
import { FieldFrame, TextField } from './field-frame.js';

interface WorkloadFieldsProps {
  control: Control<WorkloadRequestInput>;
  /** Editing a live object: kind, name and namespace are shown, not edited. */
  identityFixed: boolean;
}

/** Kind, name, namespace, replicas and the pod's compute policy (算力分配策略). */
function WorkloadFieldsView({ control, identityFixed }: WorkloadFieldsProps) {
  const { t } = useI18n();
  return (
    <fieldset className="workload-card">
      <legend>{t('form.workload')}</legend>
      <FieldFrame control={control} path="kind" label={t('field.kind')} hint={t('form.kind.hint')}>
        {({ attributes, field }) => (
          <NativeSelect
            {...attributes}
            disabled={identityFixed}
            // Absent means Deployment (spec §8); the Kubernetes names are what operators know.
            value={typeof field.value === 'string' ? field.value : 'Deployment'}
            onValueChange={(value) => field.onChange(value)}
            options={CREATABLE_KINDS.map((kind) => ({
              value: kind,
              label: t(`form.kind.${kind}`),
            }))}
          />
        )}
      </FieldFrame>
      <div className="field-row">
        <TextField
          control={control}
          path="name"
          label={t('field.name')}
          placeholder="demo"
          readOnly={identityFixed}
        />
        <TextField
          control={control}
          path="namespace"
          label={t('field.namespace')}
          readOnly={identityFixed}
        />
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
  (before, after) =>
    before.control === after.control && before.identityFixed === after.identityFixed,
);
