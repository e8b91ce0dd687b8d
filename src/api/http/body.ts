// Reading a request body with a size limit: a body past the limit is refused as soon as
// its length says so (Content-Length) or its bytes pass it, never buffered whole.
import type { IncomingMessage } from 'node:http';
import { ServiceError } from '../../internal/errors.ts';

/**
 * The largest request body: CometBFT's default max_tx_bytes (1 MiB) in base64 is 1.4 MB, so
 * every transaction a node with default settings accepts fits, with room for the JSON around it.
 */
export const BODY_LIMIT_BYTES = 2 * 1024 * 1024;

export class BodyTooLargeError extends ServiceError {
  override name = 'BodyTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`the request body is larger than ${limitBytes} bytes`);
  }
}

/** The body's bytes; rejects with BodyTooLargeError past `limitBytes`. */
export async function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limitBytes) {
    req.resume(); // drain what arrives, so the answer can be read
    throw new BodyTooLargeError(limitBytes);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limitBytes) {
      req.resume();
      throw new BodyTooLargeError(limitBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
