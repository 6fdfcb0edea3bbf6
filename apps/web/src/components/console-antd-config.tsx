import { ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import type { ReactNode } from 'react';
import { useI18n } from '../i18n/i18n.js';
import { PALETTE, TAG_TEXT } from './palette.js';
import { usePrefersReducedMotion } from './reduced-motion.js';

/**
 * antd's colours from the console's palette (the antd-free pages use the same), so every text
 * and control meets WCAG AA contrast: links, buttons, tags and the red delete button included.
 * Hover and press darken rather than lighten, as the readable colour is already the base.
 */
const PALETTE_TOKENS = {
  colorPrimary: PALETTE.primary,
  colorPrimaryHover: PALETTE.primaryHover,
  colorPrimaryActive: PALETTE.primaryHover,
  colorLink: PALETTE.primary,
  colorLinkHover: PALETTE.primaryHover,
  colorLinkActive: PALETTE.primaryHover,
  colorInfo: PALETTE.primary,
  colorSuccess: PALETTE.success,
  colorWarning: PALETTE.warning,
  colorError: PALETTE.error,
  colorErrorHover: PALETTE.errorHover,
  colorErrorActive: PALETTE.errorHover,
  colorTextTertiary: PALETTE.textMuted,
  colorTextDescription: PALETTE.textMuted,
  ...TAG_TEXT,
  // antd keeps each shade under a second, older name, and both become one CSS variable
  // (--ant-green-7), the older name's value winning: the tags read it, so it is set too.
  'green-7': TAG_TEXT.green7,
  'orange-7': TAG_TEXT.orange7,
  'gold-7': TAG_TEXT.gold7,
  'cyan-7': TAG_TEXT.cyan7,
  'volcano-7': TAG_TEXT.volcano7,
} as const;

/**
 * The console's antd settings, the one place they are set: the operator's language for antd's
 * own words, buttons labelled exactly as written (antd would space out two-character Chinese
 * labels, "回 滚"; §7 names them "创建", "回滚"), the console's palette, and no animation for an
 * operator who asked for less motion. `AntdScope`, the lazily loaded dialog and antd parts on the
 * forms' pages use it.
 */
export function ConsoleAntdConfig({ children }: { children: ReactNode }) {
  const { lang } = useI18n();
  const reducedMotion = usePrefersReducedMotion();
  return (
    <ConfigProvider
      locale={lang === 'en' ? enUS : zhCN}
      button={{ autoInsertSpace: false }}
      theme={{ token: { ...PALETTE_TOKENS, motion: !reducedMotion } }}
    >
      {children}
    </ConfigProvider>
  );
}
