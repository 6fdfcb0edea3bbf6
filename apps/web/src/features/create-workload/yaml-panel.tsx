import { yaml as yamlLanguage } from '@codemirror/lang-yaml';
import { Transaction } from '@codemirror/state';
import { readWorkloadObject, type WorkloadRequest } from '@mgpu/shared';
import { Alert } from 'antd';
import { basicSetup, EditorView } from 'codemirror';
import { useEffect, useRef, useState } from 'react';
import { parse, stringify } from 'yaml';
import { useI18n } from '../../i18n/i18n.js';
import { CopyButton } from './copy-button.js';

/** How long the operator may pause typing YAML before it is read back into the form. */
const YAML_READ_DELAY_MS = 250;

type ReadOutcome =
  | { kind: 'idle' }
  | { kind: 'synced' }
  | { kind: 'invalid'; message: string }
  | {
      kind: 'not-workload';
    };

interface YamlPanelProps {
  manifest: Record<string, unknown>;
  draft: boolean;
  /** A request read from YAML the operator typed: it replaces the form's draft. */
  onRequest(request: WorkloadRequest): void;
}

/**
 * The manifest as YAML in CodeMirror, editable. The form and this editor share one draft: edits
 * flow into the form when they parse as a workload; text that does not parse leaves the form be.
 */
export default function YamlPanel({ manifest, draft, onRequest }: YamlPanelProps) {
  const { t } = useI18n();
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const text = stringify(manifest);
  const [outcome, setOutcome] = useState<ReadOutcome>({ kind: 'idle' });
  const onRequestRef = useRef(onRequest);
  onRequestRef.current = onRequest;
  const ariaLabel = t('yaml.editorLabel');

  // The editor is made once per mount; later text arrives through the effect below.
  // biome-ignore lint/correctness/useExhaustiveDependencies: created once per mount
  useEffect(() => {
    if (!host.current) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const readBack = (source: string) => {
      let object: unknown;
      try {
        object = parse(source);
      } catch (error) {
        setOutcome({
          kind: 'invalid',
          message: error instanceof Error ? error.message : String(error),
        });
        return;
      }
      const read = readWorkloadObject(object);
      if (!read) {
        setOutcome({ kind: 'not-workload' });
        return;
      }
      setOutcome({ kind: 'synced' });
      onRequestRef.current(read.request);
    };
    const editor = new EditorView({
      parent: host.current,
      doc: text,
      extensions: [
        basicSetup,
        yamlLanguage(),
        EditorView.contentAttributes.of({ 'aria-label': ariaLabel }),
        EditorView.updateListener.of((update) => {
          // Only the operator's typing is read back; text the form wrote is already the draft.
          const typed = update.transactions.some(
            (tr) => tr.annotation(Transaction.userEvent) !== undefined,
          );
          if (!update.docChanged || !typed) return;
          clearTimeout(timer);
          const source = update.state.doc.toString();
          timer = setTimeout(() => readBack(source), YAML_READ_DELAY_MS);
        }),
      ],
    });
    view.current = editor;
    return () => {
      clearTimeout(timer);
      editor.destroy();
      view.current = null;
    };
  }, []);

  // When the form changes the draft (and the operator is not typing here), show the new manifest.
  useEffect(() => {
    const editor = view.current;
    if (!editor || editor.hasFocus) return;
    const current = editor.state.doc.toString();
    if (current !== text)
      editor.dispatch({ changes: { from: 0, to: current.length, insert: text } });
  }, [text]);

  return (
    <section aria-labelledby="yaml-title">
      <div className="panel-head">
        <h2 id="yaml-title" className="panel-title">
          {t('yaml.title')}
        </h2>
        <CopyButton text={() => view.current?.state.doc.toString() ?? text} />
      </div>
      {draft ? <Alert type="warning" showIcon title={t('yaml.draft')} /> : null}
      {outcome.kind === 'invalid' ? (
        <Alert
          role="alert"
          type="error"
          showIcon
          title={t('yaml.invalid', { message: outcome.message })}
        />
      ) : null}
      {outcome.kind === 'not-workload' ? (
        <Alert role="alert" type="error" showIcon title={t('yaml.notWorkload')} />
      ) : null}
      {outcome.kind === 'synced' ? (
        <p className="muted" role="status">
          {t('yaml.synced')}
        </p>
      ) : null}
      <div ref={host} className="yaml-editor" />
    </section>
  );
}

/** The same manifest as a `kubectl apply` an operator can paste into a shell. */
export function KubectlCommand({ manifest }: { manifest: Record<string, unknown> }) {
  const { t } = useI18n();
  const command = `kubectl apply -f - <<'EOF'\n${stringify(manifest)}EOF\n`;
  return (
    <section aria-labelledby="kubectl-title">
      <div className="panel-head">
        <h2 id="kubectl-title" className="panel-title">
          {t('kubectl.title')}
        </h2>
        <CopyButton text={command} />
      </div>
      <pre className="kubectl-command" data-testid="kubectl-command">
        {command}
      </pre>
    </section>
  );
}
