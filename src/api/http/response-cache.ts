// A cache of serialized responses in the API process. Entries carry tags (the token they
// describe, or "any"), and the live feed invalidates those tags as the indexer commits;
// a TTL bounds staleness for what the feed does not announce (the sliding 24 h window).
import { LRUCache } from 'lru-cache';

export const ANY = 'any';
export const tokenTag = (address: string) => `token:${address}`;

export interface ResponseCache {
  /** Returns the cached body or computes, stores and returns it (concurrent misses of one key share one computation). */
  remember(key: string, tags: readonly string[], ttlMs: number, compute: () => Promise<string>): Promise<string>;
  /** Drops every entry with any of the tags; computations of those entries under way are not stored. */
  invalidate(tags: Iterable<string>): void;
  /** Drops every entry. */
  clear(): void;
  readonly size: number;
}

interface Pending {
  promise: Promise<string>;
  tags: readonly string[];
  /** Set when an invalidation came while computing: the result is returned, not stored. */
  stale: boolean;
}

const MAX_BYTES = 64 * 1024 * 1024;

export function createResponseCache(): ResponseCache {
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
  const lru = new LRUCache<string, string>({
    maxSize: MAX_BYTES,
    sizeCalculation: (body, key) => body.length + key.length + 64,
    dispose: (_body, key) => forget(key),
  });
  const store = (key: string, body: string, tags: readonly string[], ttlMs: number) => {
    lru.set(key, body, { ttl: ttlMs });
    tagsOf.set(key, tags);
    for (const tag of tags) {
      let keys = byTag.get(tag);
      if (!keys) byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
  };
  const abandon = (key: string, pending: Pending) => {
    pending.stale = true;
    if (inFlight.get(key) === pending) inFlight.delete(key);
  };
  return {
    remember(key, tags, ttlMs, compute) {
      const hit = lru.get(key);
      if (hit !== undefined) return Promise.resolve(hit);
      const running = inFlight.get(key);
      if (running) return running.promise;
      const pending: Pending = { promise: undefined as unknown as Promise<string>, tags, stale: false };
      pending.promise = compute().then(
        (body) => {
          if (!pending.stale) store(key, body, tags, ttlMs);
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
    },
    invalidate(tags) {
      const dropped = new Set(tags);
      for (const tag of dropped) for (const key of [...(byTag.get(tag) ?? [])]) lru.delete(key);
      for (const [key, pending] of inFlight) if (pending.tags.some((t) => dropped.has(t))) abandon(key, pending);
    },
    clear() {
      lru.clear();
      for (const [key, pending] of inFlight) abandon(key, pending);
    },
    get size() {
      return lru.size;
    },
  };
}
