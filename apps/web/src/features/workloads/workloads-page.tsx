import {
  CREATABLE_KINDS,
  isCreatableKind,
  SnapshotAssembly,
  type WorkloadSummary,
} from '@mgpu/shared';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useSubscription } from '@trpc/tanstack-react-query';
import { Alert, Table, type TableColumnsType, Tag } from 'antd';
import { useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useMutationOutcome } from '../../app/mutation-outcome.js';
import { useTRPC } from '../../app/trpc.js';
import { NativeSelect } from '../../components/native-select.js';
import { PlainButton } from '../../components/plain-button.js';
import { ScrollRegion } from '../../components/scroll-region.js';
import { TextInput } from '../../components/text-input.js';
import { useNarrowScreen } from '../../components/use-narrow-screen.js';
import { useI18n } from '../../i18n/i18n.js';
import { useDashboardI18n } from '../allocations/i18n/dashboard-i18n.js';
import { QuotaOverview } from '../allocations/quota-overview.js';
import { useNotManagedConfirmation } from '../edit-workload/not-managed-confirmation.js';
import { UsageSourceNotice, useWorkloadUsage, WorkloadUsageCell } from '../usage/usage-figures.js';
import { sourceOfAll, usageByWorkload, workloadUsageKey } from '../usage/usage-model.js';
import { useScaleVerdict } from './scale-verdict.js';
import { WorkloadCards, type WorkloadField } from './workload-cards.js';
import {
  AgeCell,
  DeleteFromList,
  ReplicasCell,
  SharesCell,
  StateCell,
  useListNamespaces,
} from './workload-list-cells.js';
import { applyWorkloadEvent } from './workload-list-model.js';

const VERIFICATION_COLOR = { verified: 'green', drift: 'red', unknown: 'default' } as const;

const workloadPath = (item: WorkloadSummary) =>
  `/workloads/${encodeURIComponent(item.namespace)}/${encodeURIComponent(item.name)}`;

/** Replicas box and button: `workload.scale` (a Job's parallelism). */
function ScaleControl({ item }: { item: WorkloadSummary }) {
  const { t, lang } = useI18n();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [replicas, setReplicas] = useState(String(item.replicas));
  const outcome = useMutationOutcome();
  const scale = useMutation(
    trpc.workload.scale.mutationOptions({
      onSuccess: (scaled) => {
        // The list's heading takes focus and the live region says what was scaled.
        outcome.completed(t('announce.scaled', scaled));
        return queryClient.invalidateQueries(trpc.workload.list.pathFilter());
      },
    }),
  );
  const wanted = Number(replicas);
  const valid = replicas !== '' && Number.isInteger(wanted) && wanted >= 0;
  // A workload the console did not make is scaled only once the operator confirms (`force`).
  const notManaged = useNotManagedConfirmation(item, {
    title: 'workloads.scale.force.title',
    body: 'workloads.scale.force.body',
    ok: 'workloads.scale.force.ok',
  });
  // Said under the box as the count is typed; a scale some added replicas of which would wait
  // for a node is sent only once the operator confirms (spec §9).
  const verdict = useScaleVerdict(item, valid ? wanted : undefined);
  const send = async () => {
    if (!(await verdict.confirm(wanted))) return;
    const force = !item.managedByConsole;
    if (force && !(await notManaged.ask())) return;
    scale.mutate({
      namespace: item.namespace,
      name: item.name,
      // The listed kind, so a Deployment and a Job of one name are never confused.
      kind: isCreatableKind(item.kind) ? item.kind : undefined,
      replicas: wanted,
      lang,
      ...(force ? { force } : {}),
    });
  };
  return (
    <span className="workloads-scale">
      <TextInput
        aria-label={t('workloads.scale.label', { name: item.name })}
        type="number"
        min={0}
        value={replicas}
        onValueChange={setReplicas}
      />
      <PlainButton
        disabled={!valid || wanted === item.replicas || scale.isPending}
        busy={scale.isPending}
        onClick={() => void send()}
      >
        {t('workloads.scale')}
      </PlainButton>
      {notManaged.dialog}
      {verdict.dialog}
      {verdict.words ? (
        <span className="workloads-scale-verdict" data-verdict={verdict.verdict}>
          {verdict.words}
        </span>
      ) : null}
      {scale.error ? <span role="alert">{scale.error.message}</span> : null}
    </span>
  );
}

