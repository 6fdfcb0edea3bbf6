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
import { SharedUsageReads } from './shared-reads.js';
import { readSourceUsage } from './source-readings.js';
import { type UsageSource, unavailableUsageSource } from './usage-source.js';

/** `--usage-max-age`'s default: a read through Prometheus serves every caller this long. */
export const DEFAULT_USAGE_MAX_AGE_SECONDS = 10;

/** What every usage procedure reads: the source, its shared reads and the idle settings. */
export interface UsageContext extends IdleSettings {
  source: UsageSource;
  reads: SharedUsageReads;
  /**
   * The longest window the source holds samples for, in minutes: the embedded exporter keeps
   * only what --idle-after and the default window need; undefined: no limit of the console's
   * (Prometheus holds whatever it holds).
   */
  maxWindowMinutes?: number;
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
  /**
   * `--usage-max-age`, seconds (default 10): how long one read of a source without versions
   * (Prometheus) answers every caller; 0 reads it for each call that finds none running.
   */
  maxAgeSeconds?: number;
}

export function usageContextFor(
  connection: Pick<ClusterConnection, 'gpuUsage'>,
  options: UsageOptions = {},
): UsageContext {
  const idleThresholdPercent = options.idleThresholdPercent ?? DEFAULT_IDLE_THRESHOLD_PERCENT;
  const idleAfterSeconds = options.idleAfterSeconds ?? DEFAULT_IDLE_AFTER_SECONDS;
  const interval = options.exporterSampleIntervalMs ?? EXPORTER_SAMPLE_INTERVAL_MS;
  // The embedded exporter keeps enough for the default window and for --idle-after.
  const keptSeconds = Math.max(idleAfterSeconds, DEFAULT_USAGE_WINDOW_MINUTES * 60);
  const embedded = options.source === undefined && connection.gpuUsage !== undefined;
  const source =
    options.source ??
    (connection.gpuUsage
      ? new ExporterSource({
          read: connection.gpuUsage,
          sampleIntervalMs: interval,
          // Plus a sample either side.
          retentionMs: keptSeconds * 1000 + 2 * interval,
        })
      : unavailableUsageSource);
  const reads = new SharedUsageReads({
    source,
    maxAgeMs: (options.maxAgeSeconds ?? DEFAULT_USAGE_MAX_AGE_SECONDS) * 1000,
    read: (windowSeconds) =>
      readSourceUsage(source, { windowSeconds, idleThresholdPercent, idleAfterSeconds }),
  });
  return {
    source,
    reads,
    idleThresholdPercent,
    idleAfterSeconds,
    ...(embedded ? { maxWindowMinutes: Math.floor(keptSeconds / 60) } : {}),
  };
}
