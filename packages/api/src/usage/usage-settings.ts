/**
 * Which usage source the console reads and with which idle settings (issue 28): an explicit one
 * (`--prometheus-url` → `PrometheusSource`, built by the process entry), else the embedded
 * cluster's exporter read in-process, else none — every figure then null, `unavailable`.
 */
import {
  DEFAULT_IDLE_AFTER_SECONDS,
  DEFAULT_IDLE_THRESHOLD_PERCENT,
  DEFAULT_USAGE_WINDOW_MINUTES,
  type IdleSettings,
} from '@mgpu/shared';
import type { ClusterConnection } from '../cluster/connection.js';
import { EXPORTER_SAMPLE_INTERVAL_MS, ExporterSource } from './exporter-source.js';
import { type UsageSource, unavailableUsageSource } from './usage-source.js';

/** What every usage procedure reads: the source and the idle verdict's settings. */
export interface UsageContext extends IdleSettings {
  source: UsageSource;
}

export interface UsageOptions {
  /** A source of the caller's (Prometheus); unset: the embedded exporter, else none. */
  source?: UsageSource;
  /** `--idle-threshold`, percent (default 5). */
  idleThresholdPercent?: number;
  /** `--idle-after`, seconds (default 30 min). */
  idleAfterSeconds?: number;
  /** How often the embedded exporter is read (default 15 s; tests with a short --idle-after less). */
  exporterSampleIntervalMs?: number;
}

export function usageContextFor(
  connection: Pick<ClusterConnection, 'gpuUsage'>,
  options: UsageOptions = {},
): UsageContext {
  const idleThresholdPercent = options.idleThresholdPercent ?? DEFAULT_IDLE_THRESHOLD_PERCENT;
  const idleAfterSeconds = options.idleAfterSeconds ?? DEFAULT_IDLE_AFTER_SECONDS;
  const interval = options.exporterSampleIntervalMs ?? EXPORTER_SAMPLE_INTERVAL_MS;
  const source =
    options.source ??
    (connection.gpuUsage
      ? new ExporterSource({
          read: connection.gpuUsage,
          sampleIntervalMs: interval,
          // Enough for the default window and for --idle-after, plus a sample either side.
          retentionMs:
            Math.max(idleAfterSeconds, DEFAULT_USAGE_WINDOW_MINUTES * 60) * 1000 + 2 * interval,
        })
      : unavailableUsageSource);
  return { source, idleThresholdPercent, idleAfterSeconds };
}