/** The quotas of the namespace filtered on (all of them without one), as on the dashboard. */
function WorkloadsQuotas({ namespace }: { namespace: string }) {
  const { t } = useDashboardI18n();
  return (
    <section className="workloads-quotas" aria-labelledby="workloads-quotas-title">
      <h2 id="workloads-quotas-title" className="section-title">
        {t('allocations.quotas.title')}
      </h2>
      <QuotaOverview namespace={namespace} />
    </section>
  );
}

/**
 * `/workloads` (spec §8): the operator's mGPU workloads of every kind the console reads, with
 * ready / wanted replicas, per-card shares, policy, model and verification, kept live by
 * `workload.watch` (its events written into `workload.list`'s cache); filters and search are URL parameters, so a view can be linked. Below them the
 * namespace's quota used / limit, so an edit or a scale-up can be weighed against it.
 */
export function WorkloadsPage() {
  const { t } = useI18n();
  const trpc = useTRPC();
  const [params, setParams] = useSearchParams();
  const queryClient = useQueryClient();
  const listOptions = trpc.workload.list.queryOptions();
  // The query's cache is what the table reads; the stream keeps it current, no polling.
  const list = useQuery({ ...listOptions, staleTime: Number.POSITIVE_INFINITY });
  const [snapshotParts] = useState(() => new SnapshotAssembly<WorkloadSummary>());
  const watch = useSubscription(
    trpc.workload.watch.subscriptionOptions(
      {},
      {
        onData: (event) =>
          queryClient.setQueryData(listOptions.queryKey, (current) =>
            applyWorkloadEvent(current, event.data, snapshotParts),
          ),
      },
    ),
  );
  const namespace = params.get('namespace') ?? '';
  const kind = params.get('kind') ?? '';
  const verification = params.get('verification') ?? '';
  const search = params.get('q') ?? '';
  const setParam = (key: string, value: string) =>
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value) next.set(key, value);
        else next.delete(key);
        return next;
      },
      { replace: true },
    );

  const narrow = useNarrowScreen();
  const items = list.data ?? [];
  const usage = useWorkloadUsage();
  const usageOf = useMemo(() => usageByWorkload(usage.data), [usage.data]);
  const namespaces = useListNamespaces(items);
  const shown = items.filter(
    (item) =>
      (!namespace || item.namespace === namespace) &&
      (!kind || item.kind === kind) &&
      (!verification || item.verification === verification) &&
      (!search || item.name.includes(search)),
  );

  const usageState = usage.isPending ? 'loading' : usage.isError ? 'failed' : 'answered';
  const nameLink = (item: WorkloadSummary) => <Link to={workloadPath(item)}>{item.name}</Link>;
  const actions = (item: WorkloadSummary) => (
    <span className="workloads-actions">
      <Link to={`${workloadPath(item)}/edit`}>{t('result.edit')}</Link>
      <ScaleControl item={item} />
      <DeleteFromList item={item} />
    </span>
  );
  // One list of what is said of a workload: the table's columns, a phone's card lines.
  const fields: WorkloadField[] = [
    { key: 'kind', title: t('workloads.column.kind'), render: (item) => item.kind },
    { key: 'namespace', title: t('workloads.column.namespace'), render: (item) => item.namespace },
    {
      key: 'status',
      title: t('workloads.column.status'),
      render: (item) => <StateCell item={item} />,
    },
    { key: 'age', title: t('workloads.column.age'), render: (item) => <AgeCell item={item} /> },
    {
      key: 'replicas',
      title: t('workloads.column.replicas'),
      render: (item) => <ReplicasCell item={item} />,
    },
    {
      key: 'shares',
      title: t('workloads.column.shares'),
      render: (item) => <SharesCell item={item} />,
    },
    {
      key: 'usage',
      title: t('workloads.column.usage'),
      render: (item) => (
        <WorkloadUsageCell
          usage={usageOf.get(workloadUsageKey(item.kind, item.namespace, item.name))}
          state={usageState}
        />
      ),
    },
    {
      key: 'policy',
      title: t('workloads.column.policy'),
      render: (item) => item.computePolicy ?? '—',
    },
    {
      key: 'model',
      title: t('workloads.column.model'),
      render: (item) =>
        [...new Set(item.containers.flatMap((share) => (share.model ? [share.model] : [])))].join(
          ', ',
        ) || t('workloads.anyModel'),
    },
    {
      key: 'verification',
      title: t('workloads.column.verification'),
      render: (item) => (
        <Tag color={VERIFICATION_COLOR[item.verification]} data-verification={item.verification}>
          {t(`workloads.verification.${item.verification}`)}
        </Tag>
      ),
    },
  ];
  const [kindField, namespaceField, ...restFields] = fields;
  const column = (field: WorkloadField) => ({
    title: field.title,
    key: field.key,
    render: (_value: unknown, item: WorkloadSummary) => field.render(item),
  });
  const columns: TableColumnsType<WorkloadSummary> = [
    ...(kindField && namespaceField ? [column(kindField), column(namespaceField)] : []),
    { title: t('workloads.column.name'), key: 'name', render: (_value, item) => nameLink(item) },
    ...restFields.map(column),
    {
      title: t('workloads.column.actions'),
      key: 'actions',
      render: (_value, item) => actions(item),
    },
  ];
  const rowKey = (item: WorkloadSummary) => workloadUsageKey(item.kind, item.namespace, item.name);

  return (
    <section className="workloads-page">
      <h1 className="page-title">{t('workloads.title')}</h1>
      <div className="workloads-filters">
        <label htmlFor="workloads-namespace">
          {t('workloads.filter.namespace')}
          <NativeSelect
            id="workloads-namespace"
            value={namespace}
            onValueChange={(value) => setParam('namespace', value)}
            options={[
              { value: '', label: t('workloads.filter.all') },
              ...namespaces.map((value) => ({ value, label: value })),
            ]}
          />
        </label>
        <label htmlFor="workloads-kind">
          {t('field.kind')}
          <NativeSelect
            id="workloads-kind"
            value={kind}
            onValueChange={(value) => setParam('kind', value)}
            options={[
              { value: '', label: t('workloads.filter.all') },
              ...CREATABLE_KINDS.map((value) => ({ value, label: t(`form.kind.${value}`) })),
            ]}
          />
        </label>
        <label htmlFor="workloads-verification">
          {t('workloads.column.verification')}
          <NativeSelect
            id="workloads-verification"
            value={verification}
            onValueChange={(value) => setParam('verification', value)}
            options={[
              { value: '', label: t('workloads.filter.all') },
              ...(['verified', 'drift', 'unknown'] as const).map((value) => ({
                value,
                label: t(`workloads.verification.${value}`),
              })),
            ]}
          />
        </label>
        <label htmlFor="workloads-search">
          {t('workloads.filter.search')}
          <TextInput
            id="workloads-search"
            type="search"
            value={search}
            onValueChange={(value) => setParam('q', value)}
          />
        </label>
      </div>
      {list.error ? <Alert type="error" showIcon message={list.error.message} /> : null}
      {watch.error ? <Alert type="error" showIcon message={watch.error.message} /> : null}
      <UsageSourceNotice source={sourceOfAll(usage.data ?? [])} />
      {usage.error ? (
        <Alert type="warning" showIcon title={t('usage.error', { message: usage.error.message })} />
      ) : null}
      {narrow ? (
        <WorkloadCards
          items={shown}
          label={t('workloads.title')}
          heading={nameLink}
          fields={fields}
          actions={actions}
          rowKey={rowKey}
          loading={list.isPending}
          loadingText={t('workloads.loading')}
          emptyText={t('workloads.empty')}
        />
      ) : (
        // Many columns: on a narrow laptop window the table scrolls in its own box, not the page.
        <ScrollRegion label={t('workloads.title')}>
          <Table<WorkloadSummary>
            rowKey={rowKey}
            columns={columns}
            dataSource={shown}
            loading={list.isPending}
            pagination={false}
            locale={{ emptyText: t('workloads.empty') }}
          />
        </ScrollRegion>
      )}
      <WorkloadsQuotas namespace={namespace} />
    </section>
  );
}
