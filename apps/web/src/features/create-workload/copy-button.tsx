import { useState } from 'react';
import { PlainButton } from '../../components/plain-button.js';
import { useI18n } from '../../i18n/i18n.js';

/** Copies text to the clipboard and says whether it worked. */
export function CopyButton({ text, label }: { text: string | (() => string); label?: string }) {
  const { t } = useI18n();
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(typeof text === 'string' ? text : text());
      setState('copied');
    } catch {
      setState('failed');
    }
  };
  return (
    <PlainButton size="small" onClick={copy} aria-label={label ?? t('copy.copy')}>
      {state === 'copied'
        ? t('copy.copied')
        : state === 'failed'
          ? t('copy.failed')
          : t('copy.copy')}
    </PlainButton>
  );
}
