import { ConfigProvider } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import { Outlet } from 'react-router';
import { usePrefersReducedMotion } from '../components/reduced-motion.js';
import { useI18n } from '../i18n/i18n.js';

/**
 * antd's locale and settings for the pages that draw antd components (result view, dashboard,
 * not found). A route layout loaded with those pages, so the form's first bundle carries neither
 * ConfigProvider nor antd's theme runtime.
 */
export function AntdScope() {
  const { lang } = useI18n();
  const reducedMotion = usePrefersReducedMotion();
  return (
    <ConfigProvider
      locale={lang === 'en' ? enUS : zhCN}
      // antd spaces out two-character Chinese labels ("创 建"); §7 names the button exactly "创建".
      button={{ autoInsertSpace: false }}
      theme={{ token: { motion: !reducedMotion } }}
    >
      <Outlet />
    </ConfigProvider>
  );
}
