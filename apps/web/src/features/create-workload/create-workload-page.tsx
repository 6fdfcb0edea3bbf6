import { zodResolver } from '@hookform/resolvers/zod';
import {
  buildDeployment,
  checkRequest,
  type GpuModel,
  newWorkloadRequest,
  type WorkloadRequest,
  type WorkloadRequestInput,
  WorkloadRequestSchema,
} from '@mgpu/shared';
import { keepPreviousData, skipToken, useMutation, useQuery } from '@tanstack/react-query';
import { TRPCClientError } from '@trpc/client';
import { lazy, Suspense, useCallback, useMemo, useRef, useState } from 'react';
import { useFieldArray, useForm, useWatch } from 'react-hook-form';
import { useNavigate } from 'react-router';
import { useTRPC } from '../../app/trpc.js';
import { PlainButton } from '../../components/plain-button.js';
import { TabStrip } from '../../components/tab-strip.js';
import { useI18n } from '../../i18n/i18n.js';
import { ContainerFields } from './container-fields.js';
import {
  errorsByPath,
  type FieldError,
  isFieldPath,
  mergeErrors,
  requestOfDraft,
} from './draft.js';
import { useReplayEarlyInput } from './early-input.js';
import { PerCardPanel } from './per-card-panel.js';
import { PlacementPreview } from './placement-preview.js';
import { useDebouncedValue } from './use-debounced-value.js';
import { WorkloadFields } from './workload-fields.js';

// CodeMirror and the YAML library load only when the YAML or kubectl tab is opened.
const YamlPanel = lazy(() => import('./yaml-panel.js'));
const KubectlCommand = lazy(() =>
  import('./yaml-panel.js').then((m) => ({ default: m.KubectlCommand })),
);

/** Pause in typing after which the cluster-aware rules and the placement preview are asked for. */
const PREVIEW_DELAY_MS = 300;

const NO_ERRORS = new Map<string, FieldError[]>();
const NO_MODELS: readonly GpuModel[] = [];

