import { describe, expect, it } from 'vitest';
import { labelsText, SeriesText } from './series-text.js';

describe('SeriesText', () => {
  it('writes each family as one block under its HELP and TYPE, with label values escaped', () => {
    const series = new SeriesText([
      { name: 'a_metric', help: 'first\nline', labels: ['node', 'card'] },
      { name: 'b_metric', help: 'second', labels: ['pod'] },
    ]);
    series.add(0, labelsText(['node', 'card'], ['n-0', '0']), 60);
    series.add(1, labelsText(['pod'], ['say "hi"\\']), 1);
    series.add(0, labelsText(['node', 'card'], ['n-0', '1']), 85);
    expect(series.text()).toBe(
      [
        '# HELP a_metric first\\nline',
        '# TYPE a_metric gauge',
        'a_metric{node="n-0",card="0"} 60',
        'a_metric{node="n-0",card="1"} 85',
        '# HELP b_metric second',
        '# TYPE b_metric gauge',
        'b_metric{pod="say \\"hi\\"\\\\"} 1',
        '',
      ].join('\n'),
    );
  });
});
