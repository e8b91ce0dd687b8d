// The HTTP load of the benches: autocannon in the bench's own process, against one origin,
// each request's path picked by a function (a random token, height or hash per request).
// autocannon is patched (patches/autocannon+9.0.0.dev.patch) not to decode each answer's body as
// UTF-8 text when nothing reads it: binary bodies (gzip) decode at ~80 MB/s, so a 329 KiB
// gzipped block cost the load generator ~4 ms a response, 15 times what the API spent
// sending it, and every large gzipped route measured the load generator.
import autocannon from 'autocannon';

export type LoadOptions = Pick<autocannon.Options, 'connections' | 'duration' | 'timeout'>;

/**
 * One autocannon run of `options` (autocannon's defaults for what it leaves out) against
 * `origin`; `watch` gets the running instance, to listen to its events.
 */
/** A request other than a GET: its path, method, headers and body. */
export interface LoadRequest {
  path: string;
  method?: 'POST' | 'GET';
  headers?: Record<string, string>;
  body?: string;
}

export function loadRun(
  origin: string,
  path: () => string | LoadRequest,
  options: LoadOptions,
  watch?: (instance: autocannon.Instance) => void,
): Promise<autocannon.Result> {
  const next = (req: object) => {
    const r = path();
    return typeof r === 'string' ? { ...req, path: r } : { ...req, ...r };
  };
  return new Promise((resolve, reject) => {
    const instance = autocannon({ url: origin, ...options, requests: [{ setupRequest: next }] }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
    watch?.(instance);
  });
}

export interface Load {
  requests: number;
  /** Requests of the warm-up run before it. */
  warmup: number;
  seconds: number;
  /** Total requests over the measured run's duration. */
  rps: number;
  /** Per-second samples of completed requests. */
  perSecond: { min: number; median: number; max: number };
  p99: number;
  /** Answers that were not 2xx, and errors. */
  non2xx: number;
}

/** An untimed 2 s warm-up run (JIT, caches, connection pools), then the measured run. */
export async function warmLoad(
  origin: string,
  path: () => string | LoadRequest,
  options: { connections: number; duration: number },
): Promise<Load> {
  const warmup = await loadRun(origin, path, { ...options, duration: 2 });
  const result = await loadRun(origin, path, options);
  return {
    requests: result.requests.total,
    warmup: warmup.requests.total,
    seconds: result.duration,
    rps: result.requests.total / result.duration,
    perSecond: { min: result.requests.min, median: result.requests.p50, max: result.requests.max },
    p99: result.latency.p99,
    non2xx: result.non2xx + result.errors,
  };
}
