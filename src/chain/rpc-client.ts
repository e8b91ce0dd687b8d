// The JSON-RPC transport to a CometBFT node, made for public RPC providers
// (docs/real-chains.md "What a provider must offer"): at most `concurrency` requests in
// flight; a timeout for the first byte and then for each pause of the body, so a block's
// results of many megabytes arrive as long as they keep coming; one failed request retried
// by itself with backoff; a 429 honoured with its `Retry-After` by every request; headers a
// provider needs (an API key) sent and never logged. Failures are typed (errors.ts).
// cosmjs's clients run on it through its RpcClient interface. Requests go through undici's
// `request` on connections of the client's own (a block's answers of megabytes cost about half
// the CPU they cost through `fetch`, whose body is a web stream), asking for gzip (inflated
// off this thread once the body is in) and following redirects as `fetch` does. (Importing
// undici makes its agent the process's global one where none was set, as undici's own
// `setGlobalDispatcher` does for Node's `fetch`.)
import { isAscii } from 'node:buffer';
import { setMaxListeners } from 'node:events';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { JsonRpcRequest, JsonRpcSuccessResponse } from '@cosmjs/json-rpc';
import type { RpcClient } from '@cosmjs/tendermint-rpc';
import { Agent, type Dispatcher, request as httpRequest, interceptors } from 'undici';
import { createBackoff, sleep } from '../internal/backoff.ts';
import { isTransient, NodeError, NodeUnreachableError, RateLimitedError, RpcError, rpcFailure } from './errors.ts';

export interface RpcClientOptions {
  /** Headers sent with every request (e.g. an API key); kept out of logs and errors. */
  headers?: Record<string, string>;
  /** The longest wait for the answer to start, and for each pause in a long answer (ms). Default 15 s. */
  timeoutMs?: number;
  /** Requests in flight at once. Default 16. */
  concurrency?: number;
  /** Attempts of one request before its failure is the caller's (transient failures only). Default 5. */
  attempts?: number;
  /** First retry delay (ms), doubling to `maxRetryMs`. */
  minRetryMs?: number;
  maxRetryMs?: number;
  /** Called when the provider asks to slow down. */
  onRateLimited?: (retryAfterMs: number) => void;
}

export interface ProviderRpcClient extends RpcClient {
  /** Runs one call (retried as the options say) and returns its `result`. */
  call<T = unknown>(method: string, params?: Record<string, unknown>): Promise<T>;
  /**
   * Runs one call as `call` does and returns the answer's body as it came when the node
   * answered 2xx, unparsed: for answers of megabytes read elsewhere (src/indexer/read-block.ts),
   * whose reader classifies it with `readAnswer`. Any other answer fails as in `call`.
   */
  callBody(method: string, params?: Record<string, unknown>, signal?: AbortSignal): Promise<Buffer>;
  readonly stats: { requests: number; retries: number; rateLimited: number };
  /** Requests in flight at once, at most (`concurrency`). */
  readonly concurrency: number;
}

/** The longest Retry-After a call waits out by itself before its caller hears of the 429. */
const MAX_WAIT_IN_CLIENT_MS = 60_000;

/** `Retry-After` in ms: seconds, or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * A body's text. A node's JSON is nearly always ASCII (non-ASCII text is escaped or base64),
 * which is read several times faster as ASCII than through the UTF-8 decoder (a block's
 * results are megabytes); anything else is decoded as UTF-8.
 */
const textOf = (body: Buffer): string => (isAscii(body) ? body.toString('ascii') : body.toString('utf8'));

/** A JSON-RPC error as the node sent it. */
export interface WireRpcError {
  code?: number;
  message?: string;
  data?: unknown;
}

/**
 * A JSON-RPC answer's body read into what it says: its `result`, the node's error, or
 * neither (not JSON-RPC: a proxy's page, a body cut short). Plain data, so a worker thread
 * can send it back as it is.
 */
export type Answer = { result: unknown } | { error: WireRpcError } | { invalid: true };

