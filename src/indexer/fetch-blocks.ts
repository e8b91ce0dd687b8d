// Reads blocks and their results from the node, several heights in flight at once, and
// shapes them into what the indexer writes. Both answers are taken as the node's bytes and
// read as soon as they arrive (src/indexer/read-block.ts: large blocks on a worker thread),
// so the parsed results (~5 kB of objects per transaction) die young instead of waiting in
// memory for their batch.
import type { ChainClient } from '../chain/client.ts';
import { HeightNotAvailableError, isTransient, RateLimitedError, ResultsNotFoundError } from '../chain/errors.ts';
import type { ContractAddresses } from '../domain/events.ts';
import { sleep } from '../internal/backoff.ts';
import { readBlock } from './read-block.ts';
import type { FetchedBlock } from './shape-block.ts';

export { BLOCK_EVENTS_TX_INDEX, type FetchedBlock } from './shape-block.ts';

export async function fetchBlock(
  chain: ChainClient,
  height: number,
  contracts: ContractAddresses,
  signal?: AbortSignal,
): Promise<FetchedBlock> {
  // both answers as the node's bytes: cosmjs decodes the block where it is read (shape-block.ts);
  // its adaptor for block_results would re-create every event attribute (~60 µs per tx on full blocks)
  const protocol = await chain.ready();
  const params = { height: String(height) };
  const answers = () =>
    Promise.all([chain.rawCallBody('block', params, signal), chain.rawCallBody('block_results', params, signal)]);
  const [block, results] = await answers();
  // moved to the block worker, not copied: a block it fails to read is asked for again
  return readBlock(block, results, { height, protocol, contracts }, { readAgain: answers });
}

/**
 * A block read again by itself when its node calls fail in a way worth repeating: a
 * transport failure the RPC client gave up on, a height the answering
 * backend has not reached yet (a load balancer's lagging backend), or a block whose results
 * are not stored yet (still executing). The others of its batch are not read again.
 */
async function fetchWithRetries(
  chain: ChainClient,
  height: number,
  contracts: ContractAddresses,
  signal: AbortSignal | undefined,
  attempts = 3,
): Promise<FetchedBlock> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetchBlock(chain, height, contracts, signal);
    } catch (error) {
      if (signal?.aborted) throw error;
      // a long Retry-After (the client waits out short ones) is the indexer's to show: rate_limited
      const again =
        (isTransient(error) && !(error instanceof RateLimitedError)) ||
        (error instanceof HeightNotAvailableError && error.reason === 'ahead') ||
        error instanceof ResultsNotFoundError;
      if (!again || attempt >= attempts) throw error;
      await sleep(250 * 2 ** attempt, signal);
    }
  }
}

/**
 * Fetches heights [from, to] with up to `concurrency` heights in flight; resolves in height
 * order. Once `signal` aborts no further height is asked for, and it rejects with its reason.
 */
export async function fetchBlocks(
  chain: ChainClient,
  from: number,
  to: number,
  contracts: ContractAddresses,
  concurrency = 8,
  signal?: AbortSignal,
): Promise<FetchedBlock[]> {
  const out: FetchedBlock[] = new Array(to - from + 1);
  let next = from;
  let failed = false;
  const worker = async () => {
    try {
      for (let h = next++; h <= to && !failed && !signal?.aborted; h = next++)
        out[h - from] = await fetchWithRetries(chain, h, contracts, signal);
    } catch (error) {
      failed = true; // the other workers take no new height
      throw error;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, to - from + 1) }, worker));
  signal?.throwIfAborted();
  return out;
}
