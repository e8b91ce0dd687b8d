// Retry delays: exponential from `min` to `max` with jitter, so many clients that lost
// the same server do not come back in lockstep.
export function createBackoff(minMs = 500, maxMs = 30_000) {
  let attempt = 0;
  return {
    next(): number {
      const base = Math.min(maxMs, minMs * 2 ** attempt++);
      return Math.round(base / 2 + (Math.random() * base) / 2);
    },
    reset() {
      attempt = 0;
    },
    get attempts() {
      return attempt;
    },
  };
}

/**
 * `promise`'s value, or undefined once `ms` pass first (or the signal aborts): for a caller
 * that goes on without an answer that is late (the promise itself is not stopped).
 */
export async function within<T>(promise: Promise<T>, ms: number, signal?: AbortSignal): Promise<T | undefined> {
  const waited = new AbortController();
  const late = sleep(ms, signal ? AbortSignal.any([waited.signal, signal]) : waited.signal).then(() => undefined);
  try {
    return await Promise.race([promise, late]);
  } finally {
    waited.abort();
  }
}

/** Resolves after `ms`, or early (without error) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
