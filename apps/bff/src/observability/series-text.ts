/**
 * The console's many-series metric families (one series per card, per mGPU instance) written
 * straight to Prometheus text. prom-client's `Gauge.set` hashes every label set and its
 * serialiser formats each again: on 1,000 nodes × 8 cards (24,000 card series plus the
 * instances) a scrape took ~2 s on the shared machine; writing the lines from the model, and
 * reusing the text while the model is unchanged, keeps a scrape far under Prometheus' timeout.
 * Pool, pending, console and process metrics (a few dozen series) stay prom-client gauges.
 */

export interface SeriesFamily {
  name: string;
  help: string;
  labels: readonly string[];
}

/** Label values as the text format wants them: backslash, quote and newline escaped. */
const escapeLabel = (value: string) =>
  /["\\\n]/.test(value)
    ? value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"')
    : value;

const escapeHelp = (help: string) => help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');

/**
 * Gauge families filled in one pass over the model: `add(family, labelValues, value)` appends a
 * line to its family's block, and `text()` joins the blocks, each under its HELP and TYPE.
 */
export class SeriesText {
  private readonly blocks: string[][];

  constructor(private readonly families: readonly SeriesFamily[]) {
    this.blocks = families.map((family) => [
      `# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} gauge\n`,
    ]);
  }

  /**
   * One series: `labels` is the text between the braces (`labelsText`), built once by the caller
   * and shared by the families that have the same labels — the per-line cost is one template.
   */
  add(familyIndex: number, labels: string, value: number): void {
    const block = this.blocks[familyIndex];
    const family = this.families[familyIndex];
    if (block === undefined || family === undefined) throw new Error(`no family ${familyIndex}`);
    block.push(`${family.name}{${labels}} ${value}\n`);
  }

  text(): string {
    return this.blocks.map((block) => block.join('')).join('');
  }
}

/** The text between a series' braces: `name="value",…`, values escaped, in the given order. */
export function labelsText(names: readonly string[], values: readonly string[]): string {
  let text = '';
  for (let index = 0; index < names.length; index++)
    text += `${index > 0 ? ',' : ''}${names[index]}="${escapeLabel(values[index] ?? '')}"`;
  return text;
}
