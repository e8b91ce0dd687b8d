// Writing JSON responses: one content type, CORS for browsers, explicit length; answers kept
// in a cache gzipped to clients that take it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { acceptsGzip, GZIP_MIN_BYTES, gzipOrAsIs } from './compress.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Public read endpoints answer any origin (no credentials exist to protect). */
export const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'ETag, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After',
} as const;

/** Sends an already-serialized JSON body: text, or its bytes (cached responses are kept as bytes). */
export function sendJsonText(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Record<string, string | number> = {},
): void {
  res.writeHead(status, {
    ...CORS_HEADERS,
    'Content-Type': JSON_TYPE,
    'Content-Length': typeof body === 'string' ? Buffer.byteLength(body) : body.length,
    ...headers,
  });
  res.end(body);
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string | number> = {},
): void {
  sendJsonText(res, status, JSON.stringify(body), headers);
}

/**
 * Sends a JSON answer's bytes, gzipped to a client that takes gzip, from 1 KiB
 * (`Vary: Accept-Encoding` on both forms then). An answer kept as bytes in a cache (the same
 * Buffer for every request while it is kept) is compressed once for all of them: compression
 * then costs memory beside the cache's budget while the answer is kept, a seventh to a fifth
 * of its bytes. An answer made for one request is compressed for it.
 */
export async function sendJsonBytes(
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  headers: Record<string, string | number> = {},
): Promise<void> {
  if (body.length < GZIP_MIN_BYTES) return sendJsonText(res, 200, body, headers);
  const gzip = acceptsGzip(req) ? await gzipOrAsIs(body) : undefined;
  sendJsonText(res, 200, gzip ?? body, {
    Vary: 'Accept-Encoding',
    ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
    ...headers,
  });
}
