import { ConfigProvider, Modal, type ModalProps } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import { useI18n } from '../i18n/i18n.js';
import { usePrefersReducedMotion } from './reduced-motion.js';

/**
 * antd's dialog with the console's antd settings, for pages outside `AntdScope` too (the create
 * and edit forms keep antd out of their first bundle, so this module is loaded lazily): the
 * operator's language for its close button, no zoom for an operator who asked for less motion,
 * and buttons labelled exactly as written.
 */
export default function ConfirmationModal(props: ModalProps) {
  const { lang } = useI18n();
  const reducedMotion = usePrefersReducedMotion();
  return (
    <ConfigProvider
      locale={lang === 'en' ? enUS : zhCN}
      button={{ autoInsertSpace: false }}
      theme={{ token: { motion: !reducedMotion } }}
    >
      <Modal {...props} />
    </ConfigProvider>
  );
}
