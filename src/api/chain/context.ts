// What every Chain API route is given: the index, the node, the chain's address prefixes,
// and a short cache for answers that change slowly; and perContext, for what a route
// table's handlers share per server (the node's query clients).
import { LRUCache } from 'lru-cache';
import type { Prefixes } from '../../chain/bech32-prefixes.ts';
import type { ChainClient } from '../../chain/client.ts';
import type { Database } from '../../db/types.ts';
import type { Logger } from '../../internal/logger.ts';
import type { ImmutableCache } from '../http/http-cache.ts';
import type { IndexedSpan } from './tx-search.ts';

export interface ChainApiContext {
  db: Database;
  chain: ChainClient;
  logger: Logger;
  /** The chain's bech32 prefixes (src/chain/bech32-prefixes.ts): the usual ones until the node's are read. */
  prefixes: Prefixes;
  /** Whether `prefixes` are the node's: blocks (their proposer's consensus address) are kept only then. */
  prefixesRead(): boolean;
  /**
   * `load()`'s answer, kept `ttlMs` under `key` (params, metadata, node info: values that
   * change slowly). A failed load is not kept.
   */
  slow<T>(key: string, ttlMs: number, load: () => Promise<T>): Promise<T>;
  /** Answers that never change (a block, a transaction by hash), kept rendered within CACHE_MB. */
  answers: ImmutableCache;
  /**
   * Pages of txs that never change (a search page nothing can join any more, a page of a
   * block's txs), kept rendered within a share of CACHE_MB of their own: a page is up to ~1 MB,
   * and pages asked for once must not push blocks and txs (or their ETags) out.
   */
  txPages: ImmutableCache;
  /** The heights the index holds, kept a fraction of a second (tx-search.ts createSpanReader). */
  indexedSpan(): Promise<IndexedSpan | undefined>;
}

export function createSlowCache(): ChainApiContext['slow'] {
  const cache = new LRUCache<string, { value: Promise<unknown> }>({ max: 1000 });
  return <T>(key: string, ttlMs: number, load: () => Promise<T>) => {
    const hit = cache.get(key);
    if (hit) return hit.value as Promise<T>;
    const value = load();
    cache.set(key, { value }, { ttl: ttlMs });
    value.catch(() => cache.delete(key));
    return value;
  };
}

/**
 * `make(ctx)` made once per server, at its first use, and kept with its context: the node's
 * query clients a route table's handlers share.
 */
export function perContext<T>(make: (ctx: ChainApiContext) => T): (ctx: ChainApiContext) => T {
  const made = new WeakMap<ChainApiContext, T>();
  return (ctx) => {
    if (!made.has(ctx)) made.set(ctx, make(ctx));
    return made.get(ctx)!;
  };
}
