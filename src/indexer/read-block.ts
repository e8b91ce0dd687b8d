// Reads a block from the node's two answers (`block` and `block_results`): parsing them and
// taking the txs apart costs ~100 µs of CPU a tx, ~0.1 s for a full block and more for an
// epoch block of megabytes. Blocks whose answers come to 256 KiB or more are read on a worker
// thread, so the indexer's thread meanwhile writes the batch before (a backfill's reading and
// writing overlap) and answers the API's requests; small ones (a live block) are read where
// they are, without the trip.
import { Worker } from 'node:worker_threads';
import { NodeError } from '../chain/errors.ts';
import { answerFailure } from '../chain/rpc-client.ts';
import type { BlockRequest } from './block-worker.ts';
import { BlockShapeError } from './errors.ts';
import { type BlockInput, type FetchedBlock, type ReadOutcome, readBlockAnswers } from './shape-block.ts';

/** Blocks whose two answers come to this size go to the worker (a block of ~60 launchpad trades). */
export const WORKER_FROM_BYTES = 256 * 1024;

type Pending = { resolve: (outcome: ReadOutcome) => void; reject: (error: Error) => void };

/** One worker for the process, started by the first large block, not keeping the process alive. */
let worker: { thread: Worker; pending: Map<number, Pending> } | undefined;
let nextId = 0;
let workerReads = 0;

/** How many blocks the worker has read in this process (for the indexer's tests). */
export const blocksReadInWorker = () => workerReads;

function startWorker() {
  const thread = new Worker(new URL('./block-worker.mjs', import.meta.url), { execArgv: [] });
  const pending = new Map<number, Pending>();
  const state = { thread, pending };
  const fail = (error: Error) => {
    if (worker === state) worker = undefined;
    for (const p of pending.values()) p.reject(error);
    pending.clear();
  };
  thread.on('message', ({ id, outcome }: { id: number; outcome: ReadOutcome }) => {
    const p = pending.get(id);
    pending.delete(id);
    workerReads++;
    p?.resolve(outcome);
    if (pending.size === 0) thread.unref();
  });
  thread.on('error', (error) => fail(new Error(`the block worker failed: ${error.message}`, { cause: error })));
  thread.on('exit', (code) => fail(new Error(`the block worker exited with code ${code}`)));
  thread.unref();
  return state;
}

/** A body's memory moves to the worker when it is all its own (large bodies are); else a copy goes. */
const movable = (body: Buffer): ArrayBuffer[] =>
  body.byteOffset === 0 && body.byteLength === body.buffer.byteLength ? [body.buffer as ArrayBuffer] : [];

function inWorker(block: Buffer, results: Buffer, input: BlockInput): Promise<ReadOutcome> {
  worker ??= startWorker();
  const { thread, pending } = worker;
  const id = ++nextId;
  const request: BlockRequest = { id, block, results, input };
  return new Promise<ReadOutcome>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    thread.ref(); // answers are awaited: the process stays up for them
    thread.postMessage(request, [...movable(block), ...movable(results)]);
  });
}

const asBuffer = (u: Uint8Array) => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));

/**
 * A block read from its two answers: shaped, or the typed failure an answer means
 * (src/chain/errors.ts), a NodeError for a block cosmjs cannot decode, or a BlockShapeError
 * when the block and its results do not fit together.
 */
export async function readBlock(
  block: Buffer,
  results: Buffer,
  input: BlockInput,
  workerFromBytes = WORKER_FROM_BYTES,
): Promise<FetchedBlock> {
  const outcome =
    block.byteLength + results.byteLength >= workerFromBytes
      ? await inWorker(block, results, input)
      : await readBlockAnswers(block, results, input);
  if ('answer' in outcome) throw answerFailure(outcome.method, outcome.answer);
  if ('undecodable' in outcome) throw new NodeError(`block ${input.height}: ${outcome.undecodable}`);
  if ('misfit' in outcome) throw new BlockShapeError(`block ${input.height}: ${outcome.misfit}`);
  const { shaped } = outcome;
  // bytes come back from the worker as Uint8Arrays: Buffers again, as the rest of the indexer has them
  for (const tx of shaped.txs) {
    tx.packedEvents = asBuffer(tx.packedEvents);
    if (tx.log.packed) tx.log.packed = asBuffer(tx.log.packed);
  }
  return shaped;
}
