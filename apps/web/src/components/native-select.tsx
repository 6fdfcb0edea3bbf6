import type { SelectHTMLAttributes } from 'react';

export interface SelectOption {
  value: string;
  label: string;
}

interface NativeSelectProps
  extends Omit<SelectHTMLAttributes<HTMLSelectElement>, 'onChange' | 'value'> {
  value: string;
  options: readonly SelectOption[];
  onValueChange(value: string): void;
}

/**
 * A native `<select>` in antd's look: short fixed lists need no virtual list or popup, it keeps
 * the form's first bundle small, and keyboards, screen readers and `selectOption` just work.
 */
export function NativeSelect({
  value,
  options,
  onValueChange,
  className,
  ...rest
}: NativeSelectProps) {
  return (
    <select
      {...rest}
      className={className ? `native-select ${className}` : 'native-select'}
      value={value}
      onChange={(event) => onValueChange(event.target.value)}
    >
      {options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </select>
  );
}
