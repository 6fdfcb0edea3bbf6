/**
 * The console's many-series metric families (one series per card, per mGPU instance) written
 * straight to Prometheus text, as bytes. prom-client's `Gauge.set` hashes every label set and
 * its serialiser formats each again: on 1,000 nodes × 8 cards (24,000 card series plus the
 * instances) a scrape took ~2 s on the shared machine. Here each part of the model (a node's
 * cards, a node's instances) is written and UTF-8 encoded once, kept while that part is
 * unchanged, and the answer is the family headers and those bytes, never one joined string:
 * joining 3.6 MiB from thousands of pieces and encoding it cost as much as writing the lines.
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

/** One part's series of each family (a node's), as encoded lines: what `SeriesBlocks` is made of. */
export type SeriesPart = readonly Buffer[];

/**
 * One part of the model's lines in each family: `add(family, labels, value)` appends a line to
 * that family, `encode()` gives each family's lines as one encoded Buffer, in family order.
 */
export class SeriesLines {
  private readonly lines: string[];

  constructor(private readonly families: readonly SeriesFamily[]) {
    this.lines = families.map(() => '');
  }

  /**
   * One series: `labels` is the text between the braces (`labelsText`), built once by the caller
   * and shared by the families that have the same labels — the per-line cost is one template.
   */
  add(familyIndex: number, labels: string, value: number): void {
    const family = this.families[familyIndex];
    if (family === undefined) throw new Error(`no family ${familyIndex}`);
    this.lines[familyIndex] += `${family.name}{${labels}} ${value}\n`;
  }

  encode(): SeriesPart {
    return this.lines.map((lines) => Buffer.from(lines));
  }
}

/**
 * Gauge families made of parts: `of(parts)` lays out each family's HELP and TYPE, then that
 * family's lines from every part, so each family stays contiguous as the text format requires.
 * The headers are encoded once; the parts' Buffers are referenced, not copied.
 */
export class SeriesBlocks {
  private readonly headers: Buffer[];

  constructor(families: readonly SeriesFamily[]) {
    this.headers = families.map((family) =>
      Buffer.from(
        `# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} gauge\n`,
      ),
    );
  }

  of(parts: readonly SeriesPart[]): Buffer[] {
    const blocks: Buffer[] = [];
    this.headers.forEach((header, familyIndex) => {
      blocks.push(header);
      for (const part of parts) {
        const lines = part[familyIndex];
        if (lines !== undefined && lines.length > 0) blocks.push(lines);
      }
    });
    return blocks;
  }
}

/** The text between a series' braces: `name="value",…`, values escaped, in the given order. */
export function labelsText(names: readonly string[], values: readonly string[]): string {
  let text = '';
  for (let index = 0; index < names.length; index++)
    text += `${index > 0 ? ',' : ''}${names[index]}="${escapeLabel(values[index] ?? '')}"`;
  return text;
}
