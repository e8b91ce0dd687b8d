// Serving a Polka app: the Node server around it, parser-level errors answered as JSON in
// the API's style, and a stop that lets requests in flight finish.
import http from 'node:http';
import type { Polka, Request } from 'polka';
import { answerClientError, answerConnect, type ErrorStyle, type NoRoute } from './errors.ts';
import { listenOn } from './listen.ts';

/** How long a stopping server waits for requests in flight before closing their connections. */
const CLOSE_GRACE_MS = 10_000;

export interface ServeOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  style: ErrorStyle;
  noRoute: NoRoute;
  /**
   * How long a request may take to arrive, headers and body (default 60 s); a request still
   * arriving then is answered 408 and its connection closed; 0 for no limit. It bounds the
   * request, never the answer: an SSE stream lives for hours.
   */
  requestTimeoutMs?: number;
}

export interface Served {
  url: string;
  /**
   * Stops taking connections, runs `beforeDrain` (e.g. ending long-lived streams), lets
   * requests in flight finish (at most CLOSE_GRACE_MS), then closes what is left.
   */
  close(beforeDrain?: () => Promise<void>): Promise<void>;
}

/** The default of ServeOptions.requestTimeoutMs. */
export const REQUEST_TIMEOUT_MS = 60_000;

export async function serve(app: Polka, options: ServeOptions): Promise<Served> {
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const server = http.createServer(
    {
      requestTimeout,
      headersTimeout: requestTimeout,
      // how often Node looks for requests past their time: a few times within it
      connectionsCheckingInterval:
        requestTimeout > 0 ? Math.max(100, Math.min(30_000, Math.floor(requestTimeout / 4))) : 30_000,
    },
    (req, res) => void app.handler(req as Request, res, undefined as never),
  );
  server.on('clientError', (err, socket) => answerClientError(err, socket, options.style));
  server.on('connect', (req, socket) => answerConnect(req, socket, options.noRoute));
  const url = await listenOn(server, options.host, options.port);
  return {
    url,
    async close(beforeDrain) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await beforeDrain?.();
      const timer = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
      await closed;
      clearTimeout(timer);
    },
  };
}
