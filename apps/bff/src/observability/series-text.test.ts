import { describe, expect, it } from 'vitest';
import { labelsText, SeriesBlocks, SeriesLines } from './series-text.js';

const FAMILIES = [
  { name: 'a_metric', help: 'first\nline', labels: ['node', 'card'] },
  { name: 'b_metric', help: 'second', labels: ['pod'] },
];

describe('SeriesBlocks', () => {
  it('writes each family as one block under its HELP and TYPE, its lines from every part, label values escaped', () => {
    const first = new SeriesLines(FAMILIES);
    first.add(0, labelsText(['node', 'card'], ['n-0', '0']), 60);
    first.add(1, labelsText(['pod'], ['say "hi"\\']), 1);
    first.add(0, labelsText(['node', 'card'], ['n-0', '1']), 85);
    const second = new SeriesLines(FAMILIES);
    second.add(0, labelsText(['node', 'card'], ['n-1', '0']), 100);
    const blocks = new SeriesBlocks(FAMILIES).of([first.encode(), second.encode()]);
    expect(Buffer.concat(blocks).toString()).toBe(
      [
        '# HELP a_metric first\\nline',
        '# TYPE a_metric gauge',
        'a_metric{node="n-0",card="0"} 60',
        'a_metric{node="n-0",card="1"} 85',
        'a_metric{node="n-1",card="0"} 100',
        '# HELP b_metric second',
        '# TYPE b_metric gauge',
        'b_metric{pod="say \\"hi\\"\\\\"} 1',
        '',
      ].join('\n'),
    );
  });

  it('keeps a family’s header when no part has a line of it', () => {
    const blocks = new SeriesBlocks(FAMILIES).of([new SeriesLines(FAMILIES).encode()]);
    expect(Buffer.concat(blocks).toString()).toBe(
      '# HELP a_metric first\\nline\n# TYPE a_metric gauge\n# HELP b_metric second\n# TYPE b_metric gauge\n',
    );
  });
});
