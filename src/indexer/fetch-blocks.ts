// Reads blocks and their results from the node through cosmjs, several heights in
// flight at once, and shapes them into what the indexer writes. A block's results are
// read as soon as they arrive (src/indexer/read-results.ts: large ones on a worker thread),
// so the parsed results (~5 kB of objects per transaction) die young instead of waiting in
// memory for their batch.
import { toHex } from '@cosmjs/encoding';
import type { ChainClient } from '../chain/client.ts';
import { HeightNotAvailableError, isTransient } from '../chain/errors.ts';
import { type CometBlock, restBlock } from '../chain/rest-block.ts';
import { nanosOf, protoTimestamp } from '../chain/timestamps.ts';
import type { ContractAddresses } from '../domain/events.ts';
import type { Cw20Changes } from './decode-cw20.ts';
import type { DecodeResult } from './decode-events.ts';
import { BlockShapeError } from './errors.ts';
import { readResults } from './read-results.ts';
import type { ShapedTx } from './shape-results.ts';

export { BLOCK_EVENTS_TX_INDEX } from './shape-results.ts';

export interface FetchedTx extends ShapedTx {
  bytes: Uint8Array;
  /** The tx's events as stored (src/chain/stored-events.ts). */
  packedEvents: Buffer;
}

export interface FetchedBlock {
  height: number;
  hash: string; // upper-case hex
  lastBlockHash: string; // upper-case hex, '' for the first block of a chain
  time: Date;
  timeRfc3339: string; // exact, with nanoseconds
  chainId: string;
  proposer: string; // upper-case hex consensus address
  txs: FetchedTx[];
  /** The launchpad's and AMM's events of its txs, decoded. */
  decoded: DecodeResult;
  /** Its CW20 balance movements and token creations (src/indexer/decode-cw20.ts); none when absent. */
  cw20?: Cw20Changes;
  /** block_id, header and last_commit in the Cosmos REST shape (src/chain/rest-block.ts; the Chain API serves it). */
  rest: object;
}

const upperHex = (b: Uint8Array) => toHex(b).toUpperCase();

export async function fetchBlock(
  chain: ChainClient,
  height: number,
  contracts: ContractAddresses,
): Promise<FetchedBlock> {
  // block through cosmjs's decoder; block_results as the node's bytes, read by read-results.ts
  // (cosmjs's adaptor re-creates every event attribute and costs ~60 µs per tx on full blocks)
  const protocol = await chain.ready();
  const [response, body] = await Promise.all([
    chain.comet.block(height),
    chain.rawCallBody('block_results', { height: String(height) }),
  ]);
  let head: Omit<FetchedBlock, 'txs' | 'decoded' | 'cw20'>;
  try {
    head = shapeHead(height, response);
  } catch (error) {
    throw new BlockShapeError(`block ${height}: ${(error as Error).message}`, { cause: error });
  }
  const { block } = response;
  const results = await readResults(body, {
    height,
    time: head.time,
    blockHash: head.hash,
    txs: block.txs,
    protocol,
    contracts,
  });
  const txs = results.txs as FetchedTx[]; // read-results.ts gives the events as Buffers
  for (const tx of txs) tx.bytes = block.txs[tx.index]!;
  return { ...head, txs, decoded: results.decoded, cw20: results.cw20 };
}

/** The block's own fields: everything but its txs' results. */
function shapeHead(height: number, response: CometBlock): Omit<FetchedBlock, 'txs' | 'decoded' | 'cw20'> {
  const { block } = response;
  const headerTime = block.header.time as Date; // cosmjs's DateWithNanoseconds
  return {
    height,
    hash: upperHex(response.blockId.hash),
    lastBlockHash: block.header.lastBlockId ? upperHex(block.header.lastBlockId.hash) : '',
    time: new Date(headerTime.getTime()),
    timeRfc3339: protoTimestamp(headerTime, nanosOf(headerTime)),
    chainId: block.header.chainId,
    proposer: upperHex(block.header.proposerAddress),
    rest: restBlock(response),
  };
}

/**
 * A block read again by itself when its node calls fail in a way worth repeating: a
 * transport failure or rate limit the RPC client gave up on, or a height the answering
 * backend has not reached yet (a load balancer's lagging backend). The others of its
 * batch are not read again.
 */
async function fetchWithRetries(
  chain: ChainClient,
  height: number,
  contracts: ContractAddresses,
  attempts = 3,
): Promise<FetchedBlock> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetchBlock(chain, height, contracts);
    } catch (error) {
      const again = isTransient(error) || (error instanceof HeightNotAvailableError && error.reason === 'ahead');
      if (!again || attempt >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
    }
  }
}

/** Fetches heights [from, to] with up to `concurrency` heights in flight; resolves in height order. */
export async function fetchBlocks(
  chain: ChainClient,
  from: number,
  to: number,
  contracts: ContractAddresses,
  concurrency = 8,
): Promise<FetchedBlock[]> {
  const out: FetchedBlock[] = new Array(to - from + 1);
  let next = from;
  let failed = false;
  const worker = async () => {
    try {
      for (let h = next++; h <= to && !failed; h = next++) out[h - from] = await fetchWithRetries(chain, h, contracts);
    } catch (error) {
      failed = true; // the other workers take no new height
      throw error;
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, to - from + 1) }, worker));
  return out;
}
