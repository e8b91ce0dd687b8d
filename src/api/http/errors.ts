// The one place that turns failures into HTTP responses. Handlers throw HttpError for
// what the client did wrong; anything else is a 503 (database unreachable) or a 500
// whose cause is logged, never sent.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DatabaseError } from '../../db/types.ts';
import type { Logger } from '../../internal/logger.ts';
import { sendJson } from './respond.ts';

export interface ErrorDetail {
  parameter?: string;
  message: string;
  [key: string]: unknown;
}

export class HttpError extends Error {
  override name = 'HttpError';
  constructor(
    readonly status: number,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers: Record<string, string | number> = {},
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details: ErrorDetail[]) => new HttpError(400, message, details);
export const notFound = (message: string) => new HttpError(404, message);

export function createErrorHandler(logger: Logger) {
  return (err: unknown, req: IncomingMessage, res: ServerResponse) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof HttpError) {
      return sendJson(res, err.status, err.details ? { error: err.message, details: err.details } : { error: err.message }, err.headers);
    }
    const requestId = randomUUID();
    if (err instanceof DatabaseError && err.unavailable) {
      logger.warn({ request_id: requestId, method: req.method, url: req.url, err: err.message }, 'Request failed: database unavailable');
      return sendJson(res, 503, { error: 'Service unavailable: the database cannot be reached', request_id: requestId }, { 'Retry-After': 5 });
    }
    logger.error({ request_id: requestId, method: req.method, url: req.url, err }, 'Request failed');
    sendJson(res, 500, { error: 'Internal server error', request_id: requestId });
  };
}

/** 404 for routes that do not exist, as JSON like every other answer. */
export function notFoundHandler(req: IncomingMessage, res: ServerResponse) {
  sendJson(res, 404, { error: 'Not found', details: [{ message: `no route ${req.method} ${(req.url ?? '').split('?')[0]}` }] });
}
