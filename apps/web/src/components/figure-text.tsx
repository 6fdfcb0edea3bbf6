import type { ReactNode } from 'react';

/**
 * A figure with its unit ("614/40 MiB", "50 %", "3 cards") kept on one line: a narrow column or a
 * phone may break the text around it, never inside the value. Every page prints such figures
 * through this, so the rule lives in one class (`.figure-text` in styles/shell.css).
 */
export function FigureText({ children }: { children: ReactNode }) {
  return <span className="figure-text">{children}</span>;
}

/** Private-use marks around a figure's index: no catalog sentence contains them. */
const FIGURE_MARK = /\uE000(\d+)\uE001/;

/**
 * A translated sentence with its figures kept whole: `render` builds the sentence, passing each
 * figure through `figure`; the figures come back as `FigureText`, the words around them as text.
 *
 *   sentenceWithFigures((figure) => t('usage.memory', { used: figure('614 MiB'), … }))
 */
export function sentenceWithFigures(render: (figure: (text: string) => string) => string) {
  const figures: string[] = [];
  const sentence = render((text) => `\uE000${figures.push(text) - 1}\uE001`);
  // split with a capture group: words at even positions, figure indexes at odd ones.
  return sentence.split(FIGURE_MARK).map(
    (part, position): ReactNode =>
      position % 2 === 0 ? (
        part
      ) : (
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one sentence, rebuilt whole
        <FigureText key={position}>{figures[Number(part)]}</FigureText>
      ),
  );
}
