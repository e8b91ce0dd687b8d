// Gzip for JSON answers: which clients take it, which answers are worth it, and each kept
// answer compressed once, however many requests share it.
import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import Negotiator from 'negotiator';
import { ownBytes } from '../../internal/bytes.ts';
import { sizedGzip } from '../../internal/sized-zlib.ts';

/** Smaller bodies are sent as they are (their gzip would save less than its headers and time cost). */
export const GZIP_MIN_BYTES = 1024;

/**
 * Level 1: within ~10% of level 6's size for this JSON, at a fraction of its time (~15 µs
 * for a 7 kB tx, zlib's state sized to it).
 */
const GZIP_LEVEL = 1;
const gzipOnLoop = sizedGzip(GZIP_LEVEL);
/** Off the loop, zlib hands its output back a chunk at a time: 64 KiB chunks take a 1.2 MB block's gzip in 6 instead of 21. */
const GZIP_OFF_LOOP_OPTIONS: zlib.ZlibOptions = { level: GZIP_LEVEL, chunkSize: 64 * 1024 };
const gzipOffLoop = promisify<zlib.InputType, zlib.ZlibOptions, Buffer>(zlib.gzip);

/**
 * Bodies up to this size are compressed on the event loop, larger ones on libuv's threads.
 * Handing a body to a thread costs ~25–130 µs of CPU more than compressing it on the loop
 * (the stream, the thread's wake-up, the callback): more than the compression itself for a
 * 7 kB tx (~15 µs) or a block of 20 txs (28.5 kB, ~60 µs on the loop, 85–140 µs handed off),
 * and under load that CPU is what the answers of other requests wait for. At 64 KiB the loop
 * is held ~0.1 ms (a block of 46 txs, 60 kB, mostly base64: 103 µs on the loop, 233 µs
 * handed off); a 1.2 MB block (~2.5 ms) goes to a thread. README "Measured on both
 * databases": random blocks of 20 txs at ~1.2 times the requests a second of a 16 KiB limit.
 */
export const GZIP_ON_LOOP_MAX_BYTES = 64 * 1024;

/** Whether the request takes `Content-Encoding: gzip` (Accept-Encoding, q-values heeded). */
export function acceptsGzip(req: IncomingMessage): boolean {
  if (!req.headers['accept-encoding']) return false;
  return new Negotiator(req).encoding(['gzip', 'identity']) === 'gzip';
}

/** The gzip of each body being or once compressed, for as long as the body itself is kept. */
const compressed = new WeakMap<Buffer, Promise<Buffer>>();

async function gzipOf(body: Buffer): Promise<Buffer> {
  return ownBytes(
    body.length > GZIP_ON_LOOP_MAX_BYTES ? await gzipOffLoop(body, GZIP_OFF_LOOP_OPTIONS) : gzipOnLoop(body),
  );
}

/**
 * The gzip of `body`: compressed the first time, then the same bytes for every request
 * sent this Buffer (a cached answer) while it is kept. A failed compression is forgotten
 * (the next request tries again) and rejects.
 */
function gzipOnce(body: Buffer): Promise<Buffer> {
  let pending = compressed.get(body);
  if (!pending) {
    pending = gzipOf(body);
    pending.catch(() => compressed.delete(body));
    compressed.set(body, pending);
  }
  return pending;
}

/**
 * gzipOnce, or undefined when zlib failed (out of memory): the answer is then sent as it is.
 * The gzip is bytes of its own, its length all the memory it holds.
 */
export function gzipOrAsIs(body: Buffer): Promise<Buffer | undefined> {
  return gzipOnce(body).catch(() => undefined);
}
