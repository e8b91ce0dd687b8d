// The Cosmos SDK's query pagination (types/query/pagination.go): key or offset, limit
// (default 100), count_total (forced on when no limit is given, never counted for a key
// page), reverse; next_key is the store key of the first item not returned.
import type { PageRequest, PageResponse } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import { queryErrors } from './query-errors.ts';

export const DEFAULT_PAGE_LIMIT = 100n;

export interface Keyed<T> {
  key: Uint8Array;
  item: T;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

export function paginate<T>(
  entries: Keyed<T>[],
  request: PageRequest | undefined,
): { items: T[]; pagination: PageResponse } {
  const key = request?.key ?? new Uint8Array();
  const offset = request?.offset ?? 0n;
  if (key.length > 0 && offset > 0n)
    throw queryErrors.invalidArgument('invalid request, either offset or key is expected, got both');
  let limit = request?.limit ?? 0n;
  let countTotal = request?.countTotal ?? false;
  if (limit === 0n) {
    limit = DEFAULT_PAGE_LIMIT;
    countTotal = true;
  }
  const sorted = [...entries].sort((a, b) => compareBytes(a.key, b.key));
  if (request?.reverse) sorted.reverse();
  const start = key.length > 0 ? startAtKey(sorted, key, request?.reverse ?? false) : Number(offset);
  const end = start + Number(limit);
  const page = sorted.slice(start, end);
  const next = sorted[end];
  return {
    items: page.map((e) => e.item),
    pagination: {
      nextKey: next ? next.key : new Uint8Array(),
      total: key.length === 0 && countTotal ? BigInt(sorted.length) : 0n,
    },
  };
}

function startAtKey<T>(sorted: Keyed<T>[], key: Uint8Array, reverse: boolean): number {
  const index = sorted.findIndex((e) => (reverse ? compareBytes(e.key, key) <= 0 : compareBytes(e.key, key) >= 0));
  return index === -1 ? sorted.length : index;
}

/** A length-prefixed address, as the SDK's stores key accounts and validators. */
export function lengthPrefixed(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + 1);
  out[0] = bytes.length;
  out.set(bytes, 1);
  return out;
}
