// A cache of serialized responses in the API process. Entries carry tags (what they read:
// src/api/http/freshness.ts names them and drops them as the indexer announces changes);
// a TTL bounds staleness for what no change announces (the sliding 24 h window).
import { LRUCache } from 'lru-cache';
import { ownBytes } from '../../internal/bytes.ts';
import { DEFAULT_CACHE_BYTES } from './http-cache.ts';

/** An answer's JSON: computed as text (or its bytes), kept and returned as bytes (sent without encoding again). */
export type Body = string | Buffer;

/** A body and the tags only its computation can tell (e.g. the tokens an address holds). */
export interface TaggedBody {
  body: Body;
  tags: readonly string[];
  /** Overrides the TTL the body was asked for with. */
  ttlMs?: number;
}

export interface RevalidateOptions {
  /**
   * Once its data changed (an invalidation or the TTL), the last body is still served for
   * up to this long while one new body is computed in the background; after that requests
   * wait for the new body. Within that bound a new computation also waits until the last
   * one is 4 times its own duration in the past, so a body that takes up to about a fifth
   * of `maxStaleMs` to compute takes at most a fifth of the database's time however often
   * its data changes; a slower one is recomputed whenever it is older than `maxStaleMs`.
   */
  maxStaleMs: number;
}

export interface ResponseCache {
  /**
   * Returns the cached body or computes, stores and returns it (concurrent misses of one
   * key share one computation). With `revalidate`, a stale body may be served (see there).
   */
  remember(
    key: string,
    tags: readonly string[],
    ttlMs: number,
    compute: () => Promise<Body>,
    revalidate?: RevalidateOptions,
  ): Promise<Buffer>;
  /** remember() for a body that knows how long it stays true (its TTL is known once it is computed). */
  rememberFor(
    key: string,
    tags: readonly string[],
    compute: () => Promise<{ body: Body; ttlMs: number }>,
  ): Promise<Buffer>;
  /**
   * remember() for a body whose tags are known once it is computed: stored under `tags` and
   * its own. A computation under way is not stored after any invalidation, whatever its tags.
   */
  rememberTagged(
    key: string,
    tags: readonly string[],
    ttlMs: number,
    compute: () => Promise<TaggedBody>,
  ): Promise<Buffer>;
  /** Drops every entry with any of the tags; computations of those entries under way are not stored. */
  invalidate(tags: Iterable<string>): void;
  /** Drops every entry. */
  clear(): void;
  readonly size: number;
}

interface Pending {
  promise: Promise<Buffer>;
  tags: readonly string[];
  /** Set when an invalidation came while computing: the result is returned, not stored. */
  stale: boolean;
  /** Its tags are known only at the end: any invalidation makes it stale. */
  anyTag: boolean;
}

/** A body served stale-while-revalidate (kept apart from the LRU: there are a few such keys). */
interface Revalidated {
  /** Undefined until the first computation has ended. */
  body: Buffer | undefined;
  tags: readonly string[];
  /** When the last computation ended, and how long it took. */
  computedAt: number;
  durationMs: number;
  /** When the data behind the body changed (invalidation or TTL); undefined while fresh. */
  staleSince: number | undefined;
  ttlMs: number;
  running: Promise<Buffer> | undefined;
  /** Set when the data changed during the running computation: its body starts stale. */
  changedWhileRunning: boolean;
}

/** A body's bytes as kept: of their own (a small one made from a string is a view of Node's shared pool). */
const bytesOf = (body: Body): Buffer => ownBytes(body);

/** A monotonic clock for staleness (a wall-clock jump must not stretch or cut it). */
const monotonic = () => performance.now();
/** A revalidated body is recomputed at most once per this many times its compute time. */
const REVALIDATE_COOLDOWN_FACTOR = 4;

export interface ResponseCacheOptions {
  /** Milliseconds on a monotonic clock (default performance.now); tests pass a clock they move. */
  clock?: () => number;
  /** The bodies' budget (CACHE_MB; default 64 MiB). */
  maxBytes?: number;
}

