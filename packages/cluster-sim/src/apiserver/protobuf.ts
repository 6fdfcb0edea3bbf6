/**
 * Decoding of Kubernetes protobuf request bodies. kubectl's typed clients (`kubectl create
 * namespace`, `kubectl create deployment`) send `application/vnd.kubernetes.protobuf`; we
 * turn those into the same JSON objects a JSON client would send. Responses stay JSON, which
 * those clients accept too.
 */
import { isRecord, type JsonRecord } from './kube-object.js';
import { PROTO_MESSAGES, PROTO_ROOTS } from './proto-schema.generated.js';
import type { ProtoMessage } from './proto-schema-types.js';
import { badRequest } from './status.js';

const MAGIC = [0x6b, 0x38, 0x73, 0x00]; // "k8s\0"
/** Go's zero time.Time, which gogo-protobuf writes for unset non-pointer timestamps. */
const ZERO_TIME_SECONDS = -62135596800;
const utf8 = new TextDecoder('utf-8', { fatal: true });

class Reader {
  position: number;

  constructor(
    readonly bytes: Uint8Array,
    start = 0,
    readonly end = bytes.length,
  ) {
    this.position = start;
  }

  done(): boolean {
    return this.position >= this.end;
  }

  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.position >= this.end || shift > 63n)
        throw badRequest('malformed protobuf: truncated varint');
      const byte = this.bytes[this.position] ?? 0;
      this.position += 1;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  }

  slice(): Reader {
    const length = Number(this.varint());
    const start = this.position;
    if (start + length > this.end)
      throw badRequest('malformed protobuf: length beyond the message');
    this.position += length;
    return new Reader(this.bytes, start, start + length);
  }

  fixed(size: 4 | 8): DataView {
    if (this.position + size > this.end)
      throw badRequest('malformed protobuf: truncated fixed-size value');
    const view = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.position, size);
    this.position += size;
    return view;
  }

  skip(wireType: number): void {
    if (wireType === 0) this.varint();
    else if (wireType === 1) this.fixed(8);
    else if (wireType === 2) this.slice();
    else if (wireType === 5) this.fixed(4);
    else throw badRequest(`malformed protobuf: unsupported wire type ${wireType}`);
  }

  text(): string {
    const part = this.slice();
    try {
      return utf8.decode(part.bytes.subarray(part.position, part.end));
    } catch {
      throw badRequest('malformed protobuf: a string is not UTF-8');
    }
  }
}

function timestamp(fields: JsonRecord, micro: boolean): string | undefined {
  const seconds = Number(fields.seconds ?? 0);
  const nanos = Number(fields.nanos ?? 0);
  // A zero time.Time is written as an empty message (or as year 1): JSON has no timestamp then.
  if ((seconds === 0 || seconds === ZERO_TIME_SECONDS) && nanos === 0) return undefined;
  const iso = new Date(seconds * 1000).toISOString().slice(0, 19);
  return micro ? `${iso}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z` : `${iso}Z`;
}

const SPECIAL_FIELDS: Readonly<Record<string, ProtoMessage>> = {
  time: { 1: ['seconds', 'int64'], 2: ['nanos', 'int32'] },
  microtime: { 1: ['seconds', 'int64'], 2: ['nanos', 'int32'] },
  quantity: { 1: ['string', 'string'] },
  intorstring: { 1: ['type', 'int64'], 2: ['intVal', 'int32'], 3: ['strVal', 'string'] },
  raw: { 1: ['raw', 'bytes'] },
  runtimeTypeMeta: { 1: ['apiVersion', 'string'], 2: ['kind', 'string'] },
};

function scalar(type: string, wireType: number, reader: Reader): unknown {
  switch (type) {
    case 'string':
      return reader.text();
    case 'bytes': {
      const part = reader.slice();
      return Buffer.from(part.bytes.subarray(part.position, part.end)).toString('base64');
    }
    case 'bool':
      return reader.varint() !== 0n;
    case 'double':
      return reader.fixed(8).getFloat64(0, true);
    case 'float':
      return reader.fixed(4).getFloat32(0, true);
    default:
      if (wireType !== 0)
        throw badRequest(`malformed protobuf: ${type} with wire type ${wireType}`);
      return Number(BigInt.asIntN(64, reader.varint()));
  }
}

function isScalar(type: string): boolean {
  return [
    'string',
    'bytes',
    'bool',
    'double',
    'float',
    'int32',
    'int64',
    'uint32',
    'uint64',
  ].includes(type);
}