export function readAnswer(body: Buffer): Answer {
  let parsed: { result?: unknown; error?: WireRpcError } | undefined;
  try {
    parsed = JSON.parse(textOf(body));
  } catch {
    return { invalid: true };
  }
  if (!parsed || typeof parsed !== 'object') return { invalid: true };
  if (parsed.error) return { error: parsed.error };
  return 'result' in parsed ? { result: parsed.result } : { invalid: true };
}

/** What a call's answer means when it is not a result: the typed failure (src/chain/errors.ts). */
export function answerFailure(what: string, answer: Exclude<Answer, { result: unknown }>, status = 200): NodeError {
  // CometBFT answers a JSON-RPC error with HTTP 500 and the error in the body
  if ('error' in answer) return rpcFailure(what, answer.error);
  return new NodeUnreachableError(`${what}: the node's answer is not JSON-RPC (HTTP ${status})`);
}

const EMPTY = Buffer.alloc(0);

const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

/** Whether a body begins with `{` and ends with `}` (blanks aside): a JSON object, as far as its ends tell. */
function looksLikeObject(body: Buffer): boolean {
  let start = 0;
  let end = body.length - 1;
  while (start <= end && isSpace(body[start])) start++;
  while (end >= start && isSpace(body[end])) end--;
  return start < end && body[start] === 0x7b && body[end] === 0x7d;
}

/** A body read with an idle timeout: each chunk must come within `timeoutMs` of the last. */
async function readBody(body: Dispatcher.ResponseData['body'], timeoutMs: number, abort: () => void): Promise<Buffer> {
  // chunks kept as bytes and decoded once: a block's results of megabytes come in many
  const chunks: Buffer[] = [];
  let timer = setTimeout(abort, timeoutMs);
  try {
    for await (const chunk of body) {
      clearTimeout(timer);
      chunks.push(chunk as Buffer);
      timer = setTimeout(abort, timeoutMs);
    }
    return chunks.length === 0 ? EMPTY : Buffer.concat(chunks);
  } finally {
    clearTimeout(timer);
  }
}

const gunzip = promisify(zlib.gunzip);
const inflate = promisify(zlib.inflate);
const inflateRaw = promisify(zlib.inflateRaw);
const brotli = promisify(zlib.brotliDecompress);

/**
 * A body as the node meant it: inflated by its `Content-Encoding` (gzip or deflate, asked
 * for; brotli, should a gateway send it anyway), on libuv's threads. A body the encoding does
 * not read fails as zlib says (an answer cut short, or not what its header says).
 */
async function inflated(body: Buffer, encoding: string | null): Promise<Buffer> {
  const coding = encoding?.trim().toLowerCase();
  if (!coding || coding === 'identity' || body.length === 0) return body;
  if (coding === 'gzip' || coding === 'x-gzip') return gunzip(body);
  // HTTP's deflate is zlib-wrapped; some servers send it raw
  if (coding === 'deflate') return inflate(body).catch(() => inflateRaw(body));
  if (coding === 'br') return brotli(body);
  throw new Error(`an answer in an encoding this client does not read (${coding})`);
}

/** How the client names itself to a provider (CHAIN_RPC_HEADERS may name it otherwise). */
const USER_AGENT = 'launchpad-index';
/** Redirects followed for one call (a provider's URL moved, http to https), as `fetch` follows them. */
const MAX_REDIRECTIONS = 5;

/** A header's value as one string (the first, when a server sent it twice). */
const headerValue = (v: string | string[] | undefined): string | null =>
  Array.isArray(v) ? (v[0] ?? null) : (v ?? null);

/**
 * What went wrong on the way, as a word an operator can look up: the system's code
 * (ECONNREFUSED, ECONNRESET, ENOTFOUND) where there is one, else undici's own.
 */
function transportFailure(error: Error & { code?: string; cause?: { code?: string; message?: string } }): string {
  const system = error.cause?.code ?? (error.code?.startsWith('E') ? error.code : undefined);
  if (system) return system;
  return error.code ? `${error.message} (${error.code})` : error.message;
}

