// The indexer's failures, by what the run loop does about them: a node that did not
// answer is retried, a block that could not be shaped fails its batch, a moved cursor
// restarts from the new cursor, and another chain stops the indexer for an operator.
import { ServiceError } from '../internal/errors.ts';

/** The node failed to answer: a separate error type so callers can tell it from a database failure. */
export class NodeError extends ServiceError {
  override name = 'NodeError';
}

/**
 * A block the node served that could not be shaped for the index: a node answering
 * nonsense, or a bug here. Not a node outage: the indexer logs it as a failed batch.
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

/** Runs a call to the node; its failure becomes a NodeError (a BlockShapeError passes: the node did answer). */
export async function nodeCall<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (error instanceof BlockShapeError) throw error;
    throw new NodeError(`${what}: ${(error as Error).message}`, { cause: error });
  }
}
