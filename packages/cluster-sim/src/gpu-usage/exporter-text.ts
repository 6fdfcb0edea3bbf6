/**
 * A usage snapshot as dcgm-exporter text (Prometheus exposition format 0.0.4): dcgm-exporter's
 * card series with its labels, plus one series per mGPU instance, which dcgm-exporter cannot
 * give for a shared card (its series are the card's).
 */
import {
  type GpuUsageSnapshot,
  GPU_METRIC_LABELS as L,
  GPU_METRICS as M,
  SIMULATED_SERIES_HELP as SIMULATED,
} from '@mgpu/shared';

/** What Prometheus expects in the Content-Type of this text. */
export const EXPOSITION_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const HELP: Record<string, [help: string, type: 'gauge']> = {
  [M.cardUtilization]: [`GPU utilization (in %), ${SIMULATED}.`, 'gauge'],
  [M.cardEngineActive]: [`Ratio of time the graphics engine is active, ${SIMULATED}.`, 'gauge'],
  [M.cardMemoryUsed]: [`Framebuffer memory used (in MiB), ${SIMULATED}.`, 'gauge'],
  [M.cardMemoryFree]: [`Framebuffer memory free (in MiB), ${SIMULATED}.`, 'gauge'],
  [M.instanceUtilization]: [
    `Percent of the mGPU instance's own allocated compute it uses, ${SIMULATED}.`,
    'gauge',
  ],
  [M.instanceMemoryUsed]: [
    `GPU memory the mGPU instance uses (in MiB, within its limit), ${SIMULATED}.`,
    'gauge',
  ],
};

/** A label value escaped as the format wants: backslash, double quote and newline. */
const escapeLabel = (value: string) =>
  /[\\"\n]/.test(value)
    ? value.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')
    : value;

/** `{name="value",…}`, built directly: tens of thousands of series per scrape at 1,000 nodes. */
function labelsOf(labels: readonly (readonly [string, string])[]): string {
  let text = '{';
  for (const [index, [name, value]] of labels.entries())
    text += `${index === 0 ? '' : ','}${name}="${escapeLabel(value)}"`;
  return `${text}}`;
}

/** The exposition text of `snapshot`: each family once, HELP and TYPE first. */
export function exporterText(snapshot: GpuUsageSnapshot): string {
  const families = new Map<string, string[]>(Object.keys(HELP).map((name) => [name, []]));
  const add = (name: string, labels: string, value: number) =>
    families.get(name)?.push(`${name}${labels} ${value}`);
  for (const card of snapshot.cards) {
    const labels = labelsOf([
      [L.card, String(card.card)],
      [L.uuid, card.uuid],
      [L.model, card.model],
      [L.node, card.node],
    ]);
    add(M.cardUtilization, labels, card.utilizationPercent);
    add(M.cardEngineActive, labels, Math.round(card.utilizationPercent * 10) / 1000);
    if (card.memoryUsedMiB !== null) add(M.cardMemoryUsed, labels, card.memoryUsedMiB);
    if (card.memoryFreeMiB !== null) add(M.cardMemoryFree, labels, card.memoryFreeMiB);
  }
  for (const instance of snapshot.instances) {
    const labels = labelsOf([
      [L.card, String(instance.card)],
      [L.node, instance.node],
      [L.namespace, instance.namespace],
      [L.pod, instance.pod],
      [L.container, instance.container],
    ]);
    add(M.instanceUtilization, labels, instance.utilizationPercent);
    if (instance.memoryUsedMiB !== null) add(M.instanceMemoryUsed, labels, instance.memoryUsedMiB);
  }
  const lines: string[] = [];
  for (const [name, samples] of families) {
    const [help, type] = HELP[name] ?? ['', 'gauge'];
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples);
  }
  return `${lines.join('\n')}\n`;
}
