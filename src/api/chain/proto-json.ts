// Protobuf values as the Cosmos SDK's gateway prints them (gogoproto jsonpb with original
// field names and defaults emitted): 64-bit integers as strings, LegacyDec with 18
// decimals, Timestamp and Duration text, bytes in base64, Any flattened with "@type".
// docs/chain-api.md, "JSON", lists the rules with examples.

import { wasmTypes } from '@cosmjs/cosmwasm-stargate';
import { fromUtf8 } from '@cosmjs/encoding';
import { type GeneratedType, Registry } from '@cosmjs/proto-signing';
import { defaultRegistryTypes } from '@cosmjs/stargate';
import { BaseAccount } from 'cosmjs-types/cosmos/auth/v1beta1/auth';
import { PubKey as Ed25519PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys';
import { PubKey as Secp256k1PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import type { Any } from 'cosmjs-types/google/protobuf/any';
import { MsgBurnForBridgeOut } from '../../chain/bridge-msg.ts';
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

/** Every message type the Chain API can print: cosmjs's Stargate and CosmWasm types, the chain's bridge message, keys and accounts. */
const registry = new Registry([
  ...defaultRegistryTypes,
  ...wasmTypes,
  [MsgBurnForBridgeOut.typeUrl, MsgBurnForBridgeOut as unknown as GeneratedType],
  ['/cosmos.crypto.secp256k1.PubKey', Secp256k1PubKey],
  ['/cosmos.crypto.ed25519.PubKey', Ed25519PubKey],
  ['/cosmos.auth.v1beta1.BaseAccount', BaseAccount],
]);

/** Message fields that carry JSON in bytes (wasmd's RawContractMessage): printed as the JSON itself. */
const JSON_BYTES_FIELDS = new Set(['msg']);
const WASM_PREFIX = '/cosmwasm.wasm.';

const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const isAny = (v: object): v is Any =>
  Object.keys(v).length === 2 && 'typeUrl' in v && 'value' in v && (v as Any).value instanceof Uint8Array;

/**
 * A decoded message (cosmjs-types' object) in gateway JSON: keys in the proto's snake_case,
 * every field present, 64-bit integers as strings, bytes in base64, nested Any flattened.
 * Enums stay numbers here: printers of messages with enums name them (see txJson).
 */
export function messageJson(message: object, typeUrl = ''): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(message)) {
    if (typeUrl.startsWith(WASM_PREFIX) && JSON_BYTES_FIELDS.has(key) && value instanceof Uint8Array) {
      out[snake(key)] = parseJsonBytes(value);
    } else out[snake(key)] = valueJson(value);
  }
  return out;
}

function parseJsonBytes(value: Uint8Array): unknown {
  try {
    return JSON.parse(fromUtf8(value));
  } catch {
    return base64(value);
  }
}

function valueJson(value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return bytes(value);
  if (Array.isArray(value)) return value.map(valueJson);
  if (typeof value === 'object') return isAny(value) ? anyJson(value) : messageJson(value);
  return value;
}

/** An Any with "@type" and the fields of the message it holds (`value` in base64 for a type not known here). */
export function anyJson(any: Any): Record<string, unknown> {
  const type = registry.lookupType(any.typeUrl);
  if (!type) return { '@type': any.typeUrl, value: base64(any.value) };
  return { '@type': any.typeUrl, ...messageJson(type.decode(any.value) as object, any.typeUrl) };
}