/** A tiny counting semaphore: at most `limit` holders at once, the others queued in order. */
function createSemaphore(limit: number) {
  let active = 0;
  const queue: (() => void)[] = [];
  return {
    async acquire(): Promise<() => void> {
      if (active >= limit) await new Promise<void>((resolve) => queue.push(resolve));
      else active++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const next = queue.shift();
        if (next) next();
        else active--;
      };
    },
  };
}

/** Calls in flight or waiting on one client past which Node warns of a listener leak (a leak, not a load). */
const CLOSING_LISTENERS_WARNING = 4096;

export function createRpcClient(url: string, options: RpcClientOptions = {}): ProviderRpcClient {
  const timeoutMs = options.timeoutMs ?? 15_000;
  const attempts = options.attempts ?? 5;
  // a provider's gateway may refuse a request that names no client, and gzips a block's results
  // when asked; names in lower case, so an operator's header of the same name replaces ours
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'accept-encoding': 'gzip, deflate',
  };
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  const concurrency = options.concurrency ?? 16;
  const semaphore = createSemaphore(concurrency);
  // the client's own connections (kept alive between calls), as many as it has calls in flight;
  // the waits are the client's own timers below
  const agent = new Agent({ connections: concurrency, headersTimeout: 0, bodyTimeout: 0 });
  const connections = agent.compose(interceptors.redirect({ maxRedirections: MAX_REDIRECTIONS }));
  const stats = { requests: 0, retries: 0, rateLimited: 0 };
  // a 429 holds back every request of this client until the provider's wait is over
  let pausedUntil = 0;
  let nextId = 0;
  let closed = false;
  const closing = new AbortController(); // wakes the calls that wait out a pause or a retry
  // every call in flight or waiting listens to it until it ends (as many as the callers make):
  // no "possible memory leak" warning past Node's default of 10, one past thousands
  setMaxListeners(CLOSING_LISTENERS_WARNING, closing.signal);
  const closedError = (what: string) => new NodeUnreachableError(`${what}: the client is closed`);

  /**
   * One HTTP round trip: the answer's status and body, or a typed failure (no answer, or a
   * 429). `signal` (the caller's, or the client's closing) ends it at once.
   */
  async function once(request: JsonRpcRequest, signal: AbortSignal): Promise<{ status: number; body: Buffer }> {
    const what = String(request.method);
    const controller = new AbortController();
    // an answer of megabytes (an epoch block's results) may need more: CHAIN_RPC_TIMEOUT_MS
    const abort = () =>
      controller.abort(new NodeUnreachableError(`${what}: no answer within ${timeoutMs} ms (CHAIN_RPC_TIMEOUT_MS)`));
    const firstByte = setTimeout(abort, timeoutMs);
    const cancel = () => controller.abort(new NodeUnreachableError(`${what}: no longer wanted`));
    signal.addEventListener('abort', cancel, { once: true });
    let response: Dispatcher.ResponseData;
    let body: Buffer;
    try {
      stats.requests++;
      response = await httpRequest(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(request),
        signal: controller.signal,
        dispatcher: connections,
      });
      clearTimeout(firstByte);
      body = await inflated(
        await readBody(response.body, timeoutMs, abort),
        headerValue(response.headers['content-encoding']),
      );
    } catch (error) {
      clearTimeout(firstByte);
      if (controller.signal.aborted && controller.signal.reason instanceof NodeError) throw controller.signal.reason;
      const failure = error as Error & { code?: string; cause?: { code?: string; message?: string } };
      throw new NodeUnreachableError(`${what}: ${transportFailure(failure)}`);
    } finally {
      signal.removeEventListener('abort', cancel);
    }
    if (response.statusCode === 429) {
      const wait = retryAfterMs(headerValue(response.headers['retry-after']));
      stats.rateLimited++;
      throw new RateLimitedError(`${what}: the node answered 429 (rate limited)`, wait ?? -1);
    }
    return { status: response.statusCode, body };
  }

  /** The result of an answer, or its typed failure. */
  function resultOf(what: string, status: number, body: Buffer): unknown {
    const answer = readAnswer(body);
    if ('error' in answer) throw answerFailure(what, answer, status);
    if (status >= 500) throw new NodeUnreachableError(`${what}: the node answered HTTP ${status}`);
    if (status >= 400)
      throw new RpcError(
        `${what}: the node refused the request with HTTP ${status}${status === 401 || status === 403 ? ' (does it need CHAIN_RPC_HEADERS?)' : ''}`,
        status,
      );
    if ('invalid' in answer) throw answerFailure(what, answer, status);
    return answer.result;
  }

  /**
   * A call's answer as `read` takes it from the round trip, retried as the options say; the
   * caller's `signal` (an indexer stopping) ends its waits and its round trip at once.
   */
  async function run<T>(
    request: JsonRpcRequest,
    read: (answer: { status: number; body: Buffer }) => T,
    callerSignal?: AbortSignal,
  ): Promise<T> {
    const what = String(request.method);
    if (closed) throw closedError(what);
    const signal = callerSignal ? AbortSignal.any([closing.signal, callerSignal]) : closing.signal;
    const backoff = createBackoff(options.minRetryMs ?? 250, options.maxRetryMs ?? 10_000);
    for (let attempt = 1; ; attempt++) {
      const release = await semaphore.acquire();
      try {
        const wait = pausedUntil - Date.now();
        // a pause past what a call waits out here is the caller's to show (rate_limited), as below
        if (wait > MAX_WAIT_IN_CLIENT_MS)
          throw new RateLimitedError(`${what}: the node asked to wait ${Math.ceil(wait / 1000)} s more`, wait);
        if (wait > 0) await sleep(wait, signal);
        if (closed) throw closedError(what);
        if (signal.aborted) throw new NodeUnreachableError(`${what}: no longer wanted`);
        return read(await once(request, signal));
      } catch (error) {
        if (!isTransient(error) || attempt >= attempts || closed || signal.aborted) throw error;
        let delay = backoff.next();
        if (error instanceof RateLimitedError) {
          if (error.retryAfterMs >= 0) delay = Math.max(error.retryAfterMs, 50);
          pausedUntil = Math.max(pausedUntil, Date.now() + delay);
          options.onRateLimited?.(delay);
          // a long wait is the caller's to show (the indexer says rate_limited); the pause holds meanwhile
          if (delay > MAX_WAIT_IN_CLIENT_MS) throw error;
        }
        stats.retries++;
        release();
        await sleep(delay, signal);
      } finally {
        release();
      }
    }
  }

  const request = (method: string, params: Record<string, unknown>): JsonRpcRequest => ({
    jsonrpc: '2.0',
    id: ++nextId,
    method,
    params: params as never,
  });
  const execute = (req: JsonRpcRequest) =>
    run(
      req,
      ({ status, body }): JsonRpcSuccessResponse => ({
        jsonrpc: '2.0',
        id: req.id,
        result: resultOf(String(req.method), status, body),
      }),
    );

  return {
    execute,
    async call<T>(method: string, params: Record<string, unknown> = {}) {
      return (await execute(request(method, params))).result as T;
    },
    callBody(method: string, params: Record<string, unknown> = {}, signal?: AbortSignal) {
      return run(
        request(method, params),
        ({ status, body }) => {
          if (status < 200 || status >= 300) resultOf(method, status, body); // throws for what is not a result
          // a body that is not a JSON object (a proxy's page, one cut short) is retried here as `call`
          // retries it; one that is, is read by the caller (a JSON-RPC error in it included)
          if (!looksLikeObject(body)) throw answerFailure(method, { invalid: true }, status);
          return body;
        },
        signal,
      );
    },
    disconnect() {
      closed = true;
      closing.abort();
      void agent.destroy().catch(() => {});
    },
    stats,
    concurrency,
  };
}
