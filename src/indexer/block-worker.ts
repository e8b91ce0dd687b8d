// The block worker's thread (src/indexer/read-block.ts): reads each block's two answers it
// is sent and posts back what they come to (src/indexer/shape-block.ts).
import { parentPort } from 'node:worker_threads';
import { asBuffer } from '../internal/bytes.ts';
import { type BlockInput, type ReadOutcome, readBlockAnswers } from './shape-block.ts';

export interface BlockRequest {
  id: number;
  block: Uint8Array;
  results: Uint8Array;
  input: BlockInput;
}

/**
 * Moves a shaped block's bytes (each tx's protobuf, packed events and packed log) into one
 * buffer, each field a view of it, and returns that buffer to be transferred with the answer.
 * A full block's 1,000 protobufs were each an ArrayBuffer of its own, copied into the message
 * and allocated again on the indexer's thread one by one; now the thread takes them whole.
 */
function gatherBytes(outcome: ReadOutcome): ArrayBuffer[] {
  if (!('shaped' in outcome)) return [];
  const { txs } = outcome.shaped;
  let size = 0;
  for (const t of txs) size += t.bytes.byteLength + t.packedEvents.byteLength + (t.log.packed?.byteLength ?? 0);
  const all = Buffer.from(new ArrayBuffer(size));
  let at = 0;
  const moved = (bytes: Uint8Array): Buffer => {
    all.set(bytes, at);
    at += bytes.byteLength;
    return all.subarray(at - bytes.byteLength, at);
  };
  for (const t of txs) {
    t.bytes = moved(t.bytes);
    t.packedEvents = moved(t.packedEvents);
    if (t.log.packed) t.log.packed = moved(t.log.packed);
  }
  return [all.buffer as ArrayBuffer];
}

parentPort?.on('message', async ({ id, block, results, input }: BlockRequest) => {
  const outcome = await readBlockAnswers(asBuffer(block), asBuffer(results), input);
  parentPort?.postMessage({ id, outcome }, gatherBytes(outcome));
});
