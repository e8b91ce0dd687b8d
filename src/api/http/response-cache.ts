// A cache of serialized responses in the API process. Entries carry tags (the token they
// describe, or "any"), and the live feed invalidates those tags as the indexer commits;
// a short TTL bounds staleness for what the feed does not announce (metadata, backfill,
// the sliding 24 h window).
import { LRUCache } from 'lru-cache';

export const ANY = 'any';
export const tokenTag = (address: string) => `token:${address}`;

export interface ResponseCache {
  get(key: string): string | undefined;
  set(key: string, body: string, tags: readonly string[], ttlMs: number): void;
  /** Drops every entry with any of the tags. */
  invalidate(tags: Iterable<string>): void;
  /** Drops every entry. */
  clear(): void;
  /** Returns the cached body or computes, stores and returns it (concurrent misses share one computation). */
  remember(key: string, tags: readonly string[], ttlMs: number, compute: () => Promise<string>): Promise<string>;
  readonly size: number;
}

export function createResponseCache({ maxBytes = 64 * 1024 * 1024 } = {}): ResponseCache {
  const byTag = new Map<string, Set<string>>();
  const tagsOf = new Map<string, readonly string[]>();
  const inFlight = new Map<string, Promise<string>>();
  const forget = (key: string) => {
    for (const tag of tagsOf.get(key) ?? []) {
      const keys = byTag.get(tag);
      keys?.delete(key);
      if (keys?.size === 0) byTag.delete(tag);
    }
    tagsOf.delete(key);
  };
  const lru = new LRUCache<string, string>({
    maxSize: maxBytes,
    sizeCalculation: (body, key) => body.length + key.length + 64,
    dispose: (_body, key) => forget(key),
    ttlAutopurge: false,
  });
  // A computation that started before an invalidation must not store its (stale) result.
  let generation = 0;
  const set = (key: string, body: string, tags: readonly string[], ttlMs: number) => {
    lru.set(key, body, { ttl: ttlMs });
    tagsOf.set(key, tags);
    for (const tag of tags) {
      let keys = byTag.get(tag);
      if (!keys) byTag.set(tag, (keys = new Set()));
      keys.add(key);
    }
  };
  return {
    get: (key) => lru.get(key),
    set,
    invalidate(tags) {
      generation++;
      for (const tag of tags) for (const key of [...(byTag.get(tag) ?? [])]) lru.delete(key);
      inFlight.clear();
    },
    clear() {
      generation++;
      lru.clear();
      inFlight.clear();
    },
    remember(key, tags, ttlMs, compute) {
      const hit = lru.get(key);
      if (hit !== undefined) return Promise.resolve(hit);
      let pending = inFlight.get(key);
      if (!pending) {
        const started = generation;
        pending = compute().then(
          (body) => {
            if (generation === started) set(key, body, tags, ttlMs);
            if (inFlight.get(key) === pending) inFlight.delete(key);
            return body;
          },
          (error) => {
            if (inFlight.get(key) === pending) inFlight.delete(key);
            throw error;
          },
        );
        inFlight.set(key, pending);
      }
      return pending;
    },
    get size() {
      return lru.size;
    },
  };
}
