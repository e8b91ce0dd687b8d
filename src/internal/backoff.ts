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