function newClientRequestId(): string {
  return (
    globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`
  );
}

function errorsOf(byPath: Map<string, FieldError[]>, prefix: string) {
  const own = new Map<string, FieldError[]>();
  for (const [path, errors] of byPath) if (path.startsWith(prefix)) own.set(path, errors);
  return own;
}

/** What a set of errors shows, as one string: memoised parts compare it instead of the objects. */
const signatureOf = (errors: Iterable<FieldError>) => {
  let signature = '';
  for (const e of errors)
    signature += `${e.path}\u0001${e.rule}\u0001${e.message}\u0001${e.fix ?? ''}\u0002`;
  return signature;
};
const keyOf = (errors: ReadonlyMap<string, FieldError[]>) =>
  signatureOf([...errors.values()].flat());

export function CreateWorkloadPage() {
  const { t, lang } = useI18n();
  const trpc = useTRPC();
  const navigate = useNavigate();
  const form = useForm<WorkloadRequestInput, unknown, WorkloadRequest>({
    resolver: zodResolver(WorkloadRequestSchema),
    defaultValues: newWorkloadRequest(),
    // The schema only checks the request's shape (on submit); the rules run live through checkRequest.
    mode: 'onSubmit',
  });
  const { control } = form;
  const containerArray = useFieldArray({ control, name: 'containers' });
  useReplayEarlyInput();

  // One draft behind the form, the per-card panel, the YAML and the submit button.
  const draft = useWatch({ control }) as WorkloadRequestInput;
  const request = useMemo(() => requestOfDraft(draft), [draft]);
  const requestJson = request ? JSON.stringify(request) : '';
  // biome-ignore lint/correctness/useExhaustiveDependencies: the JSON is the request's identity
  const local = useMemo(
    () => (request ? checkRequest(request, { lang }) : undefined),
    [requestJson, lang],
  );

  const models = useQuery(trpc.gpu.models.queryOptions());
  const settledJson = useDebouncedValue(requestJson, PREVIEW_DELAY_MS);
  const settledRequest = useMemo(
    () => (settledJson ? (JSON.parse(settledJson) as WorkloadRequest) : undefined),
    [settledJson],
  );
  const preview = useQuery({
    ...trpc.workload.preview.queryOptions(
      settledRequest ? { request: settledRequest, lang } : skipToken,
    ),
    placeholderData: keepPreviousData,
  });
  const previewIsCurrent =
    preview.data !== undefined && !preview.isPlaceholderData && settledJson === requestJson;

  const [serverErrors, setServerErrors] = useState<{ forJson: string; errors: FieldError[] }>();
  const [networkFailure, setNetworkFailure] = useState<string>();
  const create = useMutation(trpc.workload.create.mutationOptions());
  // A submission keeps its id while the request is unchanged, so a retry never creates twice.
  const submission = useRef<{ json: string; id: string } | null>(null);

  const errors = useMemo(
    () =>
      local
        ? mergeErrors(
            local,
            previewIsCurrent ? preview.data?.errors : undefined,
            serverErrors?.forJson === requestJson ? serverErrors.errors : [],
          )
        : [],
    [local, previewIsCurrent, preview.data, serverErrors, requestJson],
  );
  // Most keystrokes leave the errors as they were: keep the same map then, so the containers'
  // memoised fields skip their render.
  const errorsSignature = signatureOf(errors);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the signature is the errors' identity
  const byPath = useMemo(() => errorsByPath(errors), [errorsSignature]);
  const formErrors = errors.filter((error) => !isFieldPath(error.path));
  const workloadErrors = useMemo(() => {
    const own = new Map<string, FieldError[]>();
    for (const path of ['name', 'namespace', 'replicas', 'computePolicy']) {
      const list = byPath.get(path);
      if (list) own.set(path, list);
    }
    return own;
  }, [byPath]);

  const removeContainer = useCallback(
    (index: number) => containerArray.remove(index),
    [containerArray.remove],
  );
  const addContainer = () => {
    const names = new Set(form.getValues('containers').map((c) => c.name));
    let n = containerArray.fields.length + 1;
    while (names.has(`main-${n}`)) n++;
    containerArray.append({
      name: `main-${n}`,
      image: '',
      gpu: { type: 'mgpu', multiCard: false },
    });
  };
  const replaceDraft = useCallback(
    (next: WorkloadRequest) => form.reset(next, { keepDefaultValues: true }),
    [form.reset],
  );

  const submit = form.handleSubmit(async (parsed) => {
    const json = JSON.stringify(parsed);
    if (submission.current?.json !== json) submission.current = { json, id: newClientRequestId() };
    setNetworkFailure(undefined);
    try {
      const created = await create.mutateAsync({
        request: parsed,
        clientRequestId: submission.current.id,
        lang,
      });
      navigate(
        `/workloads/${encodeURIComponent(created.namespace)}/${encodeURIComponent(created.name)}`,
      );
    } catch (error) {
      const ruleErrors =
        error instanceof TRPCClientError
          ? (error.data as { ruleErrors?: FieldError[] } | undefined)?.ruleErrors
          : undefined;
      if (ruleErrors && ruleErrors.length > 0)
        setServerErrors({ forJson: json, errors: ruleErrors });
      else setNetworkFailure(error instanceof Error ? error.message : String(error));
    }
  });

  // Built only while the YAML or kubectl tab is on screen (their panes call it when they render).
  const manifestOf = (): Record<string, unknown> | undefined => {
    if (!request || !local) return undefined;
    const object = local.manifest ?? buildDeployment(request, local.containers);
    return object as unknown as Record<string, unknown>;
  };

  const blockedReason = !request
    ? t('form.unreadable')
    : errors.length > 0
      ? t('form.blocked', { count: errors.length, first: errors[0]?.message ?? '' })
      : undefined;
  const submitDisabled = blockedReason !== undefined || create.isPending;

  const gpuModels = models.data ?? NO_MODELS;
  // Rebuilt only when the errors, the containers or the models change, not on every keystroke.
  const containerList = useMemo(
    () =>
      containerArray.fields.map((field, index) => {
        const own = byPath.size > 0 ? errorsOf(byPath, `containers.${index}.`) : NO_ERRORS;
        return (
          <ContainerFields
            key={field.id}
            index={index}
            control={control}
            errors={own}
            errorsKey={keyOf(own)}
            models={gpuModels}
            canRemove={containerArray.fields.length > 1}
            onRemove={removeContainer}
          />
        );
      }),
    [containerArray.fields, byPath, control, gpuModels, removeContainer],
  );

  const formTab = (
    <div className="form-tab">
      <WorkloadFields control={control} errors={workloadErrors} errorsKey={keyOf(workloadErrors)} />
      <h2 className="section-title">{t('form.containers')}</h2>
      {containerList}
      <PlainButton onClick={addContainer}>{t('form.addContainer')}</PlainButton>
    </div>
  );

  return (
    <form
      className="create-page"
      noValidate
      onSubmit={(event) => {
        void submit(event);
      }}
    >
      {/* Element Timing: the budgets benchmark reads when the form's title was painted. */}
      <h1 className="page-title" {...{ elementtiming: 'form-title' }}>
        {t('form.title')}
      </h1>
      <div className="create-layout">
        <div className="create-main">
          <TabStrip
            label={t('form.title')}
            items={[
              { key: 'form', label: t('form.tab.form'), render: () => formTab },
              {
                key: 'yaml',
                label: t('form.tab.yaml'),
                render: () => {
                  const manifest = manifestOf();
                  return manifest ? (
                    <Suspense fallback={<p className="loading">{t('yaml.loading')}</p>}>
                      <YamlPanel
                        manifest={manifest}
                        draft={local?.manifest === undefined}
                        onRequest={replaceDraft}
                      />
                    </Suspense>
                  ) : null;
                },
              },
              {
                key: 'kubectl',
                label: t('form.tab.kubectl'),
                render: () => {
                  const manifest = manifestOf();
                  return manifest ? (
                    <Suspense fallback={<p className="loading">{t('yaml.loading')}</p>}>
                      <KubectlCommand manifest={manifest} />
                    </Suspense>
                  ) : null;
                },
              },
            ]}
          />
          {formErrors.length > 0 ? (
            <div role="alert" className="form-alert">
              <strong>{t('form.otherProblems')}</strong>
              <ul>
                {formErrors.map((error) => (
                  <li key={`${error.path}-${error.rule}`} data-rule={error.rule}>
                    {error.message} {error.fix}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {networkFailure ? (
            <div role="alert" className="form-alert">
              {t('form.networkError', { message: networkFailure })}
            </div>
          ) : null}
          <div className="submit-row">
            {/* The reason is also on screen beside the button (and read with it): a tooltip alone hides it. */}
            <span title={blockedReason}>
              <PlainButton
                variant="primary"
                type="submit"
                disabled={submitDisabled}
                busy={create.isPending}
                aria-describedby="submit-status"
              >
                {t('form.create')}
              </PlainButton>
            </span>
            <p id="submit-status" className="submit-status" aria-live="polite">
              {create.isPending ? t('form.creating') : (blockedReason ?? t('form.ready'))}
            </p>
          </div>
        </div>
        <aside className="create-side">
          <PerCardPanel request={request} shares={local?.containers ?? []} />
          <PlacementPreview
            preview={previewIsCurrent || preview.isPlaceholderData ? preview.data : undefined}
            loading={preview.isFetching}
            failure={preview.error ? preview.error.message : undefined}
          />
        </aside>
      </div>
    </form>
  );
}
