import type { ReactNode } from 'react';

/**
 * A figure with its unit ("614/40 MiB", "50 %", "3 cards") kept on one line: a narrow column or a
 * phone may break the text around it, never inside the value. Every page prints such figures
 * through this, so the rule lives in one class (`.figure-text` in styles.css).
 */
export function FigureText({ children }: { children: ReactNode }) {
  return <span className="figure-text">{children}</span>;
}
