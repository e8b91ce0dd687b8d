// Reads a block from the node's two answers (`block` and `block_results`): parsing them and
// taking the txs apart costs ~100 µs of CPU a tx, ~0.1 s for a full block and more for an
// epoch block of megabytes. Blocks whose answers come to 256 KiB or more are read on worker
// threads, so the indexer's thread meanwhile writes the batch before (a backfill's reading and
// writing overlap) and answers the API's requests; small ones (a live block) are read where
// they are, without the trip. Each block goes to the worker with the fewest blocks in hand, and
// another worker is started (up to `INDEXER_READ_THREADS`) while every running one has some: a
// backfill reads as many blocks at once as the process has threads for. The answers are moved
// to the worker when the caller can ask the node for them again (the indexer's reads; copying
// a full block's 6 MB took this thread ~3 ms), and copied otherwise: a worker that fails leaves
// its blocks to be read here, from answers asked for again or from the copies kept. One that
// cannot start at all leaves every block to this thread.
import { availableParallelism } from 'node:os';
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

/** A block on the worker: how to read it here if the worker fails, and where its outcome goes. */
type Pending = {
  readHere: () => Promise<ReadOutcome>;
  resolve: (outcome: ReadOutcome) => void;
  reject: (error: unknown) => void;
};

/** The node's two answers of a block, asked for again (its first ones were moved to the worker). */
export type ReadAgain = () => Promise<[block: Buffer, results: Buffer]>;

export interface ReadOptions {
  /** Answers of this many bytes together go to the worker (default WORKER_FROM_BYTES). */
  workerFromBytes?: number;
  /**
   * Given, the answers are moved to the worker rather than copied (they are then empty here),
   * and a block the worker did not read is read from answers asked for again.
   */
  readAgain?: ReadAgain;
}

interface BlockWorker {
  thread: Worker;
  pending: Map<number, Pending>;
  /** Ended or ending: no block is given to it. */
  stopping: boolean;
  /** Ends it when it has been without a block for `idleMs`. */
  idle?: NodeJS.Timeout;
}

/**
 * Worker threads by default: one fewer than the cores this process may use (the indexer's
 * thread writes, and answers the APIs, beside them), at least 1 and at most 4 (each holds a
 * full block's objects, up to a few hundred MB, while it reads it).
 */
export const DEFAULT_READ_THREADS = Math.min(4, Math.max(1, availableParallelism() - 1));
let readThreads = DEFAULT_READ_THREADS;
/** A worker without a block for this long ends (its heap with it), but for the last one. */
export const WORKER_IDLE_MS = 30_000;
let idleMs = WORKER_IDLE_MS;

/**
 * Sets how many worker threads blocks are read on at most (INDEXER_READ_THREADS), and how
 * long one waits idle before it ends: set at start, before blocks are read.
 */
export function setReadThreads(threads: number, options: { idleMs?: number } = {}): void {
  if (!Number.isInteger(threads) || threads < 1)
    throw new RangeError(`read threads must be a whole number from 1: ${threads}`);
  readThreads = threads;
  idleMs = options.idleMs ?? WORKER_IDLE_MS;
}

/** How many worker threads blocks are read on at most. */
export const readThreadsAtMost = () => readThreads;

/** The process's workers, started by large blocks as needed, not keeping the process alive. */
const workers: BlockWorker[] = [];
/** Whether any worker has read a block in this process. */
let anyAnswered = false;
/** Set when a worker failed before any worker answered (they cannot start here): blocks are read inline. */
let inlineOnly = false;
let nextId = 0;
let workerReads = 0;

/** How many blocks the workers have read in this process (for the indexer's tests). */
export const blocksReadInWorker = () => workerReads;
/** The workers that take blocks: those ending not counted. */
const running = () => workers.filter((w) => !w.stopping);
/** How many workers run now, those ending not counted (for the indexer's tests). */
export const blockWorkersRunning = () => running().length;

/** Ends the workers; the blocks they were reading are read on this thread instead. */
export async function stopBlockWorkers(): Promise<void> {
  const running = [...workers];
  for (const w of running) w.stopping = true;
  await Promise.all(running.map((w) => w.thread.terminate()));
}

