// The block worker's thread (src/indexer/read-block.ts): reads each block's two answers it
// is sent and posts back what they come to (src/indexer/shape-block.ts).
import { parentPort } from 'node:worker_threads';
import { asBuffer } from '../internal/bytes.ts';
import { type BlockInput, readBlockAnswers } from './shape-block.ts';

export interface BlockRequest {
  id: number;
  block: Uint8Array;
  results: Uint8Array;
  input: BlockInput;
}

parentPort?.on('message', async ({ id, block, results, input }: BlockRequest) => {
  const outcome = await readBlockAnswers(asBuffer(block), asBuffer(results), input);
  parentPort?.postMessage({ id, outcome });
});
