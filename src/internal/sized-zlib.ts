// One-shot DEFLATE, gzip and inflate of small inputs (a tx's events or log, a tx's answer: a
// few kB), with zlib's state and output buffer sized to the input. zlib's defaults suit streams: each sync
// call allocates ~270 KiB of state (64 KiB of it zeroed) and a 16 KiB output chunk, all of it
// external memory that V8 counts towards its next collection. Packing a block's 1,000 txs
// made ~16 MiB of output chunks alone, and the block worker collected every other block
// for "external memory pressure" while the block's parsed results were still live. What is
// written is the same format whatever the window: any inflater reads it.
import zlib from 'node:zlib';

/** The smallest window zlib's raw DEFLATE takes (8 is refused for raw streams), and its largest. */
const MIN_WINDOW_BITS = 9;
const MAX_WINDOW_BITS = 15;
/** zlib's default output chunk, the most either function asks for. */
const MAX_CHUNK = 16 * 1024;
const MIN_CHUNK = 1024;

/** ⌈log2(n)⌉ for n ≥ 1. */
const bitsFor = (n: number) => 32 - Math.clz32(Math.max(1, n) - 1);

type OneShot = (input: string | Buffer, options: zlib.ZlibOptions) => Buffer;

/**
 * `oneShot` (zlib's deflateRawSync or gzipSync) at `level` against `dictionary` (if any), with
 * a window that holds the dictionary and the input (no larger), a hash table for that much,
 * and an output chunk of half that (JSON deflates to a fifth of itself or less; more output
 * is simply more chunks). A string is sized by its length, which is its bytes for ASCII and
 * fewer otherwise: a window too small only finds fewer matches.
 */
function sized(oneShot: OneShot, level: number, dictionary?: Buffer): (input: string | Buffer) => Buffer {
  const dictionaryBytes = dictionary?.length ?? 0;
  const byBits: zlib.ZlibOptions[] = [];
  for (let bits = 0; bits <= MAX_WINDOW_BITS; bits++) {
    const windowBits = Math.min(MAX_WINDOW_BITS, Math.max(MIN_WINDOW_BITS, bits));
    byBits.push({
      level,
      windowBits,
      // zlib's hash table has 2^(memLevel + 7) entries: one per byte of the window at most
      memLevel: Math.min(8, Math.max(1, windowBits - 7)),
      chunkSize: Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, 2 ** (bits - 1))),
      ...(dictionary ? { dictionary } : {}),
    });
  }
  return (input) => oneShot(input, byBits[Math.min(MAX_WINDOW_BITS, bitsFor(dictionaryBytes + input.length))]!);
}

/** zlib.deflateRawSync, sized to each input (`sized`). */
export const sizedDeflateRaw = (level: number, dictionary?: Buffer) => sized(zlib.deflateRawSync, level, dictionary);

/** zlib.gzipSync, sized to each input (`sized`): for answers of a few kB compressed on the event loop. */
export const sizedGzip = (level: number) => sized(zlib.gzipSync, level);

/**
 * zlib.inflateRawSync of `packed` (against `dictionary`, if any), its output chunk eight times
 * the packed bytes (events deflate to a fifth or less; text that deflated better takes a few
 * chunks) instead of 16 KiB.
 */
export function sizedInflateRaw(packed: Uint8Array, dictionary?: Buffer): Buffer {
  const chunkSize = Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, 2 ** bitsFor(packed.length * 8)));
  return zlib.inflateRawSync(packed, dictionary ? { dictionary, chunkSize } : { chunkSize });
}