function startWorker(): BlockWorker {
  const thread = new Worker(new URL('./block-worker.mjs', import.meta.url), {
    execArgv: [],
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
  const state: BlockWorker = { thread, pending: new Map(), stopping: false };
  // a worker that fails or ends leaves its blocks to this thread: read from the copies kept, or
  // from answers asked for again where they were moved
  const fail = () => {
    const at = workers.indexOf(state);
    if (at >= 0) workers.splice(at, 1);
    clearTimeout(state.idle);
    // a message it could not take (messageerror) leaves it running: ended, it keeps nothing alive
    thread.unref();
    void thread.terminate();
    // one that fails where none has ever answered cannot start here; one that fails on a block
    // (a fault, out of memory) leaves the others reading, and the next block may start another
    if (!anyAnswered && !state.stopping) inlineOnly = true;
    state.stopping = true;
    const left = [...state.pending.values()];
    state.pending.clear();
    for (const p of left) p.readHere().then(p.resolve, p.reject);
  };
  thread.on('message', ({ id, outcome }: { id: number; outcome: ReadOutcome }) => {
    const p = state.pending.get(id);
    if (!p) return; // a block this thread already read, after the worker failed
    state.pending.delete(id);
    anyAnswered = true;
    workerReads++;
    p.resolve(outcome);
    if (state.pending.size > 0) return;
    thread.unref();
    state.idle = setTimeout(() => {
      // the last one stays, as a live chain's large blocks may come a minute apart
      if (state.pending.size > 0 || state.stopping || blockWorkersRunning() <= 1) return;
      state.stopping = true;
      void thread.terminate(); // its exit takes it out of the pool
    }, idleMs);
    state.idle.unref();
  });
  thread.on('messageerror', fail);
  thread.on('error', fail);
  thread.on('exit', fail);
  thread.unref();
  return state;
}

/** Whether `b` is the whole of its memory (the answers as read are), so it can be moved. */
const movable = (b: Buffer) => b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;

/**
 * The worker for the next block: the one with the fewest blocks in hand, or a new one while
 * each running one has some and there is room for another.
 */
function workerForNext(): BlockWorker {
  const live = running();
  let least: BlockWorker | undefined;
  for (const w of live) if (!least || w.pending.size < least.pending.size) least = w;
  if (least && (least.pending.size === 0 || live.length >= readThreads)) return least;
  const started = startWorker();
  workers.push(started);
  return started;
}

function inWorker(block: Buffer, results: Buffer, input: BlockInput, readAgain?: ReadAgain): Promise<ReadOutcome> {
  const chosen = workerForNext();
  clearTimeout(chosen.idle);
  const { thread, pending } = chosen;
  const id = ++nextId;
  const request: BlockRequest = { id, block, results, input };
  const move = readAgain !== undefined && movable(block) && movable(results) && block.buffer !== results.buffer;
  const readHere = move
    ? async () => {
        const [b, r] = await readAgain();
        return readBlockAnswers(b, r, input);
      }
    : () => readBlockAnswers(block, results, input);
  return new Promise<ReadOutcome>((resolve, reject) => {
    try {
      thread.postMessage(request, move ? [block.buffer as ArrayBuffer, results.buffer as ArrayBuffer] : []);
    } catch {
      // not sent (nothing was moved then): read here
      readHere().then(resolve, reject);
      return;
    }
    pending.set(id, { readHere, resolve, reject });
    thread.ref(); // answers are awaited: the process stays up for them
  });
}

/**
 * A block read from its two answers: shaped, or the typed failure an answer means
 * (src/chain/errors.ts), a NodeError for a block cosmjs cannot decode, or a BlockShapeError
 * when the block and its results do not fit together; or, where the worker failed and the
 * answers were asked for again, that call's failure.
 */
export async function readBlock(
  block: Buffer,
  results: Buffer,
  input: BlockInput,
  { workerFromBytes = WORKER_FROM_BYTES, readAgain }: ReadOptions = {},
): Promise<FetchedBlock> {
  const outcome =
    block.byteLength + results.byteLength >= workerFromBytes && !inlineOnly
      ? await inWorker(block, results, input, readAgain)
      : await readBlockAnswers(block, results, input);
  if ('answer' in outcome) throw answerFailure(outcome.method, outcome.answer);
  if ('undecodable' in outcome) throw new NodeError(`block ${input.height}: ${outcome.undecodable}`);
  if ('misfit' in outcome) throw new BlockShapeError(`block ${input.height}: ${outcome.misfit}`);
  return outcome.shaped;
}
