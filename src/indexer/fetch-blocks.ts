// Reads blocks and their results from the node through cosmjs, several heights in
// flight at once, and shapes them into what the indexer writes. A block's events are
// decoded, packed and indexed as soon as it arrives, so the parsed results (~5 kB of
// objects per transaction) die young instead of waiting in memory for their batch.
import { createHash } from 'node:crypto';
import { toHex } from '@cosmjs/encoding';
import type { ChainClient } from '../chain/client.ts';
import { HeightNotAvailableError, isTransient } from '../chain/errors.ts';
import { indexedAttributes } from '../chain/indexed-attributes.ts';
import { blockEventsOf, type CometProtocol, readEvents, type WireBlockResults } from '../chain/node-events.ts';
import { type CometBlock, restBlock } from '../chain/rest-block.ts';
import { packEvents } from '../chain/stored-events.ts';
import { type StoredLog, storedLog } from '../chain/stored-logs.ts';
import { nanosOf, protoTimestamp } from '../chain/timestamps.ts';
import type { ContractAddresses } from '../domain/events.ts';
import { type Cw20Changes, decodeCw20 } from './decode-cw20.ts';
import { type DecodeResult, decodeBlockEvents, type RawTx } from './decode-events.ts';
import { BlockShapeError } from './errors.ts';

export interface FetchedTx {
  hash: string; // upper-case hex
  index: number;
  code: number;
  bytes: Uint8Array;
  codespace: string;
  /** The log as stored (src/chain/stored-logs.ts). */
  log: StoredLog;
  gasWanted: string;
  gasUsed: string;
  /** The tx's events as stored (src/chain/stored-events.ts). */
  packedEvents: Buffer;
  /** Its distinct [type.key, value] pairs of the indexed attributes (src/chain/indexed-attributes.ts). */
  attributes: [string, string][];
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

/**
 * Where a block's own events (begin and end block, outside any tx: a contract called by
 * governance or a cron module) stand among its txs: after them, as tx index 32767 (the highest
 * the trades' order key `seq` keeps in order: sql/0002_trades.sql shifts a 32-bit tx index), with the
 * block's hash as their tx hash (docs/real-chains.md "Block events").
 */
export const BLOCK_EVENTS_TX_INDEX = 32_767;

export async function fetchBlock(
  chain: ChainClient,
  height: number,
  contracts: ContractAddresses,
): Promise<FetchedBlock> {
  // block through cosmjs's decoder; block_results raw through cosmjs's RPC client: its
  // adaptor re-creates every event attribute and costs ~60 µs per tx on full blocks.
  const protocol = await chain.ready();
  const [response, results] = await Promise.all([
    chain.comet.block(height),
    chain.rawCall<WireBlockResults>('block_results', { height: String(height) }),
  ]);
  try {
    return shapeBlock(height, response, results, contracts, protocol);
  } catch (error) {
    throw new BlockShapeError(`block ${height}: ${(error as Error).message}`, { cause: error });
  }
}

function shapeBlock(
  height: number,
  response: CometBlock,
  results: WireBlockResults,
  contracts: ContractAddresses,
  protocol: CometProtocol,
): FetchedBlock {
  const { block } = response;
  const txResults = results.txs_results ?? [];
  if (txResults.length !== block.txs.length) {
    throw new Error(`block ${height} has ${block.txs.length} txs but ${txResults.length} results`);
  }
  const headerTime = block.header.time as Date; // cosmjs's DateWithNanoseconds
  const time = new Date(headerTime.getTime());
  const raw: RawTx[] = [];
  const txs = block.txs.map((bytes, index): FetchedTx => {
    const r = txResults[index]!;
    const events = readEvents(r.events, protocol);
    const hash = createHash('sha256').update(bytes).digest('hex').toUpperCase();
    const code = r.code ?? 0;
    raw.push({ hash, index, code, events });
    return {
      hash,
      index,
      code,
      bytes,
      codespace: r.codespace ?? '',
      log: storedLog(r.log ?? '', code, events),
      gasWanted: r.gas_wanted ?? '0',
      gasUsed: r.gas_used ?? '0',
      packedEvents: packEvents(events),
      attributes: indexedAttributes(events),
    };
  });
  const hash = upperHex(response.blockId.hash);
  const blockEvents = blockEventsOf(results, protocol);
  if (blockEvents.length > 0) raw.push({ hash, index: BLOCK_EVENTS_TX_INDEX, code: 0, events: blockEvents });
  return {
    height,
    hash,
    lastBlockHash: block.header.lastBlockId ? upperHex(block.header.lastBlockId.hash) : '',
    time,
    timeRfc3339: protoTimestamp(headerTime, nanosOf(headerTime)),
    chainId: block.header.chainId,
    proposer: upperHex(block.header.proposerAddress),
    txs,
    decoded: decodeBlockEvents({ height, time, txs: raw }, contracts),
    cw20: decodeCw20(raw, contracts),
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
