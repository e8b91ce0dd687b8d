// Gzip for JSON answers: which clients take it, which answers are worth it, and each kept
// answer compressed once, off the event loop, however many requests share it.
import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import Negotiator from 'negotiator';

/** Smaller bodies are sent as they are (their gzip would save less than its headers and time cost). */
export const GZIP_MIN_BYTES = 1024;

/**
 * Level 1: within ~10% of level 6's size for this JSON, at ~80% of its time (~70 µs for a
 * 7 kB tx). Compressed on libuv's threads, off the event loop, which then spends ~35 µs on a
 * 7 kB tx instead of ~70, and nothing while a 1.2 MB block is compressed.
 */
const GZIP_OPTIONS: zlib.ZlibOptions = { level: 1 };
const gzipOffLoop = promisify<zlib.InputType, zlib.ZlibOptions, Buffer>(zlib.gzip);

/** Whether the request takes `Content-Encoding: gzip` (Accept-Encoding, q-values heeded). */
export function acceptsGzip(req: IncomingMessage): boolean {
  if (!req.headers['accept-encoding']) return false;
  return new Negotiator(req).encoding(['gzip', 'identity']) === 'gzip';
}

/** The gzip of each body being or once compressed, for as long as the body itself is kept. */
const compressed = new WeakMap<Buffer, Promise<Buffer>>();

/**
 * The gzip of `body`: compressed the first time, then the same bytes for every request
 * sent this Buffer (a cached answer) while it is kept. A failed compression is forgotten
 * (the next request tries again) and rejects.
 */
function gzipOnce(body: Buffer): Promise<Buffer> {
  let pending = compressed.get(body);
  if (!pending) {
    pending = gzipOffLoop(body, GZIP_OPTIONS);
    pending.catch(() => compressed.delete(body));
    compressed.set(body, pending);
  }
  return pending;
}

/** gzipOnce, or undefined when zlib failed (out of memory): the answer is then sent as it is. */
export function gzipOrAsIs(body: Buffer): Promise<Buffer | undefined> {
  return gzipOnce(body).catch(() => undefined);
}
