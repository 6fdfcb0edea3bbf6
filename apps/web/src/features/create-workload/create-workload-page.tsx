import { zodResolver } from '@hookform/resolvers/zod';
import {
  buildWorkload,
  type GpuModel,
  newWorkloadRequest,
  type PreviewResult,
  type RequestVerdict,
  type WorkloadRequest,
  type WorkloadRequestInput,
  WorkloadRequestSchema,
} from '@mgpu/shared';
import {
  keepPreviousData,
  skipToken,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import {
  lazy,
  type ReactNode,
  Suspense,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  useSyncExternalStore,
} from 'react';
import { useFieldArray, useForm } from 'react-hook-form';
import { mutationFailure } from '../../app/mutation-failure.js';
import { useMutationOutcome } from '../../app/mutation-outcome.js';
import { useTRPC } from '../../app/trpc.js';
import { PlainButton } from '../../components/plain-button.js';
import { TabStrip } from '../../components/tab-strip.js';
import { useI18n } from '../../i18n/i18n.js';
import { ContainerFields, containerFormId } from './container-fields.js';
import type { FieldError } from './draft.js';
import { DraftStore, DraftStoreContext, useDraft } from './draft-store.js';
import { useReplayEarlyInput } from './early-input.js';
import { ApplyFixContext } from './fix-buttons.js';
import { useFormShortcuts } from './form-shortcuts.js';
import { PerCardPanel } from './per-card-panel.js';
import { PlacementPreview } from './placement-preview.js';
import { verdictSentence } from './verdict-line.js';
import { useWaitingConfirmation, type WaitingAction } from './waiting-confirmation.js';
import { WorkloadFields } from './workload-fields.js';

// CodeMirror and the YAML library load only when the YAML or kubectl tab is opened.
const YamlPanel = lazy(() => import('./yaml-panel.js'));
const KubectlCommand = lazy(() =>
  import('./yaml-panel.js').then((m) => ({ default: m.KubectlCommand })),
);

/** Pause in typing after which the cluster-aware rules and the placement preview are asked for. */
const PREVIEW_DELAY_MS = 300;

const NO_MODELS: readonly GpuModel[] = [];

function newClientRequestId(): string {
  return (
    globalThis.crypto?.randomUUID?.() ?? `${Date.now()}-${Math.random().toString(36).slice(2)}`
  );
}

/** The manifest that will be sent, from the draft (the YAML and kubectl tabs show it). */
function useManifest(): Record<string, unknown> | undefined {
  const request = useDraft((draft) => draft.request);
  const local = useDraft((draft) => draft.local);
  if (!request || !local) return undefined;
  const object = local.manifest ?? buildWorkload(request, local.containers);
  return object as unknown as Record<string, unknown>;
}

function YamlTab({ onRequest }: { onRequest(request: WorkloadRequest): void }) {
  const { t } = useI18n();
  const manifest = useManifest();
  const draft = useDraft((snapshot) => snapshot.local?.manifest === undefined);
  return manifest ? (
    <Suspense fallback={<p className="loading">{t('yaml.loading')}</p>}>
      <YamlPanel manifest={manifest} draft={draft} onRequest={onRequest} />
    </Suspense>
  ) : null;
}

function KubectlTab() {
  const { t } = useI18n();
  const manifest = useManifest();
  return manifest ? (
    <Suspense fallback={<p className="loading">{t('yaml.loading')}</p>}>
      <KubectlCommand manifest={manifest} />
    </Suspense>
  ) : null;
}

/** Errors on no input of their own (the workload as a whole), above the submit button. */
function FormProblems() {
  const { t } = useI18n();
  const formErrors = useDraft((draft) => draft.formErrors);
  if (formErrors.length === 0) return null;
  return (
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
  );
}

interface SubmitLabels {
  /** The button (spec §7: `创建` / `Create` on the creation form). */
  submit: string;
  pending: string;
  ready: string;
}

interface SubmitRowProps {
  pending: boolean;
  labels: SubmitLabels;
  /** The preview's verdict on the settled request; undefined until it answers. */
  verdict: RequestVerdict | undefined;
  /** The preview failed: no verdict is coming, so the row must not say it is still checking. */
  checkFailed: boolean;
}

/**
 * The submit button, and beside it why it is disabled, or the verdict in words (spec §9):
 * placeable now, or valid but waiting — never "ready" while the preview says no node can run it.
 */
function SubmitRow({ pending, labels, verdict, checkFailed }: SubmitRowProps) {
  const { t } = useI18n();
  const settled = useDraft((draft) => draft.settledJson === draft.requestJson);
  const shownVerdict = settled ? verdict : undefined;
  const blockedReason = useDraft((draft) =>
    !draft.request
      ? t('form.unreadable')
      : draft.errors.length > 0
        ? t('form.blocked', { count: draft.errors.length, first: draft.errors[0]?.message ?? '' })
        : undefined,
  );
  return (
    <div className="submit-row">
      {/* The reason is also on screen beside the button (and read with it): a tooltip alone hides it. */}
      <span title={blockedReason}>
        <PlainButton
          variant="primary"
          type="submit"
          disabled={blockedReason !== undefined || pending}
          busy={pending}
          aria-describedby="submit-status"
        >
          {labels.submit}
        </PlainButton>
      </span>
      <p
        id="submit-status"
        className="submit-status"
        aria-live="polite"
        data-verdict={
          blockedReason !== undefined
            ? 'invalid'
            : (shownVerdict?.verdict ?? (settled && checkFailed ? 'unchecked' : undefined))
        }
      >
        {pending
          ? labels.pending
          : (blockedReason ??
            verdictSentence(t, shownVerdict, labels.ready, settled && checkFailed))}
      </p>
    </div>
  );
}

interface PlacementSlotProps {
  /** The preview's answer for the settled request, or kept from an earlier one while it loads. */
  answer: PreviewResult | undefined;
  /** The answer is an earlier settled request's, shown while the current one's loads. */
  forOtherRequest: boolean;
  loading: boolean;
  failure: string | undefined;
}

/**
 * The placement preview of the request on the form: the answer for the settled request while the
 * draft still is that request, the previous answer while the next one loads; once typing moves
 * on, none until the cluster is asked again. It follows typing itself, so the page does not
 * re-render whenever typing moves away from the settled request or back to it.
 */
function PlacementSlot({ answer, forOtherRequest, loading, failure }: PlacementSlotProps) {
  const settled = useDraft((draft) => draft.settledJson === draft.requestJson);
  return (
    <PlacementPreview
      preview={settled || forOtherRequest ? answer : undefined}
      loading={loading}
      failure={failure}
    />
  );
}

/** What the creation form and the edit form (`/workloads/<ns>/<name>/edit`) differ in. */
export interface WorkloadFormProps {
  /** The values the form starts from: a new request, or the live object read back. */
  initialRequest: WorkloadRequestInput;
  title: string;
  labels: SubmitLabels;
  pending: boolean;
  /** Editing a live object: its name, namespace and kind are its identity and cannot change. */
  identityFixed?: boolean;
  /**
   * Sends the parsed request; answers the server's rule errors (put onto their fields) or a
   * network failure's message, or nothing when it succeeded.
   */
  onSubmit(
    request: WorkloadRequest,
  ): Promise<{ ruleErrors?: FieldError[]; failure?: string } | undefined>;
  /** Shown above the submit row (the edit form's diff against the live object). */
  aboveSubmit?: ReactNode;
  /** The live object an edit replaces: the placement preview counts its replaced pods as freed. */
  replacing?: { namespace: string; name: string };
  /** What a valid-but-waiting submit asks to confirm: `仍然创建` or, editing, `仍然应用`. */
  waitingAction?: Exclude<WaitingAction, 'scale'>;
}

/**
 * The workload form: one draft behind the fields, the per-card panel, the placement preview,
 * the YAML and kubectl tabs and the submit row. `/workloads/new` and the edit route use it alike.
 */
export function WorkloadForm({
  initialRequest,
  title,
  labels,
  pending,
  identityFixed = false,
  onSubmit,
  aboveSubmit,
  replacing,
  waitingAction = 'create',
}: WorkloadFormProps) {
  const { t, lang } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const waiting = useWaitingConfirmation(waitingAction);
  const form = useForm<WorkloadRequestInput, unknown, WorkloadRequest>({
    resolver: zodResolver(WorkloadRequestSchema),
    defaultValues: initialRequest,
    // The schema only checks the request's shape (on submit); the rules run live through checkRequest.
    mode: 'onSubmit',
  });
  const { control } = form;
  const containerArray = useFieldArray({ control, name: 'containers' });

  // One draft behind the form, the per-card panel, the YAML and the submit button.
  const [store] = useState(
    () => new DraftStore(form.getValues() as WorkloadRequestInput, lang, PREVIEW_DELAY_MS),
  );
  // A layout effect: subscribed before the early typing is replayed (a passive effect).
  useLayoutEffect(() => {
    store.setDraft(form.getValues() as WorkloadRequestInput);
    const subscription = form.watch((values, { name }) => {
      // A reset (the YAML tab) names no field: the whole draft is the operator's.
      store.engage(name);
      store.setDraft(values as WorkloadRequestInput);
    });
    return () => subscription.unsubscribe();
  }, [form.watch, form.getValues, store]);
  useEffect(() => () => store.dispose(), [store]);
  useLayoutEffect(() => store.setLang(lang), [store, lang]);
  useReplayEarlyInput();

  const models = useQuery(trpc.gpu.models.queryOptions());
  // The page itself re-renders when typing pauses, not on every keystroke.
  const readSettledJson = () => store.getSnapshot().settledJson;
  const settledJson = useSyncExternalStore(store.subscribe, readSettledJson, readSettledJson);
  const settledRequest = useMemo(
    () => (settledJson ? (JSON.parse(settledJson) as WorkloadRequest) : undefined),
    [settledJson],
  );
  const preview = useQuery({
    ...trpc.workload.preview.queryOptions(
      settledRequest
        ? { request: settledRequest, lang, ...(replacing ? { replacing } : {}) }
        : skipToken,
    ),
    placeholderData: keepPreviousData,
  });
  const previewErrors = preview.isPlaceholderData ? undefined : preview.data?.errors;
  useLayoutEffect(() => {
    store.setPreviewErrors(
      previewErrors ? { forJson: settledJson, errors: previewErrors } : undefined,
    );
  }, [store, settledJson, previewErrors]);

  const [networkFailure, setNetworkFailure] = useState<string>();

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
  const { multiCardOn, applyFix } = useFormShortcuts(form, models.data ?? NO_MODELS);
  const replaceDraft = useCallback(
    (next: WorkloadRequest) => form.reset(next, { keepDefaultValues: true }),
    [form.reset],
  );

  const submit = form.handleSubmit(async (parsed) => {
    const json = JSON.stringify(parsed);
    setNetworkFailure(undefined);
    // The verdict on exactly what is sent, asked afresh: a request some replicas of which will
    // wait for a node is sent only once the operator confirms (the API itself does not ask).
    // A check that fails asks too: "unknown" must not send as silently as "placeable".
    const asked = await queryClient
      .fetchQuery(
        trpc.workload.preview.queryOptions({
          request: parsed,
          lang,
          ...(replacing ? { replacing } : {}),
        }),
      )
      .then(
        (answer) => ({ verdict: answer.verdict, failure: undefined }),
        (failure: unknown) => ({ verdict: undefined, failure }),
      );
    if (asked.verdict === undefined && !(await waiting.askUnchecked(asked.failure, parsed))) return;
    if (asked.verdict?.verdict === 'waiting' && !(await waiting.ask(asked.verdict, parsed))) return;
    const refused = await onSubmit(parsed);
    if (refused?.ruleErrors) store.setServerErrors({ forJson: json, errors: refused.ruleErrors });
    else if (refused?.failure !== undefined) setNetworkFailure(refused.failure);
  });

  const gpuModels = models.data ?? NO_MODELS;
  // Rebuilt only when the containers or the models change, not on every keystroke.
  const containerList = useMemo(
    () =>
      containerArray.fields.map((field, index) => (
        <ContainerFields
          key={field.id}
          index={index}
          control={control}
          models={gpuModels}
          canRemove={containerArray.fields.length > 1}
          onRemove={removeContainer}
          onMultiCardOn={multiCardOn}
        />
      )),
    [containerArray.fields, control, gpuModels, removeContainer, multiCardOn],
  );

  const formTab = (
    <div className="form-tab">
      <WorkloadFields control={control} identityFixed={identityFixed} />
      <h2 className="section-title">{t('form.containers')}</h2>
      {containerList}
      <PlainButton onClick={addContainer}>{t('form.addContainer')}</PlainButton>
    </div>
  );

  return (
    <DraftStoreContext value={store}>
      <ApplyFixContext value={applyFix}>
        <form
          className="create-page"
          noValidate
          onSubmit={(event) => {
            store.engage(undefined);
            void submit(event);
          }}
        >
          {/* Element Timing: the budgets benchmark reads when the form's title was painted. */}
          <h1 className="page-title" {...{ elementtiming: 'form-title' }}>
            {title}
          </h1>
          <div className="create-layout">
            <div className="create-main">
              <TabStrip
                label={title}
                items={[
                  { key: 'form', label: t('form.tab.form'), render: () => formTab },
                  {
                    key: 'yaml',
                    label: t('form.tab.yaml'),
                    render: () => <YamlTab onRequest={replaceDraft} />,
                  },
                  { key: 'kubectl', label: t('form.tab.kubectl'), render: () => <KubectlTab /> },
                ]}
              />
              <FormProblems />
              {networkFailure ? (
                <div role="alert" className="form-alert">
                  {t('form.networkError', { message: networkFailure })}
                </div>
              ) : null}
              {aboveSubmit}
              <SubmitRow
                pending={pending}
                labels={labels}
                verdict={preview.isPlaceholderData ? undefined : preview.data?.verdict}
                checkFailed={preview.isError}
              />
              {waiting.dialog}
            </div>
            <aside className="create-side">
              <PerCardPanel />
              <PlacementSlot
                answer={preview.data}
                forOtherRequest={preview.isPlaceholderData}
                loading={preview.isFetching}
                failure={preview.error ? preview.error.message : undefined}
              />
            </aside>
          </div>
        </form>
        {/* The containers' inputs belong to these (forms cannot nest): see containerFormId. */}
        {containerArray.fields.map((field, index) => (
          <form key={field.id} id={containerFormId(index)} hidden />
        ))}
      </ApplyFixContext>
    </DraftStoreContext>
  );
}

/** `/workloads/new`: a new request, created with `workload.create`, then its result view. */
export function CreateWorkloadPage() {
  const { t, lang } = useI18n();
  const trpc = useTRPC();
  const outcome = useMutationOutcome();
  const create = useMutation(trpc.workload.create.mutationOptions());
  // A submission keeps its id while the request is unchanged, so a retry never creates twice.
  const submission = useRef<{ json: string; id: string } | null>(null);
  const [initialRequest] = useState(newWorkloadRequest);
  return (
    <WorkloadForm
      initialRequest={initialRequest}
      title={t('form.title')}
      labels={{ submit: t('form.create'), pending: t('form.creating'), ready: t('form.ready') }}
      pending={create.isPending}
      onSubmit={async (parsed) => {
        const json = JSON.stringify(parsed);
        if (submission.current?.json !== json)
          submission.current = { json, id: newClientRequestId() };
        try {
          const created = await create.mutateAsync({
            request: parsed,
            clientRequestId: submission.current.id,
            lang,
          });
          outcome.completed(
            t('announce.created', created),
            `/workloads/${encodeURIComponent(created.namespace)}/${encodeURIComponent(created.name)}`,
          );
          return undefined;
        } catch (error) {
          return mutationFailure(error);
        }
      }}
    />
  );
}
