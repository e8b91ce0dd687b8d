// A node's failures, typed once here (docs/real-chains.md "What a provider must offer"):
// the RPC client (rpc-client.ts) reads each answer or transport failure into one of these,
// and the rest of the service decides by the type, never by a node's message text.
import { ServiceError } from '../internal/errors.ts';

/** The node failed to answer a call; the base of every node failure. */
export class NodeError extends ServiceError {
  override name = 'NodeError';
  /** What the node said, when it answered with an error (its JSON-RPC error data, or message). */
  said?: string;
  /** The JSON-RPC error's own message (e.g. "Internal error"), when the node answered with one. */
  rpcMessage?: string;
}

/** No answer: refused or dropped connection, a timeout, a gateway's 5xx. Worth retrying. */
export class NodeUnreachableError extends NodeError {
  override name = 'NodeUnreachableError';
}

/** The provider answered 429: wait `retryAfterMs` (its `Retry-After`, or a backoff) before the next call. */
export class RateLimitedError extends NodeError {
  override name = 'RateLimitedError';
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super(message);
  }
}

/**
 * The node does not have this height: below what it keeps (`pruned`, with the lowest height
 * it has), or above its tip (`ahead`: a lagging backend behind a load balancer).
 */
export class HeightNotAvailableError extends NodeError {
  override name = 'HeightNotAvailableError';
  constructor(
    message: string,
    readonly reason: 'pruned' | 'ahead',
    /** pruned: the node's lowest height; ahead: the node's current height (when it said). */
    readonly nodeHeight?: number,
  ) {
    super(message);
  }
}

/** The node keeps no block results (CometBFT's `discard_abci_responses`). */
export class ResultsNotKeptError extends NodeError {
  override name = 'ResultsNotKeptError';
}

/**
 * The node has the block at `height` but no results for it. CometBFT stores a block before it
 * executes it, so its tip's results are missing while the block runs (seconds for a heavy
 * block, minutes for some chains' epoch blocks), as they are from a backend of a load balancer
 * that is a moment behind: worth asking again. Below the tip, for good, on a node that prunes
 * results apart from its blocks.
 */
export class ResultsNotFoundError extends NodeError {
  override name = 'ResultsNotFoundError';
  constructor(
    message: string,
    readonly height: number,
  ) {
    super(message);
  }
}

/** The node answered with a JSON-RPC error this service does not know (or an HTTP refusal such as 401). */
export class RpcError extends NodeError {
  override name = 'RpcError';
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

/**
 * The node's chain is behind the index: a lagging or still-syncing node (or a backend of a
 * load balancer that is behind the others). Waited for, not taken for another chain.
 */
export class NodeBehindError extends NodeError {
  override name = 'NodeBehindError';
}

// What CometBFT says (rpc/core and state/store.go of 0.34 to 1.x), read once here.
const PRUNED = /height (\d+) is not available, lowest height is (\d+)/i;
const AHEAD = /height (\d+) must be less than or equal to the current blockchain height (\d+)/i;
const RESULTS_NOT_FOUND = /could not find results for height #?(\d+)/i;
const NOT_PERSISTING = /not persisting (abci|finalize block) responses/i;

/** A JSON-RPC error answer as the typed failure it means. */
export function rpcFailure(what: string, error: { code?: number; message?: string; data?: unknown }): NodeError {
  const text = [error.message, typeof error.data === 'string' ? error.data : JSON.stringify(error.data ?? '')]
    .filter(Boolean)
    .join(': ');
  const message = `${what}: ${text}`;
  const said = typeof error.data === 'string' && error.data !== '' ? error.data : String(error.message ?? '');
  const typed = (): NodeError => {
    const pruned = PRUNED.exec(text);
    if (pruned) return new HeightNotAvailableError(message, 'pruned', Number(pruned[2]));
    const ahead = AHEAD.exec(text);
    if (ahead) return new HeightNotAvailableError(message, 'ahead', Number(ahead[2]));
    if (NOT_PERSISTING.test(text)) return new ResultsNotKeptError(message);
    const missing = RESULTS_NOT_FOUND.exec(text);
    if (missing) return new ResultsNotFoundError(message, Number(missing[1]));
    return new RpcError(message, error.code);
  };
  const failure = typed();
  failure.said = said;
  failure.rpcMessage = typeof error.message === 'string' ? error.message : undefined;
  return failure;
}

/** Whether a failure is worth repeating the same call for (a transport failure or a rate limit). */
export const isTransient = (error: unknown): boolean =>
  error instanceof NodeUnreachableError || error instanceof RateLimitedError;

/**
 * A query the node answered with an error, as cosmjs's QueryClient words it: "Query failed
 * with (<abci code>): <the node's log>" (an unknown path on a chain without the module, a
 * contract's error, baseapp's gRPC error text). Undefined for any other failure (no answer).
 */
export function queryRefusal(error: unknown): { code: number; log: string } | undefined {
  const message = error instanceof Error ? error.message : String(error);
  const refused = /Query failed with \((\d+)\): ([\s\S]*)$/.exec(message);
  return refused ? { code: Number(refused[1]), log: refused[2]! } : undefined;
}
