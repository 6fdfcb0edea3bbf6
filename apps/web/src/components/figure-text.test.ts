import { createElement, Fragment } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { uiTranslator } from '../i18n/i18n.js';
import { sentenceWithFigures } from './figure-text.js';

const markup = (nodes: ReturnType<typeof sentenceWithFigures>) =>
  renderToStaticMarkup(createElement(Fragment, null, ...nodes));

describe('sentenceWithFigures', () => {
  it('keeps each figure of a translated sentence on one line, the words as they read', () => {
    const t = uiTranslator('zh-CN');
    const nodes = sentenceWithFigures((figure) =>
      t('usage.memory', { used: figure('614 MiB'), allocated: figure('40960 MiB') }),
    );
    expect(markup(nodes)).toBe(
      '显存 <span class="figure-text">614 MiB</span> / <span class="figure-text">40960 MiB</span>',
    );
  });

  it('reads the same in English, and leaves a sentence without figures as it is', () => {
    const t = uiTranslator('en');
    const nodes = sentenceWithFigures((figure) => t('cards.memory', { value: figure('4096 MiB') }));
    expect(markup(nodes)).toBe('Memory <span class="figure-text">4096 MiB</span>');
    expect(markup(sentenceWithFigures(() => t('workloads.empty')))).toBe('No workloads use mGPU.');
  });
});
