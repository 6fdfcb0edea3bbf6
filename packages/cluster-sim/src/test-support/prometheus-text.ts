/**
 * A strict reader of Prometheus text exposition (format 0.0.4) for tests: every line must be a
 * `# HELP`, a `# TYPE` or a sample of the family they announced, or it throws — so a test that
 * reads the exporter this way fails on text Prometheus would refuse.
 */
export interface ExposedFamily {
  name: string;
  help: string;
  type: string;
  samples: { labels: Record<string, string>; value: number }[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;

function readLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const match = LABEL.exec(text);
    if (!match?.[1]) throw new Error(`bad labels in: ${line}`);
    if (match[1] in labels) throw new Error(`label ${match[1]} twice in: ${line}`);
    labels[match[1]] = (match[2] ?? '').replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

export function parseExposition(text: string): Map<string, ExposedFamily> {
  if (!text.endsWith('\n')) throw new Error('the text does not end with a newline');
  const families = new Map<string, ExposedFamily>();
  let current: ExposedFamily | undefined;
  for (const line of text.slice(0, -1).split('\n')) {
    const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line);
    if (comment) {
      const [, kind, name = '', rest = ''] = comment;
      if (!NAME.test(name)) throw new Error(`bad metric name: ${line}`);
      if (current?.name !== name) {
        if (families.has(name)) throw new Error(`family ${name} split in two: ${line}`);
        current = { name, help: '', type: 'untyped', samples: [] };
        families.set(name, current);
      }
      if (kind === 'HELP') current.help = rest;
      else current.type = rest;
      continue;
    }
    const sample = SAMPLE.exec(line);
    if (!sample) throw new Error(`not a sample: ${line}`);
    const [, name, , labelText = '', value = ''] = sample;
    if (!current || current.name !== name) throw new Error(`sample outside its family: ${line}`);
    const number = Number(value);
    if (Number.isNaN(number) && value !== 'NaN') throw new Error(`bad value: ${line}`);
    current.samples.push({ labels: readLabels(labelText, line), value: number });
  }
  return families;
}
