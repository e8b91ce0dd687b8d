// The block worker's thread (src/indexer/read-block.ts): reads each block's two answers it
// is sent and posts back what they come to (src/indexer/shape-block.ts).
import { serialize } from 'node:v8';
import { parentPort } from 'node:worker_threads';
import { asBuffer } from '../internal/bytes.ts';
import { type BlockInput, type FetchedBlock, type ReadOutcome, readBlockAnswers } from './shape-block.ts';

/** A worker's answer: a failure as it is, or a shaped block with its contract events serialized. */
export type WorkerOutcome =
  | Exclude<ReadOutcome, { shaped: FetchedBlock }>
  | { shapedWithoutEvents: FetchedBlock; events: Uint8Array };

export interface BlockRequest {
  id: number;
  block: Uint8Array;
  results: Uint8Array;
  input: BlockInput;
}

/**
 * What a block's reading is posted back as. A shaped block's decoded contract events go
 * serialized, in a buffer of their own: the indexer's thread makes their objects only if it
 * reads them (the live indexer's feed rows; a backfill writes the block's trade rows and
 * token changes instead), not on arrival (src/indexer/read-block.ts). That buffer and the
 * encoded rows are moved, not copied.
 */
function answerOf(outcome: ReadOutcome): { outcome: WorkerOutcome; moved: ArrayBuffer[] } {
  if (!('shaped' in outcome)) return { outcome, moved: [] };
  const { shaped } = outcome;
  const events = serialize(shaped.decoded.events);
  const shapedWithoutEvents = { ...shaped, decoded: { ...shaped.decoded, events: [] } };
  const { txs, hashes, attributes, trades } = shaped.rows;
  const moved = [...txs.pieces, ...hashes.pieces, ...trades.pieces, attributes.refs, events].map(
    (view) => view.buffer as ArrayBuffer,
  );
  return { outcome: { shapedWithoutEvents, events }, moved };
}

parentPort?.on('message', async ({ id, block, results, input }: BlockRequest) => {
  const { outcome, moved } = answerOf(await readBlockAnswers(asBuffer(block), asBuffer(results), input));
  parentPort?.postMessage({ id, outcome }, moved);
});
