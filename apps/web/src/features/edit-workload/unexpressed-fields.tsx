import { manifestYaml, type WorkloadDetail } from '@mgpu/shared';
import { ScrollRegion } from '../../components/scroll-region.js';
import { useI18n } from '../../i18n/i18n.js';

type Unexpressed = WorkloadDetail['unexpressed'];

function FieldList({ fields }: { fields: Unexpressed }) {
  const { t } = useI18n();
  return (
    <ul className="unexpressed-fields">
      {fields.map((field) => (
        <li key={field.path} data-reason={field.reason}>
          <code>{field.path}</code> — {t(`edit.unexpressed.${field.reason}`)}
        </li>
      ))}
    </ul>
  );
}

/** Above Apply: the fields the form does not show, which the update keeps as they are. */
export function KeptFields({ fields }: { fields: Unexpressed }) {
  const { t } = useI18n();
  if (fields.length === 0) return null;
  return (
    <details className="kept-fields">
      <summary>{t('edit.keptFields')}</summary>
      <FieldList fields={fields} />
    </details>
  );
}

const KUBECTL_RESOURCE = { Deployment: 'deployment', StatefulSet: 'statefulset', Job: 'job' };

/**
 * Instead of the form, for an object the form cannot round-trip: why (each field it would
 * rewrite or drop), the YAML the console reads of it, and the kubectl command that edits it all.
 */
export function ReadOnlyWorkload({ live }: { live: WorkloadDetail }) {
  const { t } = useI18n();
  const lost = live.unexpressed.filter((field) => !field.kept);
  const resource =
    KUBECTL_RESOURCE[live.kind as keyof typeof KUBECTL_RESOURCE] ?? live.kind.toLowerCase();
  return (
    <section className="edit-read-only" aria-labelledby="edit-read-only-title">
      <h1 id="edit-read-only-title">{t('edit.title', live)}</h1>
      <div role="alert" className="form-alert" data-rule="read-only">
        <strong>{t('edit.readOnly.title')}</strong>
        <p>{t('edit.readOnly.explain')}</p>
        <FieldList fields={lost} />
      </div>
      <p>
        {t('edit.readOnly.kubectl')}{' '}
        <code>{`kubectl edit ${resource}/${live.name} -n ${live.namespace}`}</code>
      </p>
      {live.manifest ? (
        <>
          <h2 id="edit-read-only-yaml" className="section-title">
            {t('edit.readOnly.yaml')}
          </h2>
          <ScrollRegion labelledBy="edit-read-only-yaml">
            <pre className="yaml-view">{manifestYaml(live.manifest)}</pre>
          </ScrollRegion>
        </>
      ) : null}
      <KeptFields fields={live.unexpressed.filter((field) => field.kept)} />
    </section>
  );
}
