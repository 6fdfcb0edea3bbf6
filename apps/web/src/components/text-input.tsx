import type { InputHTMLAttributes } from 'react';

interface TextInputProps extends Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange'> {
  value: string;
  onValueChange(value: string): void;
  /** A unit shown inside the box after the value ("GiB"); not part of the label. */
  suffix?: string | undefined;
}

/**
 * A plain input in antd's look. antd's Input brings its form and validator runtime (~30 KB gzip)
 * into the form's first bundle; the rules here come from the shared engine, not from antd.
 */
export function TextInput({ value, onValueChange, suffix, className, ...rest }: TextInputProps) {
  const input = (
    <input
      {...rest}
      className={className ? `text-input ${className}` : 'text-input'}
      value={value}
      onChange={(event) => onValueChange(event.target.value)}
    />
  );
  if (!suffix) return input;
  return (
    <span className="text-input-affix">
      {input}
      <span className="text-input-suffix" aria-hidden="true">
        {suffix}
      </span>
    </span>
  );
}
