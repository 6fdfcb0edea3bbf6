import { Outlet } from 'react-router';
import { ConsoleAntdConfig } from '../components/console-antd-config.js';

/**
 * antd's locale and settings for the pages that draw antd components (result view, dashboard,
 * not found). A route layout loaded with those pages, so the form's first bundle carries neither
 * ConfigProvider nor antd's theme runtime.
 */
export function AntdScope() {
  return (
    <ConsoleAntdConfig>
      <Outlet />
    </ConsoleAntdConfig>
  );
}
