/**
 * `--prometheus-url` and its companions (issue 28): the Prometheus usage source they describe,
 * checked at start so a wrong URL, an unreadable file or a bad query file stops the console with
 * the flag named (exit 2) instead of showing every figure as unknown later.
 */
import { readFileSync } from 'node:fs';
import { PrometheusSource } from '@mgpu/api';
import { parseUsageQueries } from '@mgpu/shared';

export interface PrometheusFlags {
  /** `--prometheus-url` / `MGPU_PROMETHEUS_URL`. */
  url?: string | undefined;
  /** `--prometheus-token-file` / `MGPU_PROMETHEUS_TOKEN_FILE`: a bearer token, re-read per query. */
  tokenFile?: string | undefined;
  /** `--prometheus-ca-file` / `MGPU_PROMETHEUS_CA_FILE`: the CA of an https URL. */
  caFile?: string | undefined;
  /** `--usage-queries` / `MGPU_USAGE_QUERIES`: the queries' overrides, YAML or JSON. */
  queriesFile?: string | undefined;
}

/** The flags from the command line, else their variables. */
export function prometheusFlagsOf(
  values: Partial<Record<string, string | boolean | string[] | undefined>>,
  env: NodeJS.ProcessEnv,
): PrometheusFlags {
  const text = (flag: string, variable: string): string | undefined => {
    const value = values[flag];
    return (typeof value === 'string' ? value : undefined) ?? (env[variable] || undefined);
  };
  return {
    url: text('prometheus-url', 'MGPU_PROMETHEUS_URL'),
    tokenFile: text('prometheus-token-file', 'MGPU_PROMETHEUS_TOKEN_FILE'),
    caFile: text('prometheus-ca-file', 'MGPU_PROMETHEUS_CA_FILE'),
    queriesFile: text('usage-queries', 'MGPU_USAGE_QUERIES'),
  };
}

/**
 * The source the flags name, or undefined without `--prometheus-url`; throws naming the flag.
 * `onProblem` hears why reads fail (and `null` when they work again), for the console's log.
 */
export function prometheusSourceOf(
  flags: PrometheusFlags,
  onProblem?: (message: string | null) => void,
): PrometheusSource | undefined {
  if (flags.url === undefined) {
    const orphan = [
      flags.tokenFile && '--prometheus-token-file',
      flags.caFile && '--prometheus-ca-file',
      flags.queriesFile && '--usage-queries',
    ].filter(Boolean);
    if (orphan.length > 0) throw new Error(`${orphan.join(', ')} need(s) --prometheus-url`);
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(flags.url);
  } catch {
    throw new Error(
      `--prometheus-url must be a URL such as http://prometheus:9090, not ${flags.url}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`--prometheus-url must be http or https, not ${flags.url}`);
  const read = (flag: string, file: string): string => {
    try {
      return readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(
        `${flag} ${file} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  };
  if (flags.tokenFile && read('--prometheus-token-file', flags.tokenFile).trim() === '')
    throw new Error(`--prometheus-token-file ${flags.tokenFile} is empty`);
  const ca = flags.caFile ? read('--prometheus-ca-file', flags.caFile) : undefined;
  const queries = flags.queriesFile
    ? parseUsageQueries(read('--usage-queries', flags.queriesFile), flags.queriesFile)
    : undefined;
  return new PrometheusSource({
    url: flags.url,
    ...(flags.tokenFile ? { bearerTokenFile: flags.tokenFile } : {}),
    ...(ca ? { ca } : {}),
    ...(queries ? { queries } : {}),
    ...(onProblem ? { onProblem } : {}),
  });
}
