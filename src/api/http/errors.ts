// The one place that turns failures into HTTP responses. Handlers throw HttpError for
// what the client did wrong; anything else is a 503 (database unreachable, or a statement it
// gave up for a conflict) or a 500 whose cause is logged, never sent. Each API words its
// bodies in its own style: the Launchpad API `{error, details}`, the Chain API the Cosmos
// gateway's `{code, message, details}` (ErrorStyle).
import { randomUUID } from 'node:crypto';
import { type IncomingMessage, maxHeaderSize, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { DatabaseError } from '../../db/types.ts';
import { ServiceError } from '../../internal/errors.ts';
import type { Logger } from '../../internal/logger.ts';
import { CORS_HEADERS, JSON_TYPE, sendJson } from './respond.ts';

export interface ErrorDetail {
  parameter?: string;
  message: string;
  [key: string]: unknown;
}

export class HttpError extends ServiceError {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers: Record<string, string | number> = {},
    /** A body of a route's own shape (health), instead of `{error, details}`. */
    readonly body?: object,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details: ErrorDetail[]) => new HttpError(400, message, details);
export const notFound = (message: string) => new HttpError(404, message);
/** 503 with `Retry-After`: the service cannot answer now; `body` says why in the route's own shape. */
export const unavailable = (body: object, retryAfterSeconds: number) =>
  new HttpError(503, 'Service unavailable', undefined, { 'Retry-After': retryAfterSeconds }, body);

/** How an API words an error body it did not get from the route. */
export interface ErrorStyle {
  body(status: number, message: string, requestId?: string): object;
}

/** The Launchpad API's: `{"error": message}` (with `request_id` on 5xx). */
export const LAUNCHPAD_ERRORS: ErrorStyle = {
  body: (_status, message, requestId) => (requestId ? { error: message, request_id: requestId } : { error: message }),
};

/** A database failure that is no defect of the service: what a 503 says about it, or undefined. */
function databaseBusy(err: DatabaseError) {
  if (err.unavailable)
    return {
      log: 'Request failed: database unavailable',
      message: 'Service unavailable: the database cannot be reached',
      retryAfter: 5,
      cause: err.message,
    };
  // given up for a conflict: on a server's pool after the statement was sent again once
  // (src/db/postgres.ts); a transaction's, a session's or the embedded database's at once
  if (err.conflict)
    return {
      log: 'Request failed: the database gave its statement up for a conflict',
      message: 'Service unavailable: the database is busy, retry',
      retryAfter: 1,
      cause: err.message,
    };
  return undefined;
}

/**
 * What every error answer says to HTTP caches: keep nothing. A 404 for a tx or a token not
 * indexed yet is answered otherwise a moment later, and a CDN keeps a 404 for its default
 * time when nothing says otherwise (RFC 9111 4.2.2); 429s and 503s are of this moment only.
 */
export const ERROR_CACHE_HEADERS = { 'Cache-Control': 'no-store' } as const;

export function createErrorHandler(logger: Logger, style: ErrorStyle = LAUNCHPAD_ERRORS) {
  return (err: unknown, req: IncomingMessage, res: ServerResponse) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof HttpError) {
      return sendJson(
        res,
        err.status,
        err.body ?? (err.details ? { error: err.message, details: err.details } : { error: err.message }),
        { ...ERROR_CACHE_HEADERS, ...err.headers },
      );
    }
    const requestId = randomUUID();
    const busy = err instanceof DatabaseError && databaseBusy(err);
    if (busy) {
      logger.warn({ request_id: requestId, method: req.method, url: req.url, err: busy.cause }, busy.log);
      return sendJson(res, 503, style.body(503, busy.message, requestId), {
        ...ERROR_CACHE_HEADERS,
        'Retry-After': busy.retryAfter,
      });
    }
    logger.error({ request_id: requestId, method: req.method, url: req.url, err }, 'Request failed');
    sendJson(res, 500, style.body(500, 'Internal server error', requestId), ERROR_CACHE_HEADERS);
  };
}

/** An API's answer to a method and path it does not serve. */
export type NoRoute = (method: string, path: string) => { status: number; body: object };

/** The Launchpad API's: 404, as JSON like every other answer. */
export const launchpadNoRoute: NoRoute = (method, path) => ({
  status: 404,
  body: { error: 'Not found', details: [{ message: `no route ${method} ${path}` }] },
});

/** Polka's onNoMatch for an API's NoRoute. */
export const noRouteHandler = (noRoute: NoRoute) => (req: IncomingMessage, res: ServerResponse) => {
  const { status, body } = noRoute(req.method ?? 'GET', (req.url ?? '').split('?')[0]!);
  sendJson(res, status, body, ERROR_CACHE_HEADERS);
};

/** Writes a whole JSON response on a raw connection and closes it (no ServerResponse exists there). */
function endWithJson(socket: Duplex, status: number, body: unknown) {
  const text = JSON.stringify(body);
  const headers = {
    ...CORS_HEADERS,
    'Content-Type': JSON_TYPE,
    'Content-Length': Buffer.byteLength(text),
    ...ERROR_CACHE_HEADERS,
    Connection: 'close',
  };
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('')}\r\n${text}`,
  );
}

/**
 * Requests the HTTP parser refuses never reach the routes: a malformed request line or
 * header, or a request line and headers past Node's limit (16 KiB by default, so a URL
 * that long too). They are answered here, as JSON like every other answer, and the
 * connection is closed (server.on('clientError', answerClientError)).
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Duplex, style: ErrorStyle = LAUNCHPAD_ERRORS) {
  // a response already under way on this connection (keep-alive) must not be corrupted
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, message]: [number, string] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, `The request line and headers are too large (at most ${maxHeaderSize} bytes)`]
      : err.code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW'
        ? [413, 'The chunk extensions are too large']
        : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? [408, 'The request did not arrive in time']
          : [400, 'Malformed HTTP request'];
  endWithJson(socket, status, style.body(status, message));
}

/** CONNECT (a proxy tunnel) never reaches the routes either: answered like any unknown route (server.on('connect', …)). */
export function answerConnect(req: IncomingMessage, socket: Duplex, noRoute: NoRoute) {
  const { status, body } = noRoute('CONNECT', (req.url ?? '').split('?')[0]!);
  endWithJson(socket, status, body);
}
