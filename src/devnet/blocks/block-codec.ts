// Binary form of a committed block for the on-disk block log: a small JSON header (hashes
// in hex; the block's own contract calls and their events, when it made any) followed by the
// packed tx bytes, their offsets and the deflated results.
import { fromHex, toHex } from '@cosmjs/encoding';
import { type BlockEvents, type BlockHeader, type CommittedBlock, NO_BLOCK_EVENTS } from './block.ts';

const HASH_FIELDS = [
  'lastBlockHash',
  'lastPartsHash',
  'lastCommitHash',
  'dataHash',
  'validatorsHash',
  'consensusHash',
  'appHash',
  'lastResultsHash',
  'evidenceHash',
  'proposerAddress',
] as const;

export function encodeBlock(block: CommittedBlock): Uint8Array {
  const meta: Record<string, string | number> = {
    chainId: block.header.chainId,
    height: block.header.height,
    timeNs: block.header.timeNs.toString(),
    hash: toHex(block.hash),
    partsHash: toHex(block.partsHash),
    txCount: block.txCount,
    resultsLength: block.resultsLength,
  };
  for (const field of HASH_FIELDS) meta[field] = toHex(block.header[field]);
  const withCalls: Record<string, unknown> = meta;
  if (block.calls.length) withCalls.calls = block.calls;
  if (block.blockEvents.begin.length || block.blockEvents.end.length) withCalls.blockEvents = block.blockEvents;
  const metaBytes = Buffer.from(JSON.stringify(meta));
  const offsets = Buffer.from(block.txOffsets.buffer, block.txOffsets.byteOffset, block.txOffsets.byteLength);
  const out = Buffer.allocUnsafe(12 + metaBytes.length + offsets.length + block.txData.length + block.results.length);
  let at = 0;
  out.writeUInt32LE(metaBytes.length, at);
  at = 4 + metaBytes.copy(out, 4);
  at += Buffer.from(offsets).copy(out, at);
  out.writeUInt32LE(block.txData.length, at);
  at += 4;
  at += Buffer.from(block.txData.buffer, block.txData.byteOffset, block.txData.byteLength).copy(out, at);
  out.writeUInt32LE(block.results.length, at);
  at += 4;
  Buffer.from(block.results.buffer, block.results.byteOffset, block.results.byteLength).copy(out, at);
  return out;
}

/** The block in `bytes`, which it keeps: its tx bytes and results are views of them, not copies. */
export function decodeBlock(bytes: Uint8Array): CommittedBlock {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const metaLength = buf.readUInt32LE(0);
  const meta = JSON.parse(buf.subarray(4, 4 + metaLength).toString('utf8'));
  let at = 4 + metaLength;
  const txCount = meta.txCount as number;
  const txOffsets = new Uint32Array(txCount + 1);
  Buffer.from(txOffsets.buffer).set(buf.subarray(at, at + txOffsets.byteLength));
  at += txOffsets.byteLength;
  const txLength = buf.readUInt32LE(at);
  at += 4;
  const txData = buf.subarray(at, at + txLength);
  at += txLength;
  const resultsLength = buf.readUInt32LE(at);
  at += 4;
  const results = buf.subarray(at, at + resultsLength);
  const header = { chainId: meta.chainId, height: meta.height, timeNs: BigInt(meta.timeNs) } as BlockHeader;
  for (const field of HASH_FIELDS) header[field] = fromHex(meta[field]);
  return {
    header,
    hash: fromHex(meta.hash),
    partsHash: fromHex(meta.partsHash),
    txCount,
    txBytes: txData.length,
    txData,
    txOffsets,
    results,
    resultsLength: (meta.resultsLength as number | undefined) ?? 0,
    calls: meta.calls ?? [],
    blockEvents: (meta.blockEvents as BlockEvents | undefined) ?? NO_BLOCK_EVENTS,
  };
}
