// Hashes of CometBFT blocks: the RFC 6962 merkle tree CometBFT uses (merkle.HashFromByteSlices)
// for data and results hashes, and the header hash.
import { sha256 } from '@cosmjs/crypto';

const LEAF_PREFIX = new Uint8Array([0]);
const INNER_PREFIX = new Uint8Array([1]);

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

/** The largest power of two strictly less than n (n ≥ 2). */
function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

export function merkleRoot(items: readonly Uint8Array[]): Uint8Array {
  if (items.length === 0) return sha256(new Uint8Array());
  const hashLevel = (from: number, to: number): Uint8Array => {
    if (to - from === 1) return sha256(concat(LEAF_PREFIX, items[from]!));
    const k = splitPoint(to - from);
    return sha256(concat(INNER_PREFIX, hashLevel(from, from + k), hashLevel(from + k, to)));
  };
  return hashLevel(0, items.length);
}

export { concat as concatBytes };
