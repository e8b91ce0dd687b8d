// Reads a block from the node's two answers (`block` and `block_results`): parsing them and
// taking the txs apart costs ~100 µs of CPU a tx, ~0.1 s for a full block and more for an
// epoch block of megabytes. Blocks whose answers come to 256 KiB or more are read on a worker
// thread, so the indexer's thread meanwhile writes the batch before (a backfill's reading and
// writing overlap) and answers the API's requests; small ones (a live block) are read where
// they are, without the trip. The answers are copied to the worker (a millisecond for a full
// block), so a worker that fails leaves its blocks to be read here; one that cannot start at
// all leaves every block to this thread.
import { Worker } from 'node:worker_threads';
import { NodeError } from '../chain/errors.ts';
import { answerFailure } from '../chain/rpc-client.ts';
import type { BlockRequest } from './block-worker.ts';
import { BlockShapeError } from './errors.ts';
import { type BlockInput, type FetchedBlock, type ReadOutcome, readBlockAnswers } from './shape-block.ts';

/** Blocks whose two answers come to this size go to the worker (a block of ~60 launchpad trades). */
export const WORKER_FROM_BYTES = 256 * 1024;

/**
 * The worker's young generation. A full block's results parse into tens of megabytes of
 * objects that live until the block is shaped; in V8's default young generation every
 * scavenge copied them (~16 µs of CPU a tx). With room for a block's objects it is ~7 µs.
 * This is the most the worker's young generation takes, not what it holds at rest.
 */
const WORKER_YOUNG_GENERATION_MB = 192;

type Pending = { block: Buffer; results: Buffer; input: BlockInput; resolve: (outcome: ReadOutcome) => void };

interface BlockWorker {
  thread: Worker;
  pending: Map<number, Pending>;
  answered: boolean;
  stopping: boolean;
}

/** One worker for the process, started by the first large block, not keeping the process alive. */
let worker: BlockWorker | undefined;
/** Set when a worker failed before its first answer (it cannot start here): blocks are read inline. */
let inlineOnly = false;
let nextId = 0;
let workerReads = 0;

/** How many blocks the worker has read in this process (for the indexer's tests). */
export const blocksReadInWorker = () => workerReads;

/** Ends the worker; the blocks it was reading are read on this thread instead. */
export async function stopBlockWorker(): Promise<void> {
  const current = worker;
  if (!current) return;
  current.stopping = true;
  await current.thread.terminate();
}

function startWorker(): BlockWorker {
  const thread = new Worker(new URL('./block-worker.mjs', import.meta.url), {
    execArgv: [],
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
  const state: BlockWorker = { thread, pending: new Map(), answered: false, stopping: false };
  // a worker that fails or ends leaves its blocks to this thread: their answers were copied to it, not moved
  const fail = () => {
    if (worker === state) worker = undefined;
    // a message it could not take (messageerror) leaves it running: ended, it keeps nothing alive
    thread.unref();
    void thread.terminate();
    if (!state.answered && !state.stopping) inlineOnly = true;
    const left = [...state.pending.values()];
    state.pending.clear();
    for (const p of left) readBlockAnswers(p.block, p.results, p.input).then(p.resolve);
  };
  thread.on('message', ({ id, outcome }: { id: number; outcome: ReadOutcome }) => {
    const p = state.pending.get(id);
    state.pending.delete(id);
    state.answered = true;
    workerReads++;
    p?.resolve(outcome);
    if (state.pending.size === 0) thread.unref();
  });
  thread.on('messageerror', fail);
  thread.on('error', fail);
  thread.on('exit', fail);
  thread.unref();
  return state;
}

function inWorker(block: Buffer, results: Buffer, input: BlockInput): Promise<ReadOutcome> {
  worker ??= startWorker();
  const { thread, pending } = worker;
  const id = ++nextId;
  const request: BlockRequest = { id, block, results, input };
  return new Promise<ReadOutcome>((resolve) => {
    try {
      thread.postMessage(request);
    } catch {
      resolve(readBlockAnswers(block, results, input));
      return;
    }
    pending.set(id, { block, results, input, resolve });
    thread.ref(); // answers are awaited: the process stays up for them
  });
}

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
    block.byteLength + results.byteLength >= workerFromBytes && !inlineOnly
      ? await inWorker(block, results, input)
      : await readBlockAnswers(block, results, input);
  if ('answer' in outcome) throw answerFailure(outcome.method, outcome.answer);
  if ('undecodable' in outcome) throw new NodeError(`block ${input.height}: ${outcome.undecodable}`);
  if ('misfit' in outcome) throw new BlockShapeError(`block ${input.height}: ${outcome.misfit}`);
  return outcome.shaped;
}
