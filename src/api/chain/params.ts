// Reading a Chain API request the way grpc-gateway reads it: path and query parameters
// typed by the proto field they fill, a mistyped one refused with grpc-gateway's own
// "type mismatch" message (code 3), `pagination.*` as a PageRequest, addresses as bech32
// with the chain's prefixes.
import { fromBase64, fromBech32, toBase64 } from '@cosmjs/encoding';
import type { PageRequest, PageResponse } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import { invalidArgument } from './gateway.ts';

type Query = Record<string, string | string[] | undefined>;

/** One value of a query parameter (the last, as grpc-gateway keeps for a scalar field). */
export function single(query: Query, name: string): string | undefined {
  const v = query[name];
  return Array.isArray(v) ? v.at(-1) : v;
}

const mismatch = (name: string, value: string, parse: string) =>
  invalidArgument(
    `type mismatch, parameter: ${name}, error: ${parse}: parsing ${JSON.stringify(value)}: invalid syntax`,
  );

/** A uint64 parameter (grpc-gateway's strconv.ParseUint). */
export function uint64Param(name: string, value: string | undefined): bigint | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d+$/.test(value) || BigInt(value) > 18446744073709551615n) throw mismatch(name, value, 'strconv.ParseUint');
  return BigInt(value);
}

/** An int64 parameter (grpc-gateway's strconv.ParseInt). */
export function int64Param(name: string, value: string | undefined): bigint | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^[+-]?\d+$/.test(value)) throw mismatch(name, value, 'strconv.ParseInt');
  const n = BigInt(value);
  if (n > 9223372036854775807n || n < -9223372036854775808n) throw mismatch(name, value, 'strconv.ParseInt');
  return n;
}

/** A bool parameter (strconv.ParseBool: 1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False). */
export function boolParam(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw mismatch(name, value, 'strconv.ParseBool');
}

/** A bytes parameter: standard or URL-safe base64. */
export function bytesParam(name: string, value: string | undefined): Uint8Array | undefined {
  if (value === undefined || value === '') return undefined;
  const standard = value.replace(/-/g, '+').replace(/_/g, '/').replace(/ /g, '+');
  const padded = standard + '='.repeat((4 - (standard.length % 4)) % 4);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(padded) || padded.length % 4 !== 0)
    throw invalidArgument(`bad Base64 value for parameter ${name}: ${JSON.stringify(value)}`);
  try {
    return fromBase64(padded);
  } catch {
    throw invalidArgument(`bad Base64 value for parameter ${name}: ${JSON.stringify(value)}`);
  }
}

/** `pagination.key`, `.offset`, `.limit`, `.count_total`, `.reverse` as a PageRequest. */
export function pageRequest(query: Query): PageRequest {
  const key = bytesParam('pagination.key', single(query, 'pagination.key'));
  const offset = uint64Param('pagination.offset', single(query, 'pagination.offset'));
  if (key && offset !== undefined && offset > 0n)
    throw invalidArgument('paginate: invalid request, either offset or key is expected, got both');
  return {
    key: key ?? new Uint8Array(),
    offset: offset ?? 0n,
    limit: uint64Param('pagination.limit', single(query, 'pagination.limit')) ?? 0n,
    countTotal: boolParam('pagination.count_total', single(query, 'pagination.count_total')) ?? false,
    reverse: boolParam('pagination.reverse', single(query, 'pagination.reverse')) ?? false,
  };
}

/** A PageResponse as the gateway prints it: `next_key` base64 or null, `total` a string. */
export const pageResponse = (page: PageResponse | undefined) => ({
  next_key: page?.nextKey && page.nextKey.length > 0 ? toBase64(page.nextKey) : null,
  total: (page?.total ?? 0n).toString(),
});

/**
 * A bech32 address with the expected prefix, or the bank module's 400 (code 3)
 * `invalid address: decoding bech32 failed: …`.
 */
export function addressParam(value: string, prefix: string, what = 'address'): string {
  let decoded: { prefix: string };
  try {
    decoded = fromBech32(value, 1023);
  } catch (error) {
    throw invalidArgument(`invalid ${what}: decoding bech32 failed: ${(error as Error).message}`);
  }
  if (decoded.prefix !== prefix)
    throw invalidArgument(
      `invalid ${what}: hrp does not match bech32 prefix: expected '${prefix}' got '${decoded.prefix}'`,
    );
  return value;
}
