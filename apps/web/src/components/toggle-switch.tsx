import type { ButtonHTMLAttributes } from 'react';

interface ToggleSwitchProps
  extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onChange' | 'role' | 'type'> {
  checked: boolean;
  onCheckedChange(checked: boolean): void;
}

/**
 * An on/off switch in antd's look (`role="switch"` with `aria-checked`, as antd's Switch renders
 * it), without antd's theme runtime in the form's first bundle (see PlainButton).
 */
export function ToggleSwitch({ checked, onCheckedChange, className, ...rest }: ToggleSwitchProps) {
  return (
    <button
      {...rest}
      type="button"
      role="switch"
      aria-checked={checked}
      className={`toggle-switch${checked ? ' toggle-switch-on' : ''}${className ? ` ${className}` : ''}`}
      onClick={() => onCheckedChange(!checked)}
    >
      <span className="toggle-switch-handle" aria-hidden="true" />
    </button>
  );
}
