// Reads a block's results: parsing a `block_results` answer and taking its txs apart costs
// ~100 µs of CPU a tx, tens of milliseconds for a full block and more for an epoch block of
// megabytes. Large answers are read on a worker thread, so the indexer's thread meanwhile
// writes the batch before (a backfill's reading and writing overlap) and the API's requests
// are answered; small ones (a live block) are read where they are, without the trip.
import { Worker } from 'node:worker_threads';
import { answerFailure } from '../chain/rpc-client.ts';
import { BlockShapeError } from './errors.ts';
import type { ResultsRequest } from './results-worker.ts';
import { type ReadOutcome, type ResultsInput, readResultsBody, type ShapedResults } from './shape-results.ts';

/** Answers from this size on go to the worker (a block of ~60 launchpad trades). */
export const WORKER_FROM_BYTES = 256 * 1024;

type Pending = { resolve: (outcome: ReadOutcome) => void; reject: (error: Error) => void };

/** One worker for the process, started by the first large answer, not keeping the process alive. */
let worker: { thread: Worker; pending: Map<number, Pending> } | undefined;
let nextId = 0;
let workerReads = 0;

/** How many answers the worker has read in this process (for the indexer's tests). */
export const resultsReadInWorker = () => workerReads;

function startWorker() {
  const thread = new Worker(new URL('./results-worker.mjs', import.meta.url), { execArgv: [] });
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
  thread.on('error', (error) => fail(new Error(`the results worker failed: ${error.message}`, { cause: error })));
  thread.on('exit', (code) => fail(new Error(`the results worker exited with code ${code}`)));
  thread.unref();
  return state;
}

function inWorker(body: Buffer, input: ResultsInput): Promise<ReadOutcome> {
  worker ??= startWorker();
  const { thread, pending } = worker;
  const id = ++nextId;
  // the body's memory moves to the worker when it is all its own (large bodies are), else a copy goes
  const owned = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
  const request: ResultsRequest = { id, body, input };
  return new Promise<ReadOutcome>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    thread.ref(); // answers are awaited: the process stays up for them
    thread.postMessage(request, owned ? [body.buffer as ArrayBuffer] : []);
  });
}

const asBuffer = (u: Uint8Array) => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));

/**
 * A block's `block_results` body read: its txs shaped, or the typed failure the answer means
 * (src/chain/errors.ts), or a BlockShapeError when the results do not fit the block.
 */
export async function readResults(
  body: Buffer,
  input: ResultsInput,
  workerFromBytes = WORKER_FROM_BYTES,
): Promise<ShapedResults> {
  const outcome = body.byteLength >= workerFromBytes ? await inWorker(body, input) : readResultsBody(body, input);
  if ('answer' in outcome) throw answerFailure('block_results', outcome.answer);
  if ('misfit' in outcome) throw new BlockShapeError(`block ${input.height}: ${outcome.misfit}`);
  const { shaped } = outcome;
  // bytes come back from the worker as Uint8Arrays: Buffers again, as the rest of the indexer has them
  for (const tx of shaped.txs) {
    tx.packedEvents = asBuffer(tx.packedEvents);
    if (tx.log.packed) tx.log.packed = asBuffer(tx.log.packed);
  }
  return shaped;
}
