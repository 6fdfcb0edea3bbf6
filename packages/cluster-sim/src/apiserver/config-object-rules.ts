/**
 * Decoding, defaulting and validation of the configuration kinds (Secret, ConfigMap) and of
 * coordination.k8s.io Leases, as kube-apiserver's decoding and registry strategies do them.
 */
import { isRecord, jsonEqual, type KubeObject, recordAt } from './kube-object.js';
import { immutable, invalidValue, required } from './object-rules.js';
import { badRequest, type StatusCause } from './status.js';

/** Secrets and ConfigMaps hold at most 1 MiB of data (corev1.MaxSecretSize). */
const MAX_DATA_BYTES = 1024 * 1024;
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const CONFIG_KEY_MESSAGE =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
/** metav1.MicroTime's JSON form (RFC3339Micro): Go refuses any other fraction length. */
const MICRO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}(Z|[+-]\d{2}:\d{2})$/;

/**
 * Where Go's base64.StdEncoding would stop on `text` (newlines are skipped, padding is
 * required), or undefined when it decodes.
 */
function base64Error(text: string): number | undefined {
  const compact = text.replace(/[\r\n]/g, '');
  const illegal = compact.search(/[^A-Za-z0-9+/=]|=[^=]|={3}/);
  if (illegal >= 0) return illegal;
  if (compact.length % 4 !== 0) return compact.length - (compact.length % 4);
  return undefined;
}

/** What decoding the JSON into the Go type refuses: a `[]byte` map value that is not base64. */
function decodeBytesMap(kind: string, map: unknown): void {
  if (!isRecord(map)) return;
  for (const value of Object.values(map)) {
    if (typeof value !== 'string') continue;
    const at = base64Error(value);
    if (at !== undefined) {
      throw badRequest(
        `${kind} in version "v1" cannot be handled as a ${kind}: illegal base64 data at input byte ${at}`,
      );
    }
  }
}

/** Secret decoding: data is base64; stringData is write-only and merged over data, as upstream. */
export function decodeSecret(secret: KubeObject): void {
  decodeBytesMap('Secret', secret.data);
  const stringData = secret.stringData;
  delete secret.stringData;
  if (!isRecord(stringData)) return;
  const data = isRecord(secret.data) ? secret.data : {};
  for (const [key, value] of Object.entries(stringData)) {
    if (typeof value === 'string') data[key] = Buffer.from(value, 'utf8').toString('base64');
  }
  secret.data = data;
}

export function decodeConfigMap(configMap: KubeObject): void {
  decodeBytesMap('ConfigMap', configMap.binaryData);
}

export function decodeLease(lease: KubeObject): void {
  for (const field of ['acquireTime', 'renewTime']) {
    const value = recordAt(lease, 'spec')?.[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' || !MICRO_TIME.test(value)) {
      throw badRequest(
        `Lease in version "v1" cannot be handled as a Lease: parsing time ${JSON.stringify(value)} as "2006-01-02T15:04:05.000000Z07:00": cannot parse`,
      );
    }
  }
}

export function defaultSecret(secret: KubeObject): void {
  if (typeof secret.type !== 'string' || secret.type === '') secret.type = 'Opaque';
}

function decodedSize(value: unknown, base64: boolean): number {
  if (typeof value !== 'string') return 0;
  return base64 ? Buffer.from(value, 'base64').length : Buffer.byteLength(value, 'utf8');
}

/** Keys valid as file names, and the whole no larger than 1 MiB. */
function validateDataMaps(
  maps: { field: string; map: unknown; base64: boolean }[],
  tooLarge: string,
): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  let total = 0;
  for (const { field, map, base64 } of maps) {
    if (map === undefined || map === null) continue;
    if (!isRecord(map)) {
      causes.push(invalidValue(field, map, 'must be a map of string keys'));
      continue;
    }
    for (const [key, value] of Object.entries(map)) {
      if (!CONFIG_KEY.test(key) || key === '.' || key === '..' || key.startsWith('..')) {
        causes.push(invalidValue(`${field}[${key}]`, key, CONFIG_KEY_MESSAGE));
      }
      if (seen.has(key)) {
        causes.push(invalidValue(`${field}[${key}]`, key, 'duplicate of key present in data'));
      }
      seen.add(key);
      total += decodedSize(value, base64);
    }
  }
  if (total > MAX_DATA_BYTES) {
    causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: may not be more than ${MAX_DATA_BYTES} bytes`,
      field: tooLarge,
    });
  }
  return causes;
}

/** An object marked `immutable: true` keeps its contents and the mark for good. */
function validateImmutable(
  object: KubeObject,
  old: KubeObject | undefined,
  contents: string[],
): StatusCause[] {
  if (old?.immutable !== true) return [];
  const forbidden = (field: string): StatusCause => ({
    reason: 'FieldValueForbidden',
    message: 'Forbidden: field is immutable when `immutable` is set',
    field,
  });
  return [
    ...(object.immutable === true ? [] : [forbidden('immutable')]),
    ...contents.filter((field) => !jsonEqual(object[field], old[field])).map(forbidden),
  ];
}

export function validateSecret(secret: KubeObject, old: KubeObject | undefined): StatusCause[] {
  const causes = validateDataMaps([{ field: 'data', map: secret.data, base64: true }], 'data');
  const data = isRecord(secret.data) ? secret.data : {};
  if (secret.type === 'kubernetes.io/tls') {
    for (const key of ['tls.crt', 'tls.key']) {
      if (!(key in data)) causes.push(required(`data[${key}]`));
    }
  }
  if (old && secret.type !== old.type) causes.push(immutable('type', secret.type));
  causes.push(...validateImmutable(secret, old, ['data']));
  return causes;
}

export function validateConfigMap(
  configMap: KubeObject,
  old: KubeObject | undefined,
): StatusCause[] {
  return [
    ...validateDataMaps(
      [
        { field: 'data', map: configMap.data, base64: false },
        { field: 'binaryData', map: configMap.binaryData, base64: true },
      ],
      '[]',
    ),
    ...validateImmutable(configMap, old, ['data', 'binaryData']),
  ];
}

/** ValidateLeaseSpec: a duration, when given, is positive; transitions never negative. */
export function validateLease(lease: KubeObject): StatusCause[] {
  const spec = recordAt(lease, 'spec') ?? {};
  const causes: StatusCause[] = [];
  const duration = spec.leaseDurationSeconds;
  if (typeof duration === 'number' && duration <= 0) {
    causes.push(invalidValue('spec.leaseDurationSeconds', duration, 'must be greater than 0'));
  }
  const transitions = spec.leaseTransitions;
  if (typeof transitions === 'number' && transitions < 0) {
    causes.push(
      invalidValue('spec.leaseTransitions', transitions, 'must be greater than or equal to 0'),
    );
  }
  return causes;
}
