import { ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import type { ReactNode } from 'react';
import { useI18n } from '../i18n/i18n.js';
import { usePrefersReducedMotion } from './reduced-motion.js';

/**
 * The console's antd settings, the one place they are set: the operator's language for antd's
 * own words, buttons labelled exactly as written (antd would space out two-character Chinese
 * labels, "回 滚"; §7 names them "创建", "回滚"), and no animation for an operator who asked for
 * less motion. `AntdScope`, the lazily loaded dialog and antd parts on the forms' pages use it.
 */
export function ConsoleAntdConfig({ children }: { children: ReactNode }) {
  const { lang } = useI18n();
  const reducedMotion = usePrefersReducedMotion();
  return (
    <ConfigProvider
      locale={lang === 'en' ? enUS : zhCN}
      button={{ autoInsertSpace: false }}
      theme={{ token: { motion: !reducedMotion } }}
    >
      {children}
    </ConfigProvider>
  );
}
