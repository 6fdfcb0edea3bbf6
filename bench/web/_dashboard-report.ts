/** How `web/dashboard.ts` prints a phase's figures. */
import { heading, median, percentile } from '../lib/report.js';
import type { PageProbe } from './_dashboard-page.js';

export interface PhaseResult {
  label: string;
  seconds: number;
  changes: number;
  probe: PageProbe;
  /** Percent of the phase the page's main thread spent in tasks, script, style and layout. */
  busy: { task: number; script: number; style: number; layout: number };
  /** Load average (1 min) at the phase's end. */
  load: number;
  beside: string;
}

export const mib = (value: number) => Number(value.toFixed(1));
export const ms = (value: number) => Number(value.toFixed(1));

export function printPhase(phase: PhaseResult): void {
  const { probe, busy } = phase;
  heading(
    `${phase.label}: ${phase.changes} changes in ${phase.seconds.toFixed(0)} s, the page applied ${probe.events} stream events with ${probe.records} records`,
    'frame p95 ≤ 16.7 ms + 1 ms; change-to-DOM p95 ≤ 250 ms',
  );
  const slow = probe.frames.filter((frame) => frame > 17).length;
  console.log(
    `   frame time: median ${ms(median(probe.frames))} ms, p95 ${ms(percentile(probe.frames, 95))} ms, p99 ${ms(percentile(probe.frames, 99))} ms, max ${ms(Math.max(...probe.frames))} ms over ${probe.frames.length} frames; ${((100 * slow) / Math.max(1, probe.frames.length)).toFixed(1)} % longer than 17 ms`,
  );
  console.log(
    `   long tasks (> 50 ms): ${probe.longTasks.length}, ${ms(probe.longTasks.reduce((a, b) => a + b, 0))} ms in all, longest ${ms(Math.max(0, ...probe.longTasks))} ms`,
  );
  console.log(
    `   page main thread busy ${busy.task} % of the phase: script ${busy.script} %, style ${busy.style} %, layout ${busy.layout} % (the rest: paint, compositing set-up, the browser's own tasks)`,
  );
  console.log(
    `   change → DOM: event arrives in the page → painted: median ${ms(median(probe.changeToPaint))} ms, p95 ${ms(percentile(probe.changeToPaint, 95))} ms, p99 ${ms(percentile(probe.changeToPaint, 99))} ms over ${probe.changeToPaint.length} events; BFF feed saw the change → painted: median ${ms(median(probe.feedToPaint))} ms, p95 ${ms(percentile(probe.feedToPaint, 95))} ms`,
  );
  if (phase.beside) console.log(`   ${phase.beside}`);
  console.log(`   load average (1 min) at the phase's end: ${phase.load.toFixed(1)}`);
}
