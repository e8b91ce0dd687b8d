// Writing JSON responses: one content type, CORS for browsers, explicit length.
import type { ServerResponse } from 'node:http';

export const JSON_TYPE = 'application/json; charset=utf-8';

/** Public read endpoints answer any origin (no credentials exist to protect). */
export const CORS_HEADERS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': 'X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After',
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
