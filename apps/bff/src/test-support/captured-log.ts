import { Writable } from 'node:stream';

/** The console's log as written (a pino stream for `startHarness`), for what tests read back from it. */
export function capturedLog() {
  /** Every line the console logged, as written. */
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  /** The `{ audit: … }` entries among them (spec §8's audit lines). */
  const auditEntries = () =>
    lines
      .map((line) => JSON.parse(line) as { audit?: Record<string, unknown> })
      .flatMap((line) => (line.audit ? [line.audit] : []));
  return { lines, stream, auditEntries };
}
