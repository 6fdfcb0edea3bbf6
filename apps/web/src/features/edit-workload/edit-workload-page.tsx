import {
  CREATABLE_KINDS,
  diffRequests,
  type RequestChange,
  type WorkloadDetail,
  type WorkloadRequest,
} from '@mgpu/shared';
import { useMutation, useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useMemo, useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { mutationFailure } from '../../app/mutation-failure.js';
import { useMutationOutcome } from '../../app/mutation-outcome.js';
import { useTRPC } from '../../app/trpc.js';
import { ConsoleAntdConfig } from '../../components/console-antd-config.js';
import { PlainButton } from '../../components/plain-button.js';
import { useI18n } from '../../i18n/i18n.js';
import { WorkloadForm } from '../create-workload/create-workload-page.js';
import { useDraft } from '../create-workload/draft-store.js';
import { fieldLabelOfPath } from '../create-workload/field-labels.js';
import { HistoryPanel } from '../workload-result/history-panel.js';
import { NotManagedAlert, useNotManagedConfirmation } from './not-managed-confirmation.js';
import { KeptFields, ReadOnlyWorkload } from './unexpressed-fields.js';

// `yaml` and `diff` come with it: the edit page's own chunk, never the creation form's.
const YamlDiffPanel = lazy(() => import('./yaml-diff-panel.js'));

const shown = (value: RequestChange['before'], empty: string) =>
  value === null || value === '' ? empty : String(value);

/** The fields the draft changes against the live object, before anything is applied. */
function ChangesPanel({ live }: { live: WorkloadRequest }) {
  const { t } = useI18n();
  // The draft as JSON: a string snapshot, so the panel re-renders only when the request does.
  const requestJson = useDraft((draft) => draft.requestJson);
  const changes = useMemo(
    () => (requestJson ? diffRequests(live, JSON.parse(requestJson) as WorkloadRequest) : []),
    [live, requestJson],
  );
  return (
    <section className="edit-changes" aria-labelledby="edit-changes-title">
      <h2 id="edit-changes-title" className="section-title">
        {t('edit.changes')}
      </h2>
      {changes.length === 0 ? (
        <p>{t('edit.noChanges')}</p>
      ) : (
        <table className="edit-changes-table">
          <thead>
            <tr>
              <th scope="col">{t('edit.field')}</th>
              <th scope="col">{t('edit.before')}</th>
              <th scope="col">{t('edit.after')}</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((change) => (
              <tr key={change.path} data-path={change.path}>
                {/* The form's label ("GPU compute"), not the request path the diff is keyed by. */}
                <th scope="row" title={change.path}>
                  {fieldLabelOfPath(change.path, t)}
                </th>
                <td>{shown(change.before, t('edit.empty'))}</td>
                <td>{shown(change.after, t('edit.empty'))}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

interface EditFormProps {
  live: WorkloadDetail;
  onReload(): void;
}

/** The form on the live object; `workload.update` with the resourceVersion it was read at. */
function EditForm({ live, onReload }: EditFormProps) {
  const { t, lang } = useI18n();
  const trpc = useTRPC();
  const outcome = useMutationOutcome();
  const update = useMutation(trpc.workload.update.mutationOptions());
  const [conflict, setConflict] = useState(false);
  const { namespace, name } = live;
  // Not the console's: the server refuses without `force`, so the operator confirms it first.
  const force = !live.managedByConsole;
  const confirmation = useNotManagedConfirmation({ namespace, name });
  const aboveSubmit = (
    <>
      {force ? <NotManagedAlert /> : null}
      {confirmation.dialog}
      {live.kind === 'Job' ? <p className="form-note">{t('edit.jobFixed')}</p> : null}
      <ChangesPanel live={live.request} />
      <KeptFields fields={live.unexpressed.filter((field) => field.kept)} />
      {live.manifest ? (
        <Suspense fallback={<p className="loading">{t('yaml.loading')}</p>}>
          <YamlDiffPanel live={live.manifest} modelLabel={live.modelLabel} />
        </Suspense>
      ) : null}
      {conflict ? (
        <div role="alert" className="form-alert" data-rule="conflict">
          <p>{t('edit.conflict')}</p>
          <PlainButton onClick={onReload}>{t('edit.reload')}</PlainButton>
        </div>
      ) : null}
    </>
  );
  return (
    <WorkloadForm
      initialRequest={live.request}
      title={t('edit.title', { namespace, name })}
      labels={{ submit: t('edit.apply'), pending: t('edit.applying'), ready: t('edit.ready') }}
      pending={update.isPending}
      identityFixed
      replacing={{ namespace, name }}
      waitingAction="apply"
      aboveSubmit={aboveSubmit}
      onSubmit={async (request) => {
        setConflict(false);
        if (force && !(await confirmation.ask())) return undefined;
        try {
          await update.mutateAsync({
            namespace,
            name,
            resourceVersion: live.resourceVersion,
            request,
            force,
            lang,
          });
          outcome.completed(
            t('announce.applied', { namespace, name }),
            `/workloads/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`,
          );
          return undefined;
        } catch (error) {
          const refused = mutationFailure(error);
          // Someone else's change: the edits stay in the form; the operator may reload.
          if (refused.ruleErrors?.some((ruleError) => ruleError.rule === 'conflict')) {
            setConflict(true);
            return undefined;
          }
          return refused;
        }
      }}
    />
  );
}

/**
 * `/workloads/<namespace>/<name>/edit` (spec §8): the creation form filled from the live object
 * (`workload.get`, read back by `readWorkloadObject`), the same live rules, per-card panel and
 * placement preview, the changed fields and the YAML diff before applying, and
 * `workload.update`. An object the form cannot round-trip is shown read-only, saying why.
 */
export function EditWorkloadPage() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const navigate = useNavigate();
  const { namespace = '', name = '' } = useParams();
  // Read once: a refetch would replace the form the operator is typing in. Reload is explicit.
  const live = useQuery({
    ...trpc.workload.get.queryOptions({ namespace, name }),
    staleTime: Number.POSITIVE_INFINITY,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
  if (live.error) {
    return (
      <div role="alert" className="form-alert">
        {t('edit.loadFailed', { message: live.error.message })}
      </div>
    );
  }
  if (!live.data) return <p className="loading">{t('edit.loading')}</p>;
  // Fields the form would rewrite or drop: no form, but why, the YAML and the kubectl command.
  if (live.data.unexpressed.some((field) => !field.kept))
    return <ReadOnlyWorkload live={live.data} />;
  const { resourceVersion } = live.data;
  const kind = CREATABLE_KINDS.find((each) => each === live.data.kind);
  return (
    <>
      {/* A reload brings a new resourceVersion: the form starts again from the live values. */}
      <EditForm
        key={resourceVersion}
        live={live.data}
        onReload={() => {
          void live.refetch();
        }}
      />
      {/* Rolled back from the version this page read: then the result page follows it. The
          page is outside AntdScope: the console's antd settings label its buttons as written. */}
      <ConsoleAntdConfig>
        <HistoryPanel
          target={{ namespace, name, kind, resourceVersion }}
          onRolledBack={() =>
            navigate(`/workloads/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`)
          }
        />
      </ConsoleAntdConfig>
    </>
  );
}
