import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * `count` SSE clients of `url` in a child process (`bff/_sse-clients.ts`), so their parsing does
 * not share the BFF's event loop. It prints a line once all are connected and one per report;
 * writing `report` to its stdin makes it drop every connection and exit.
 */
export function startSseClients(url: string, count: number) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      fileURLToPath(new URL('../bff/_sse-clients.ts', import.meta.url)),
      url,
      String(count),
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const lines = createInterface({ input: child.stdout });
  const nextLine = () => new Promise<string>((resolve) => lines.once('line', resolve));
  return { child, lines, nextLine };
}

/**
 * What one SSE message (its text, `data:` and `id:` lines) of `allocations.watch` is, read
 * without parsing its records (no record has a `type` or `more` field): a snapshot's part that
 * more parts follow, a snapshot's end (or a whole one), a change, or not data at all (`connected`,
 * `ping`).
 */
export function allocationMessageKind(
  message: string,
): 'snapshot-part' | 'snapshot' | 'change' | undefined {
  if (/^event: /m.test(message) || !/^data: /m.test(message)) return undefined;
  if (!message.includes('"type":"snapshot"')) return 'change';
  return message.includes('"more":true') ? 'snapshot-part' : 'snapshot';
}
