// The indexer's failures, by what the run loop does about them (the node's own failures
// are typed in src/chain/errors.ts): a node that did not answer is retried, a block that could not be shaped fails its batch, a moved cursor
// restarts from the new cursor, and another chain stops the indexer for an operator.
import { NodeError } from '../chain/errors.ts';
import { ServiceError } from '../internal/errors.ts';

/**
 * A block the node served that could not be shaped for the index: a node answering
 * nonsense (its txs and results not fitting together, or a value its table's column cannot
 * hold, such as a gas beyond int64: its rows are encoded where the block is read,
 * src/indexer/chain-rows.ts), or a bug here. Not a node outage: the indexer logs it as a
 * failed batch.
 */
export class BlockShapeError extends ServiceError {
  override name = 'BlockShapeError';
}

/** The node serves another chain than the one the database indexes. Fatal: needs an operator. */
export class ChainMismatchError extends ServiceError {
  override name = 'ChainMismatchError';
}

/** The cursor is not where this writer expected: someone else indexed meanwhile. Retry from the new cursor. */
export class CursorMovedError extends ServiceError {
  override name = 'CursorMovedError';
}

/** The start height or the node cannot serve this index (a pruned node, no block results kept). Fatal: needs an operator. */
export class NodeUnsuitableError extends ServiceError {
  override name = 'NodeUnsuitableError';
}

/**
 * Runs a call to the node: a typed node failure (src/chain/errors.ts) passes as it is, a
 * BlockShapeError too (the node did answer), and anything else (an answer cosmjs could not
 * read) becomes a NodeError.
 */
export async function nodeCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof BlockShapeError || error instanceof NodeError) throw error;
    throw new NodeError(`${what}: ${(error as Error).message}`, { cause: error });
  }
}
