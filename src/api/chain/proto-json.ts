// Protobuf values as the Cosmos SDK's gateway prints them (gogoproto jsonpb with original
// field names and defaults emitted): 64-bit integers as strings, LegacyDec with 18
// decimals, Timestamp and Duration text, bytes in base64, enums by name, Any flattened with
// "@type". Messages are printed from their schemas (src/chain/proto-types.ts for
// cosmjs-types' codecs, src/chain/reflection.ts for the chain's own types).
// docs/chain-api.md, "JSON" and "How messages are printed", list the rules with examples.

import { fromUtf8, toHex } from '@cosmjs/encoding';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { builtinSchema, type FieldSchema, type MessageSchema } from '../../chain/proto-types.ts';
import { chainTypes } from '../../chain/reflection.ts';
import { protoTimestamp } from '../../chain/timestamps.ts';

type Int64 = bigint | number | string | { toString(): string };

/** int64 / uint64: a decimal string. */
export const int64 = (v: Int64 | undefined | null): string => (v === undefined || v === null ? '0' : v.toString());

/**
 * A LegacyDec as the SDK stores it in protobuf (the integer of its 10^-18 atomics, e.g.
 * "50000000000000000") printed with its 18 decimals ("0.050000000000000000").
 */
export function dec18(atomics: string): string {
  const negative = atomics.startsWith('-');
  const digits = (negative ? atomics.slice(1) : atomics).replace(/^0+(?=\d)/, '').padStart(19, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -18)}.${digits.slice(-18)}`;
}

/** 0, 3, 6 or 9 fractional digits, as jsonpb prints nanoseconds. */
function fraction(nanos: number): string {
  if (nanos === 0) return '';
  let frac = String(nanos).padStart(9, '0');
  if (frac.endsWith('000000')) frac = frac.slice(0, 3);
  else if (frac.endsWith('000')) frac = frac.slice(0, 6);
  return `.${frac}`;
}

/** google.protobuf.Timestamp: RFC 3339 in UTC ("1970-01-01T00:00:00Z" for the zero value). */
export function timestamp(ts: { seconds: Int64; nanos: number } | undefined): string {
  const seconds = BigInt(int64(ts?.seconds));
  return protoTimestamp(new Date(Number(seconds) * 1000), ts?.nanos ?? 0);
}

/** google.protobuf.Duration: seconds with an `s` suffix ("1814400s", "1.5s"). */
export function duration(d: { seconds: Int64; nanos: number } | undefined): string {
  return `${int64(d?.seconds)}${fraction(d?.nanos ?? 0)}s`;
}

/** Standard base64 through Node's codec (a block's answer encodes megabytes of tx bytes). */
export const base64 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('base64');

/** bytes: base64; empty bytes are `null`, as jsonpb prints a nil slice. */
export const bytes = (b: Uint8Array | undefined | null): string | null => (b && b.length > 0 ? base64(b) : null);

export const coin = (c: { denom: string; amount: string } | undefined) =>
  c ? { denom: c.denom, amount: c.amount } : null;
export const coins = (cs: readonly { denom: string; amount: string }[]) =>
  cs.map((c) => ({ denom: c.denom, amount: c.amount }));

/** Standard base64 of a JSON value held in bytes; the JSON itself when it parses (wasmd's RawContractMessage). */
function jsonBytes(value: Uint8Array): unknown {
  if (value.length === 0) return null;
  try {
    return JSON.parse(fromUtf8(value));
  } catch {
    return base64(value);
  }
}

type Loose = Record<string, unknown>;

/** An Any as cosmjs-types decodes it (`typeUrl`) or as protobufjs does (`type_url`). */
function asAny(v: Loose): Any {
  return { typeUrl: String(v.typeUrl ?? v.type_url ?? ''), value: (v.value as Uint8Array) ?? new Uint8Array() };
}

const utf8 = (b: Uint8Array) => new TextDecoder().decode(b);

function scalarJson(f: FieldSchema, v: unknown): unknown {
  const empty = v === undefined || v === null || v === '' || (v instanceof Uint8Array && v.length === 0);
  if (f.nullWhenEmpty && empty) return null;
  if (f.format === 'dec') return dec18(v instanceof Uint8Array ? utf8(v) : String(v ?? ''));
  if (f.format === 'json' && v instanceof Uint8Array) return jsonBytes(v);
  if (f.format === 'text' && v instanceof Uint8Array) return utf8(v);
  if (f.format === 'hex' && v instanceof Uint8Array && v.length > 0) return toHex(v).toUpperCase();
  return plainJson(v);
}

function valueJson(f: FieldSchema, value: unknown): unknown {
  let v = value;
  if (value instanceof Uint8Array && f.decode && f.kind !== 'scalar') {
    if (value.length === 0 && f.emptyIsUnset) return null;
    try {
      v = f.decode(value);
    } catch {
      return base64(value);
    }
  }
  switch (f.kind) {
    case 'any':
      return v ? anyJson(asAny(v as Loose)) : null;
    case 'timestamp':
      return v ? timestamp(v as { seconds: Int64; nanos: number }) : null;
    case 'duration':
      return v ? duration(v as { seconds: Int64; nanos: number }) : null;
    case 'enum':
      return typeof v === 'number' ? (f.enumName?.(v) ?? v) : plainJson(v);
    case 'message': {
      if (v === undefined || v === null) return null;
      const schema = f.message?.();
      return schema ? schemaJson(schema, v as Loose) : plainJson(v);
    }
    case 'map': {
      if (v === undefined || v === null) return {};
      const entries: [unknown, unknown][] = Array.isArray(v)
        ? v.map((e: Loose) => [e.key, e.value])
        : Object.entries(v as Loose);
      const values = f.mapValue?.();
      // jsonpb writes a map's keys sorted
      return Object.fromEntries(
        entries
          .map(([k, x]) => [String(k), values ? valueJson(values, x) : plainJson(x)] as const)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
      );
    }
    default:
      return scalarJson(f, v);
  }
}

/**
 * A decoded message in gateway JSON, field by field as its schema declares them: proto
 * names in declaration order, every field present with its default, enums by name, Any
 * flattened with "@type", LegacyDec with 18 decimals; an unset oneof member left out.
 */
export function schemaJson(schema: MessageSchema, message: Loose): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of schema.fields) {
    const v = message[f.key];
    if (f.omitWhenUnset && (v === undefined || v === null)) continue;
    out[f.name] = f.repeated ? (Array.isArray(v) ? v.map((x) => valueJson(f, x)) : []) : valueJson(f, v);
  }
  return out;
}

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const isAny = (v: object): v is Any =>
  Object.keys(v).length === 2 && 'typeUrl' in v && 'value' in v && (v as Any).value instanceof Uint8Array;

/** A value of a message without a schema: 64-bit integers as strings, bytes in base64, nested Any flattened. */
function plainJson(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return bytes(value);
  if (Array.isArray(value)) return value.map(plainJson);
  if (typeof value === 'object') return isAny(value) ? anyJson(value) : messageJson(value);
  return value;
}

/**
 * A decoded message (cosmjs-types' object) in gateway JSON. With its type URL, as its
 * schema says (see schemaJson); without one, key by key: keys in snake_case, 64-bit
 * integers as strings, bytes in base64, nested Any flattened.
 */
export function messageJson(message: object, typeUrl = ''): Record<string, unknown> {
  const schema = typeUrl ? builtinSchema(typeUrl) : undefined;
  if (schema) return schemaJson(schema, message as Loose);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(message)) out[snake(key)] = plainJson(value);
  return out;
}

/** The schema of a type URL: cosmjs-types' (and the bridge module's) first, then the chain's own. */
export const schemaOf = (typeUrl: string): MessageSchema | undefined =>
  builtinSchema(typeUrl) ?? chainTypes().schema(typeUrl);

/**
 * An Any with "@type" and the fields of the message it holds; `value` in base64 for a type
 * neither cosmjs-types nor the chain's reflection service knows (or bytes that do not decode).
 */
export function anyJson(any: Any): Record<string, unknown> {
  const schema = schemaOf(any.typeUrl);
  if (schema) {
    try {
      return { '@type': any.typeUrl, ...schemaJson(schema, schema.decode(any.value)) };
    } catch {
      // bytes the type does not decode: printed as they are
    }
  }
  return { '@type': any.typeUrl, value: base64(any.value) };
}