function decodeValue(type: string, wireType: number, reader: Reader, depth: number): unknown {
  if (isScalar(type)) return scalar(type, wireType, reader);
  if (wireType !== 2)
    throw badRequest(`malformed protobuf: message ${type} with wire type ${wireType}`);
  const special = SPECIAL_FIELDS[type];
  const fields = decodeMessage(reader.slice(), special ?? PROTO_MESSAGES[type] ?? {}, depth + 1);
  switch (type) {
    case 'time':
      return timestamp(fields, false);
    case 'microtime':
      return timestamp(fields, true);
    case 'quantity':
      return fields.string ?? '';
    case 'intorstring':
      return Number(fields.type ?? 0) === 1 ? (fields.strVal ?? '') : (fields.intVal ?? 0);
    case 'raw': {
      const raw =
        typeof fields.raw === 'string' ? Buffer.from(fields.raw, 'base64').toString('utf8') : '';
      try {
        return raw ? (JSON.parse(raw) as unknown) : undefined;
      } catch {
        throw badRequest('malformed protobuf: embedded raw JSON does not parse');
      }
    }
    default:
      return fields;
  }
}

const NUMERIC = new Set(['int32', 'int64', 'uint32', 'uint64', 'bool']);

function decodeMessage(reader: Reader, schema: ProtoMessage, depth: number): JsonRecord {
  if (depth > 100) throw badRequest('malformed protobuf: nested too deeply');
  const result: JsonRecord = {};
  while (!reader.done()) {
    const key = reader.varint();
    const fieldNumber = Number(key >> 3n);
    const wireType = Number(key & 7n);
    const field = schema[fieldNumber];
    if (!field) {
      reader.skip(wireType);
      continue;
    }
    const [name, type, repetition, keepZero] = field;
    if (repetition === 2) {
      const entry = decodeMessage(
        reader.slice(),
        { 1: ['key', 'string'], 2: ['value', type] },
        depth + 1,
      );
      const map = isRecord(result[name]) ? (result[name] as JsonRecord) : {};
      map[String(entry.key ?? '')] = entry.value ?? (type === 'string' ? '' : undefined);
      result[name] = map;
    } else if (repetition === 1) {
      const list = Array.isArray(result[name]) ? (result[name] as unknown[]) : [];
      if (wireType === 2 && NUMERIC.has(type)) {
        // A packed list of numbers.
        const packed = reader.slice();
        while (!packed.done()) list.push(scalar(type, 0, packed));
      } else {
        list.push(decodeValue(type, wireType, reader, depth));
      }
      result[name] = list;
    } else {
      const value = decodeValue(type, wireType, reader, depth);
      // gogo-protobuf writes every non-pointer field; JSON's omitempty leaves zero values out.
      const zero = value === '' || value === 0 || value === false;
      if (value === undefined || (zero && keepZero !== 1)) delete result[name];
      else result[name] = value;
    }
  }
  return result;
}

/** A `application/vnd.kubernetes.protobuf` body (magic, runtime.Unknown envelope) as JSON. */
export function decodeKubernetesProtobuf(body: Uint8Array): JsonRecord {
  if (body.length < 4 || MAGIC.some((byte, index) => body[index] !== byte)) {
    throw badRequest('the protobuf body does not start with the Kubernetes magic number');
  }
  const envelope = decodeMessage(
    new Reader(body, 4),
    {
      1: ['typeMeta', 'runtimeTypeMeta'],
      2: ['raw', 'bytes'],
      3: ['contentEncoding', 'string'],
      4: ['contentType', 'string'],
    },
    0,
  );
  const typeMeta = isRecord(envelope.typeMeta) ? envelope.typeMeta : {};
  const apiVersion = typeof typeMeta.apiVersion === 'string' ? typeMeta.apiVersion : '';
  const kind = typeof typeMeta.kind === 'string' ? typeMeta.kind : '';
  const root = PROTO_ROOTS[`${apiVersion}/${kind}`];
  if (!root) {
    throw new ProtobufKindUnsupported(apiVersion, kind);
  }
  const raw =
    typeof envelope.raw === 'string' ? Buffer.from(envelope.raw, 'base64') : Buffer.alloc(0);
  const object = decodeMessage(new Reader(raw), PROTO_MESSAGES[root] ?? {}, 0);
  return { apiVersion, kind, ...object };
}

export class ProtobufKindUnsupported extends Error {
  constructor(
    readonly apiVersion: string,
    readonly kind: string,
  ) {
    super(`no protobuf decoding for ${apiVersion}/${kind}`);
  }
}
