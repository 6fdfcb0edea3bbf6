// Preloaded with `node --import` by main.test.ts: appends the URL of every ES module the process
// loads to the file MGPU_TEST_MODULE_TRACE names, so a test can tell which packages a run loaded.
// Registered from the main thread; the hooks run in Node's loader thread, writing synchronously,
// so a URL is in the file before its module runs.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) register(import.meta.url);

export async function load(url, context, nextLoad) {
  const trace = process.env.MGPU_TEST_MODULE_TRACE;
  if (trace) appendFileSync(trace, `${url}\n`);
  return nextLoad(url, context);
}
