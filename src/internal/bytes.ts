// Bytes as Buffers: a view of any Uint8Array (what a worker's message or a driver hands
// back), and bytes of their own for what is kept.

/** The same bytes as a Buffer (a view, nothing copied). */
export const asBuffer = (u: Uint8Array): Buffer =>
  Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength);

/**
 * Bytes of their own, for bytes that are kept: zlib's output is a view of its output chunk
 * (16 KiB for a sync call), so a kept 1.3 kB gzip held 16 KiB, twelve times what a cache
 * counts for it, and a Buffer under 4 KiB made from a string is a view of Node's shared 8 KiB
 * pool, which one kept answer pins. Text is encoded; a view is copied into an allocation of
 * its own size; bytes that are their whole allocation already are returned as they are.
 */
export function ownBytes(bytes: Buffer | string): Buffer {
  const buffer = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  if (buffer.byteOffset === 0 && buffer.length === buffer.buffer.byteLength) return buffer;
  const own = Buffer.allocUnsafeSlow(buffer.length);
  buffer.copy(own);
  return own;
}
