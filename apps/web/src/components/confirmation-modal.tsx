import { Modal, type ModalProps } from 'antd';
import { ConsoleAntdConfig } from './console-antd-config.js';

/**
 * antd's dialog with the console's antd settings, for pages outside `AntdScope` too (the create
 * and edit forms keep antd out of their first bundle, so this module is loaded lazily): the
 * operator's language for its close button, no zoom for an operator who asked for less motion,
 * and buttons labelled exactly as written.
 */
export default function ConfirmationModal(props: ModalProps) {
  return (
    <ConsoleAntdConfig>
      <Modal {...props} />
    </ConsoleAntdConfig>
  );
}
