/**
 * A Prometheus-like scraper in its own process (bench/bff/metrics.ts drives it), so that reading
 * a 3.6 MiB answer does not share the BFF's event loop and CPU clock. Each `scrape` line on stdin
 * GETs the URL and prints `{ ms, bytes }` (or `{ failed }`) on stdout; `families` also counts the
 * series of each metric family of that answer. The leading `_` keeps bench/run.ts from running it.
 */
import { createInterface } from 'node:readline';

const [url = ''] = process.argv.slice(2);

export interface ScrapeResult {
  ms?: number;
  bytes?: number;
  failed?: string;
  families?: Record<string, number>;
}

async function scrape(countFamilies: boolean): Promise<ScrapeResult> {
  const started = performance.now();
  try {
    const response = await fetch(url);
    const body = Buffer.from(await response.arrayBuffer());
    const ms = performance.now() - started;
    if (response.status !== 200) return { failed: `status ${response.status}` };
    if (!countFamilies) return { ms, bytes: body.length };
    const families: Record<string, number> = {};
    for (const line of body.toString().split('\n')) {
      const name = /^([a-zA-Z_:][\w:]*)[{ ]/.exec(line)?.[1];
      if (name) families[name] = (families[name] ?? 0) + 1;
    }
    return { ms, bytes: body.length, families };
  } catch (error) {
    return { failed: String(error) };
  }
}

for await (const line of createInterface({ input: process.stdin })) {
  const result = await scrape(line === 'families');
  process.stdout.write(`${JSON.stringify(result)}\n`);
}
