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
 * The buffers a shaped block's answer moves to the indexer's thread instead of copying: its
 * encoded rows (src/indexer/chain-rows.ts), each in a buffer of its own.
 */
function movedBuffers(outcome: ReadOutcome): ArrayBuffer[] {
  if (!('shaped' in outcome)) return [];
  const { txs, hashes, attributes } = outcome.shaped.rows;
  return [...txs.pieces, ...hashes.pieces, attributes.refs].map((view) => view.buffer as ArrayBuffer);
}

parentPort?.on('message', async ({ id, block, results, input }: BlockRequest) => {
  const outcome = await readBlockAnswers(asBuffer(block), asBuffer(results), input);
  parentPort?.postMessage({ id, outcome }, movedBuffers(outcome));
});
