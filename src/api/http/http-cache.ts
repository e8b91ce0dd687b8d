// Answers kept rendered, and what HTTP caches in front of the service are told about them
// (docs/chain-api.md "Caching"): an answer that can never change (a block below the
// indexed tip, a transaction by hash, a search page with nothing left to join it, a closed
// candle period: CometBFT's finality is instant)
// is kept as bytes in a bounded cache and sent with `Cache-Control: public, max-age=…,
// immutable`; one that can change gets a short max-age. Both carry an ETag, and a request
// whose If-None-Match names it is answered 304 without a body.
//
// A client that accepts gzip gets such an answer compressed (`Content-Encoding: gzip`, the
// ETag weak, `Vary: Accept-Encoding`), and the kept answer is kept compressed from then on:
// a 6.9 kB tx is ~1.3 kB gzipped, so the cache holds about 4.5 times as many. An answer is
// compressed when it is first sent to such a client, not when rendered: most answers of a
// random walk over the chain are asked for once, by clients that may not want gzip.
import { hash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { ownBytes } from '../../internal/bytes.ts';
import { acceptsGzip, GZIP_MIN_BYTES, gzipOrAsIs } from './compress.ts';
import { CORS_HEADERS, JSON_TYPE } from './respond.ts';

/** A JSON answer: its bytes (as rendered, or gzipped) and their ETag. */
export interface Rendered {
  status: number;
  /** The JSON's bytes, or their gzip when `gzip` is set. */
  body: Buffer;
  /** The ETag of the JSON's bytes (strong; sent weak with the gzip form). */
  etag: string;
  gzip?: boolean;
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

/** Compressed bodies from this size (of ~64 KiB of JSON) are inflated off the event loop. */
const GUNZIP_OFF_LOOP_BYTES = 16 * 1024;
const gunzipOffLoop = promisify<zlib.InputType, Buffer>(zlib.gunzip);

/** A JSON answer as it is kept: its bytes (made from its text, or made already) and their ETag. */
export function render(status: number, json: string | Buffer): Rendered {
  const body = ownBytes(json);
  // a strong validator of the bytes: 128 bits of SHA-256, base64url
  const etag = `"${hash('sha256', body, 'base64url').slice(0, 22)}"`;
  return { status, body, etag };
}

export function cacheControl(lifetime: Lifetime): string {
  if (lifetime === 'immutable') return `public, max-age=${IMMUTABLE_MAX_AGE_SECONDS}, immutable`;
  const seconds = Math.max(0, Math.min(IMMUTABLE_MAX_AGE_SECONDS, Math.floor(lifetime.maxAgeSeconds)));
  return `public, max-age=${seconds}${lifetime.immutable ? ', immutable' : ''}`;
}

/**
 * Whether the form a request is sent is gzip: the client takes gzip and the answer is
 * compressed already, or worth compressing.
 */
function gzipFormFor(req: IncomingMessage, compressible: boolean): boolean {
  return compressible && acceptsGzip(req);
}

/** Whether an answer is sent gzipped to a client that takes gzip (answers under 1 KiB are not). */
const compressibleOf = (r: Rendered) => r.gzip === true || r.body.length >= GZIP_MIN_BYTES;

/**
 * The ETag for a 304 when the client holds this answer in either form (If-None-Match: a
 * list, weak or strong, or `*`; compared weakly: RFC 9110 13.1.2), else undefined. The 304
 * carries the ETag a 200 to this request would carry (RFC 9110 15.4.5): the weak one of the
 * gzip form when the request is sent gzip, else the strong one, whichever form the client
 * named. A cache that holds the other form only finds none of its own under that ETag, and
 * asks again without a condition (RFC 9111 4.3.4), so it never serves one form to a client
 * that asked for the other.
 */
export function heldTag(req: IncomingMessage, etag: string, gzipForm: boolean): string | undefined {
  if (!namesTag(req.headers['if-none-match'], etag)) return undefined;
  return gzipForm ? `W/${etag}` : etag;
}

/**
 * Whether an If-None-Match header names `etag` (a strong tag): `*`, or a list of tags of
 * which one is `etag` or its weak form (the weak comparison of RFC 9110 13.1.2).
 */
export function namesTag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((sent) => {
    const tag = sent.trim();
    return tag === etag || tag === `W/${etag}`;
  });
}

/** The headers of an answer kept as bytes, a 200 or a 304: `etag` names the form sent (or held). */
function cachingHeaders(etag: string, lifetime: Lifetime) {
  return { ...CORS_HEADERS, Vary: 'Accept-Encoding', ETag: etag, 'Cache-Control': cacheControl(lifetime) };
}

/** Where a sent answer is kept, so that its gzip form replaces it there. */
export interface KeptAs {
  cache: ImmutableCache;
  key: string;
}

function inflated(r: Rendered): Buffer | Promise<Buffer> {
  return r.body.length >= GUNZIP_OFF_LOOP_BYTES ? gunzipOffLoop(r.body) : zlib.gunzipSync(r.body);
}

/**
 * Sends a rendered answer, or 304 when the client holds it already: gzipped to a client that
 * takes gzip (then kept gzipped under `kept`), inflated to one that does not.
 */
export async function sendRendered(
  req: IncomingMessage,
  res: ServerResponse,
  r: Rendered,
  lifetime: Lifetime,
  kept?: KeptAs,
): Promise<void> {
  // the form this request is sent: gzip when it takes gzip and the answer is (or is worth) compressed
  const gzipForm = gzipFormFor(req, compressibleOf(r));
  const held = r.status === 200 ? heldTag(req, r.etag, gzipForm) : undefined;
  if (held !== undefined) {
    res.writeHead(304, cachingHeaders(held, lifetime));
    res.end();
    return;
  }
  let sent = r;
  if (gzipForm && !r.gzip) {
    const gzip = await gzipOrAsIs(r.body);
    if (gzip) {
      sent = { ...r, body: gzip, gzip: true };
      kept?.cache.replace(kept.key, r, sent);
    }
  } else if (!gzipForm && r.gzip) {
    sent = { ...r, body: await inflated(r), gzip: false };
  }
  res.writeHead(r.status, {
    ...cachingHeaders(sent.gzip ? `W/${r.etag}` : r.etag, lifetime),
    ...(sent.gzip ? { 'Content-Encoding': 'gzip' } : {}),
    'Content-Type': JSON_TYPE,
    'Content-Length': sent.body.length,
  });
  res.end(sent.body);
}

/**
 * 304 for a client that holds the answer under `key`, an answer kept for good, from its
 * remembered ETag alone: nothing loaded or rendered. False when that cannot be told so.
 * `lifetime` is the one its 200 says (RFC 9111 4.3.4: a 304's headers update the cache's).
 */
export function sendNotModified(
  req: IncomingMessage,
  res: ServerResponse,
  cache: ImmutableCache,
  key: string,
  lifetime: Lifetime = 'immutable',
): boolean {
  const header = req.headers['if-none-match'];
  // `*` names no answer: it answers 304 only for one that exists (sendRendered)
  if (!header || header.trim() === '*') return false;
  const kept = cache.validator(key);
  const held = kept === undefined ? undefined : heldTag(req, kept.etag, gzipFormFor(req, kept.compressible));
  if (held === undefined) return false;
  // the lifetime its 200 says: a cache takes a 304's Cache-Control for the answer it holds
  res.writeHead(304, cachingHeaders(held, lifetime));
  res.end();
  return true;
}

/** What answers a client that holds an answer: its ETag, and whether it is sent gzipped to a client that takes gzip. */
export interface Validator {
  etag: string;
  compressible: boolean;
}

/** Rendered answers that never change, by key, within a byte budget (least recently used first out). */
export interface ImmutableCache {
  /**
   * The ETag of the answer under `key` when it was kept for good (not until a time), even
   * after its bytes made room for others: enough to answer a client that holds it.
   */
  validator(key: string): Validator | undefined;
  /**
   * The answer under `key`, or `load`'s: kept when `load` says it can never change (for
   * `keepMs` when it can only until then). Concurrent misses of one key share one load.
   */
  remember(
    key: string,
    load: () => Promise<{ rendered: Rendered; immutable: boolean; keepMs?: number }>,
  ): Promise<Rendered>;
  /** Keeps `to` (the same answer in another form) in place of `from` when `from` is what is kept under `key`, for what is left of its time. */
  replace(key: string, from: Rendered, to: Rendered): void;
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
 * ~300 bytes an entry, 64 MiB keep the bytes of ~8,000 7 kB txs (~36,000 gzipped; or of 50
 * 1.2 MB blocks) and the ETags of ~14,000 more txs and as many large answers.
 */
const VALIDATOR_SHARE = 1 / 8;

/**
 * Answers of at least this many bytes (a block of many txs) keep their ETags apart, in half
 * of the validators' share: losing one costs a render of ~10 ms where a tx's costs ~0.5, and
 * a walk over a million txs would otherwise push every block's ETag out.
 */
const LARGE_ANSWER_BYTES = 64 * 1024;

export function createImmutableCache(maxBytes: number): ImmutableCache {
  const validatorBytes = Math.floor(maxBytes * VALIDATOR_SHARE);
  const lru = new LRUCache<string, Rendered>({
    maxSize: Math.max(1, maxBytes - validatorBytes),
    sizeCalculation: (r, key) => r.body.length + key.length + ENTRY_OVERHEAD_BYTES,
  });
  const validatorsOf = () =>
    new LRUCache<string, Validator>({
      maxSize: Math.max(1, Math.floor(validatorBytes / 2)),
      sizeCalculation: (v, key) => v.etag.length + key.length + ENTRY_OVERHEAD_BYTES,
    });
  const validators = { small: validatorsOf(), large: validatorsOf() };
  const loading = new Map<string, Promise<Rendered>>();
  let generation = 0;
  return {
    validator(key) {
      const kept = lru.get(key);
      if (kept) return { etag: kept.etag, compressible: compressibleOf(kept) };
      return validators.large.get(key) ?? validators.small.get(key);
    },
    replace(key, from, to) {
      if (lru.peek(key) !== from) return;
      const ttl = lru.getRemainingTTL(key);
      lru.set(key, to, ttl === Number.POSITIVE_INFINITY ? {} : { ttl });
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
              if (keepMs === undefined)
                (rendered.body.length >= LARGE_ANSWER_BYTES ? validators.large : validators.small).set(key, {
                  etag: rendered.etag,
                  compressible: compressibleOf(rendered),
                });
            }
            return rendered;
          })
          .finally(() => {
            // a load begun before clear() leaves a later load of the key where it is
            if (loading.get(key) === pending) loading.delete(key);
          });
        loading.set(key, pending);
      }
      return pending;
    },
    clear() {
      generation++;
      loading.clear();
      lru.clear();
      validators.small.clear();
      validators.large.clear();
    },
    get bytes() {
      return lru.calculatedSize;
    },
    get size() {
      return lru.size;
    },
  };
}
