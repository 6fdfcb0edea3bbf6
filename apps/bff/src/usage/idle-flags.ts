/**
 * `--idle-threshold P` and `--idle-after D` (spec §9 "Usage"): when a workload holding cards
 * counts as idle; and `--usage-max-age D`, how long one read through Prometheus answers every
 * caller. Checked at start, so a typo stops the console with the flag named (exit 2) rather than
 * flagging every workload, or none.
 */
import type { UsageOptions } from '@mgpu/api';
import { MAX_IDLE_AFTER_SECONDS, parseUsageDuration } from '@mgpu/shared';

/** The flags' values (or `MGPU_IDLE_THRESHOLD` / `MGPU_IDLE_AFTER`); unset: the defaults. */
export function idleFlagsOf(
  values: Partial<Record<string, string | boolean | string[] | undefined>>,
  env: NodeJS.ProcessEnv,
): Pick<UsageOptions, 'idleThresholdPercent' | 'idleAfterSeconds' | 'maxAgeSeconds'> {
  const text = (flag: string, variable: string): string | undefined => {
    const value = values[flag];
    return (typeof value === 'string' ? value : undefined) ?? (env[variable] || undefined);
  };
  const threshold = text('idle-threshold', 'MGPU_IDLE_THRESHOLD');
  const after = text('idle-after', 'MGPU_IDLE_AFTER');
  const idleThresholdPercent = threshold === undefined ? undefined : Number(threshold);
  if (
    idleThresholdPercent !== undefined &&
    (threshold?.trim() === '' ||
      !Number.isFinite(idleThresholdPercent) ||
      idleThresholdPercent <= 0 ||
      idleThresholdPercent > 100)
  )
    throw new Error(`--idle-threshold must be a percent above 0 and at most 100, not ${threshold}`);
  const idleAfterSeconds = after === undefined ? undefined : parseUsageDuration(after);
  if (after !== undefined && idleAfterSeconds === undefined)
    throw new Error(`--idle-after must be a duration such as 30s, 2m or 30m, not ${after}`);
  if (idleAfterSeconds !== undefined && idleAfterSeconds > MAX_IDLE_AFTER_SECONDS)
    throw new Error(
      `--idle-after must be at most ${MAX_IDLE_AFTER_SECONDS / 3600}h (the samples kept for it grow with it), not ${after}`,
    );
  const maxAge = text('usage-max-age', 'MGPU_USAGE_MAX_AGE');
  // 0 is allowed here (every call reads), unlike a quiet time.
  const maxAgeSeconds =
    maxAge === undefined
      ? undefined
      : /^0[smh]?$/.test(maxAge.trim())
        ? 0
        : parseUsageDuration(maxAge);
  if (maxAge !== undefined && maxAgeSeconds === undefined)
    throw new Error(`--usage-max-age must be a duration such as 0, 10s or 1m, not ${maxAge}`);
  return {
    ...(idleThresholdPercent !== undefined ? { idleThresholdPercent } : {}),
    ...(idleAfterSeconds !== undefined ? { idleAfterSeconds } : {}),
    ...(maxAgeSeconds !== undefined ? { maxAgeSeconds } : {}),
  };
}
