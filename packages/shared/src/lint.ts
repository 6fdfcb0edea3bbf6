import { parseAllDocuments } from 'yaml';
import { evaluateRequest } from './check.js';
import { describeViolation } from './messages/index.js';
import { readWorkloadObject } from './read-workload.js';
import { type Lang, MGPU_RULES, type RuleId, type Violation } from './rules.js';

/** One broken rule in an existing object (spec §7 `mgpu lint --json`). */
export interface LintFinding {
  file: string;
  kind: string;
  name: string;
  /** Where in the object, e.g. `spec.template.spec.containers[0].resources.limits["vke.volcengine.com/mgpu-core"]`. */
  path: string;
  rule: RuleId;
  message: string;
  fix?: string;
}

/** A file that cannot be read as Kubernetes YAML or JSON. */
export class ManifestParseError extends Error {
  override readonly name = 'ManifestParseError';
}

/**
 * The rules a stored object is linted against: every mGPU rule of spec §3 that needs no
 * cluster, plus the Kubernetes rules the same annotations and names depend on, and
 * `statefulset-name`, which the API server lets through on the StatefulSet and then refuses on
 * its Service and pods. Image and container-count rules are left to the API server, which
 * already refuses such objects.
 */
const LINTED_RULES: ReadonlySet<RuleId> = new Set<RuleId>([
  ...MGPU_RULES,
  'name-format',
  'namespace-format',
  'container-name-format',
  'container-name-unique',
  'replicas-range',
  'compute-policy-unknown',
  'multi-card-mgpu-only',
  'requests-equal-limits',
  'statefulset-name',
]);

/** Every document of a Kubernetes YAML or JSON file; `List` objects and JSON arrays are opened. */
export function parseManifests(text: string): unknown[] {
  const documents = parseAllDocuments(text, { prettyErrors: true });
  const objects: unknown[] = [];
  const documentList = Array.isArray(documents) ? documents : [documents];
  for (const document of documentList) {
    const error = document.errors[0];
    if (error)
      throw new ManifestParseError(
        (error.message.split('\n')[0] ?? error.message).replace(/:$/, ''),
      );
    let value: unknown;
    try {
      value = document.toJS();
    } catch (error) {
      // The yaml library's maxAliasCount guard: aliases that would expand without bound.
      if (error instanceof ReferenceError && /alias/i.test(error.message))
        throw new ManifestParseError('YAML aliases expand too far (alias bomb?)');
      throw error;
    }
    if (value === null || value === undefined) continue;
    const expand = (item: unknown): void => {
      if (Array.isArray(item)) item.forEach(expand);
      else if (
        typeof item === 'object' &&
        item !== null &&
        'kind' in item &&
        typeof item.kind === 'string' &&
        item.kind.endsWith('List') &&
        'items' in item &&
        Array.isArray(item.items)
      )
        item.items.forEach(expand);
      else objects.push(item);
    };
    expand(value);
  }
  return objects;
}

/** Every rule an mGPU object breaks; objects that use no mGPU are not looked at. */
export function lintObject(
  object: unknown,
  file: string,
  options: { lang?: Lang; modelLabel?: string } = {},
): LintFinding[] {
  const read = readWorkloadObject(object, options);
  if (read === undefined || !read.usesMgpu) return [];
  const { violations } = evaluateRequest(read.request);
  const extra: Violation[] = read.unequalLimits.map(({ index, resource, path }) => ({
    rule: 'requests-equal-limits',
    path,
    params: { container: read.request.containers[index]?.name ?? `#${index + 1}`, resource },
  }));
  return [...violations, ...extra]
    .filter((violation) => LINTED_RULES.has(violation.rule))
    .filter((violation) => read.hasName || violation.rule !== 'name-format')
    .filter((violation) => read.hasReplicas || violation.rule !== 'replicas-range')
    .map((violation) => {
      const text = describeViolation(violation, options.lang ?? 'en');
      return {
        file,
        kind: read.kind,
        name: read.name,
        path: read.objectPath(violation.path),
        rule: violation.rule,
        message: text.message,
        ...(text.fix !== undefined ? { fix: text.fix } : {}),
      };
    });
}

/** Lints every object of one file's text. Throws `ManifestParseError` when it does not parse. */
export function lintManifests(
  text: string,
  file: string,
  options: { lang?: Lang; modelLabel?: string } = {},
): LintFinding[] {
  return parseManifests(text).flatMap((object) => lintObject(object, file, options));
}
