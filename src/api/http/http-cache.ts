// Answers kept rendered, and what HTTP caches in front of the service are told about them
// (docs/chain-api.md "Caching"): an answer that can never change (a block below the
// indexed tip, a transaction by hash, a closed candle period: CometBFT's finality is instant)
// is kept as bytes in a bounded cache and sent with `Cache-Control: public, max-age=…,
// immutable`; one that can change gets a short max-age. Both carry an ETag, and a request
// whose If-None-Match names it is answered 304 without a body.
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LRUCache } from 'lru-cache';
import { CORS_HEADERS, JSON_TYPE } from './respond.ts';

/** A JSON answer as sent: its bytes and their ETag. */
export interface Rendered {
  status: number;
  body: Buffer;
  etag: string;
  /** False for an answer that is not its final form yet (not kept; a short max-age). */
  final?: boolean;
}

/**
 * How long an HTTP cache may keep an answer: for good; or `maxAgeSeconds`, `immutable` when
 * it cannot change until then (an answer that retention will cut later).
 */
export type Lifetime = 'immutable' | { maxAgeSeconds: number; immutable?: boolean };

/** A year: what `immutable` answers say (RFC 8246), the longest max-age caches honour. */
const IMMUTABLE_MAX_AGE_SECONDS = 31_536_000;

export function render(status: number, json: string): Rendered {
  const body = Buffer.from(json);
  // a strong validator of the bytes: 128 bits of SHA-256, base64url
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { status, body, etag };
}

export function cacheControl(lifetime: Lifetime): string {
  if (lifetime === 'immutable') return `public, max-age=${IMMUTABLE_MAX_AGE_SECONDS}, immutable`;
  const seconds = Math.max(0, Math.min(IMMUTABLE_MAX_AGE_SECONDS, Math.floor(lifetime.maxAgeSeconds)));
  return `public, max-age=${seconds}${lifetime.immutable ? ', immutable' : ''}`;
}

/** Whether If-None-Match names this ETag (a list, weak or strong, or `*`: RFC 9110 13.1.2). */
export function notModified(req: IncomingMessage, etag: string): boolean {
  const header = req.headers['if-none-match'];
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag);
}

/** Sends a rendered answer, or 304 when the client holds it already. */
export function sendRendered(req: IncomingMessage, res: ServerResponse, r: Rendered, lifetime: Lifetime): void {
  const headers = { ...CORS_HEADERS, ETag: r.etag, 'Cache-Control': cacheControl(lifetime) };
  if (r.status === 200 && notModified(req, r.etag)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  res.writeHead(r.status, { ...headers, 'Content-Type': JSON_TYPE, 'Content-Length': r.body.length });
  res.end(r.body);
}

/**
 * 304 for a client that holds the answer under `key`, an answer kept for good, from its
 * remembered ETag alone: nothing loaded or rendered. False when that cannot be told so.
 */
export function sendNotModified(
  req: IncomingMessage,
  res: ServerResponse,
  cache: ImmutableCache,
  key: string,
): boolean {
  if (!req.headers['if-none-match']) return false;
  const etag = cache.validator(key);
  if (etag === undefined || !notModified(req, etag)) return false;
  res.writeHead(304, { ...CORS_HEADERS, ETag: etag, 'Cache-Control': cacheControl('immutable') });
  res.end();
  return true;
}

/** Rendered answers that never change, by key, within a byte budget (least recently used first out). */
export interface ImmutableCache {
  get(key: string): Rendered | undefined;
  /**
   * The ETag of the answer under `key` when it was kept for good (not until a time), even
   * after its bytes made room for others: enough to answer a client that holds it.
   */
  validator(key: string): string | undefined;
  set(key: string, rendered: Rendered): void;
  /**
   * The answer under `key`, or `load`'s: kept when `load` says it can never change (for
   * `keepMs` when it can only until then). Concurrent misses of one key share one load.
   */
  remember(
    key: string,
    load: () => Promise<{ rendered: Rendered; immutable: boolean; keepMs?: number }>,
  ): Promise<Rendered>;
  /** Drops every answer (what a backfill may have changed). */
  clear(): void;
  readonly bytes: number;
  readonly size: number;
}

/** CACHE_MB's default: 64 MiB per API process. */
export const DEFAULT_CACHE_BYTES = 64 * 1024 * 1024;

/** Each entry's bookkeeping beyond its bytes (key, object, LRU links), counted against the budget. */
const ENTRY_OVERHEAD_BYTES = 200;

/**
 * The share of the budget that keeps ETags of answers kept for good, beyond their bytes: at
 * ~300 bytes an entry, 64 MiB keep the bytes of ~8,000 7 kB txs (or of 50 1.2 MB blocks) and
 * the ETags of ~28,000 more.
 */
const VALIDATOR_SHARE = 1 / 8;

export function createImmutableCache(maxBytes: number): ImmutableCache {
  const validatorBytes = Math.floor(maxBytes * VALIDATOR_SHARE);
  const lru = new LRUCache<string, Rendered>({
    maxSize: Math.max(1, maxBytes - validatorBytes),
    sizeCalculation: (r, key) => r.body.length + key.length + ENTRY_OVERHEAD_BYTES,
  });
  const validators = new LRUCache<string, string>({
    maxSize: Math.max(1, validatorBytes),
    sizeCalculation: (etag, key) => etag.length + key.length + ENTRY_OVERHEAD_BYTES,
  });
  const loading = new Map<string, Promise<Rendered>>();
  let generation = 0;
  return {
    get: (key) => lru.get(key),
    validator: (key) => lru.get(key)?.etag ?? validators.get(key),
    set: (key, rendered) => {
      if (maxBytes > 0) lru.set(key, rendered);
    },
    async remember(key, load) {
      const hit = lru.get(key);
      if (hit) return hit;
      let pending = loading.get(key);
      if (!pending) {
        const started = generation;
        pending = load()
          .then(({ rendered, immutable, keepMs }) => {
            if (immutable && maxBytes > 0 && generation === started) {
              lru.set(key, rendered, { ttl: keepMs });
              if (keepMs === undefined) validators.set(key, rendered.etag);
            }
            return rendered;
          })
          .finally(() => loading.delete(key));
        loading.set(key, pending);
      }
      return pending;
    },
    clear() {
      generation++;
      loading.clear();
      lru.clear();
      validators.clear();
    },
    get bytes() {
      return lru.calculatedSize;
    },
    get size() {
      return lru.size;
    },
  };
}