export function createResponseCache({
  clock = monotonic,
  maxBytes = DEFAULT_CACHE_BYTES,
}: ResponseCacheOptions = {}): ResponseCache {
  const byTag = new Map<string, Set<string>>();
  const tagsOf = new Map<string, readonly string[]>();
  const inFlight = new Map<string, Pending>();
  const forget = (key: string) => {
    for (const tag of tagsOf.get(key) ?? []) {
      const keys = byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) byTag.delete(tag);
    }
    tagsOf.delete(key);
  };
  const lru = new LRUCache<string, Buffer>({
    maxSize: Math.max(1, maxBytes),
    sizeCalculation: (body, key) => body.length + key.length + 64,
    dispose: (_body, key) => forget(key),
    perf: { now: clock }, // TTLs on the cache's clock too
    ttlResolution: 0, // read the clock on each get (it is not cached for a millisecond)
  });
  const store = (key: string, body: Buffer, tags: readonly string[], ttlMs: number) => {
    lru.set(key, body, { ttl: ttlMs });
    // a body larger than the whole budget is not kept (lru-cache refuses it): nor are its tags
    if (!lru.has(key)) return;
    tagsOf.set(key, tags);
    for (const tag of tags) {
      let keys = byTag.get(tag);
      if (!keys) {
        keys = new Set();
        byTag.set(tag, keys);
      }
      keys.add(key);
    }
  };
  const abandon = (key: string, pending: Pending) => {
    pending.stale = true;
    if (inFlight.get(key) === pending) inFlight.delete(key);
  };

  const revalidated = new Map<string, Revalidated>();
  const markChanged = (entry: Revalidated, at: number) => {
    if (entry.running) entry.changedWhileRunning = true;
    entry.staleSince ??= at;
  };
  const recompute = (
    key: string,
    entry: Revalidated | undefined,
    tags: readonly string[],
    ttlMs: number,
    compute: () => Promise<Body>,
  ) => {
    const started = clock();
    const running = compute().then((computed) => {
      const body = bytesOf(computed);
      const now = clock();
      const current = revalidated.get(key);
      const changed = current?.running === running && current.changedWhileRunning;
      revalidated.set(key, {
        body,
        tags,
        computedAt: now,
        durationMs: now - started,
        staleSince: changed ? started : undefined,
        ttlMs,
        running: undefined,
        changedWhileRunning: false,
      });
      return body;
    });
    const settled = () => {
      const current = revalidated.get(key);
      if (current?.running === running) current.running = undefined;
    };
    running.then(settled, settled);
    if (entry) {
      entry.running = running;
      entry.changedWhileRunning = false;
    } else {
      revalidated.set(key, {
        body: undefined,
        tags,
        computedAt: 0,
        durationMs: 0,
        staleSince: undefined,
        ttlMs,
        running,
        changedWhileRunning: false,
      });
    }
    return running;
  };
  const rememberRevalidated = (
    key: string,
    tags: readonly string[],
    ttlMs: number,
    compute: () => Promise<Body>,
    { maxStaleMs }: RevalidateOptions,
  ) => {
    const now = clock();
    const entry = revalidated.get(key);
    if (!entry) return recompute(key, undefined, tags, ttlMs, compute);
    const { body } = entry;
    if (body === undefined) return entry.running ?? recompute(key, entry, tags, ttlMs, compute); // no body yet (or the first failed)
    if (entry.staleSince === undefined && now - entry.computedAt >= entry.ttlMs)
      entry.staleSince = entry.computedAt + entry.ttlMs;
    if (entry.staleSince === undefined) return Promise.resolve(body);
    const servable = now - entry.staleSince <= maxStaleMs;
    if (entry.running) return servable ? Promise.resolve(body) : entry.running;
    const coolingDown = now < entry.computedAt + REVALIDATE_COOLDOWN_FACTOR * entry.durationMs;
    if (servable && coolingDown) return Promise.resolve(body);
    const running = recompute(key, entry, tags, ttlMs, compute);
    // served stale, a failure of `running` reaches the next request that has to wait for it
    return servable ? Promise.resolve(body) : running;
  };

  const rememberComputed = (
    key: string,
    tags: readonly string[],
    ttlMs: number,
    compute: () => Promise<TaggedBody>,
    anyTag: boolean,
  ): Promise<Buffer> => {
    const hit = lru.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    const running = inFlight.get(key);
    if (running) return running.promise;
    const pending: Pending = { promise: undefined as unknown as Promise<Buffer>, tags, stale: false, anyTag };
    pending.promise = compute().then(
      (computed) => {
        const body = bytesOf(computed.body);
        if (!pending.stale) store(key, body, [...new Set([...tags, ...computed.tags])], computed.ttlMs ?? ttlMs);
        if (inFlight.get(key) === pending) inFlight.delete(key);
        return body;
      },
      (error) => {
        if (inFlight.get(key) === pending) inFlight.delete(key);
        throw error;
      },
    );
    inFlight.set(key, pending);
    return pending.promise;
  };

  return {
    remember(key, tags, ttlMs, compute, revalidate) {
      if (revalidate) return rememberRevalidated(key, tags, ttlMs, compute, revalidate);
      return rememberComputed(key, tags, ttlMs, async () => ({ body: await compute(), tags: [] }), false);
    },
    rememberFor(key, tags, compute) {
      return rememberComputed(key, tags, 0, async () => ({ ...(await compute()), tags: [] }), false);
    },
    rememberTagged(key, tags, ttlMs, compute) {
      return rememberComputed(key, tags, ttlMs, compute, true);
    },
    invalidate(tags) {
      const dropped = new Set(tags);
      for (const tag of dropped) for (const key of [...(byTag.get(tag) ?? [])]) lru.delete(key);
      for (const [key, pending] of inFlight)
        if (pending.anyTag || pending.tags.some((t) => dropped.has(t))) abandon(key, pending);
      const at = clock();
      for (const entry of revalidated.values()) if (entry.tags.some((t) => dropped.has(t))) markChanged(entry, at);
    },
    clear() {
      lru.clear();
      for (const [key, pending] of inFlight) abandon(key, pending);
      const at = clock();
      for (const entry of revalidated.values()) markChanged(entry, at);
    },
    get size() {
      return lru.size + revalidated.size;
    },
  };
}
