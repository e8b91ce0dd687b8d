// A block and its results (the node's `block` and `block_results` answers) taken apart into
// what the indexer stores: the block's header in the REST shape, each tx's hash, result, log
// and events as kept, its indexed attribute pairs, and the launchpad's and AMM's events and
// CW20 movements of the block, decoded. It runs on the indexer's thread for small blocks and
// on the block worker for large ones (src/indexer/read-block.ts), with the same answer.
import { hash as digest } from 'node:crypto';
import { toHex } from '@cosmjs/encoding';
import { readBlockResults } from '../chain/block-results.ts';
import { decodeBlock } from '../chain/comet-clients.ts';
import { indexedAttributes } from '../chain/indexed-attributes.ts';
import { blockEventsOf, type CometProtocol, readEvents, type WireBlockResults } from '../chain/node-events.ts';
import { type CometBlock, restBlock } from '../chain/rest-block.ts';
import { type Answer, readAnswer } from '../chain/rpc-client.ts';
import { type ChainEvent, packCompactJson, packEvents } from '../chain/stored-events.ts';
import { storedLog } from '../chain/stored-logs.ts';
import { nanosOf, protoTimestamp } from '../chain/timestamps.ts';
import type { ContractAddresses } from '../domain/events.ts';
import { type ChainRows, chainRows, type FetchedTx } from './chain-rows.ts';
import { type Cw20Changes, decodeCw20 } from './decode-cw20.ts';
import { type DecodeResult, decodeBlockEvents, type RawTx } from './decode-events.ts';

export interface FetchedBlock {
  height: number;
  hash: string; // upper-case hex
  lastBlockHash: string; // upper-case hex, '' for the first block of a chain
  time: Date;
  timeRfc3339: string; // exact, with nanoseconds
  chainId: string;
  proposer: string; // upper-case hex consensus address
  txCount: number;
  /** Its txs as the chain index's rows (src/indexer/chain-rows.ts). */
  rows: ChainRows;
  /** The launchpad's and AMM's events of its txs, decoded. */
  decoded: DecodeResult;
  /** Its CW20 balance movements and token creations (src/indexer/decode-cw20.ts); none when absent. */
  cw20?: Cw20Changes;
  /** block_id, header and last_commit in the Cosmos REST shape (src/chain/rest-block.ts; the Chain API serves it). */
  rest: object;
}

/** What shaping a block needs besides the node's answers. */
export interface BlockInput {
  height: number;
  protocol: CometProtocol;
  contracts: ContractAddresses;
}

/**
 * Where a block's own events (begin and end block, outside any tx: a contract called by
 * governance or a cron module) stand among its txs: after them, as tx index 32767 (the highest
 * the trades' order key `seq` keeps in order: sql/0002_trades.sql shifts a 32-bit tx index), with the
 * block's hash as their tx hash (docs/real-chains.md "Block events").
 */
export const BLOCK_EVENTS_TX_INDEX = 32_767;

const upperHex = (b: Uint8Array) => toHex(b).toUpperCase();

/**
 * A block and its results, shaped; throws (a plain Error) when they do not fit together.
 * `compactEvents` are the txs' events as compact JSON where they were read from the node's
 * bytes (src/chain/block-results.ts): kept as they are instead of printed again.
 */
export function shapeBlock(
  { height, protocol, contracts }: BlockInput,
  response: CometBlock,
  results: WireBlockResults,
  compactEvents?: readonly (Buffer | undefined)[],
): FetchedBlock {
  const { block } = response;
  const txResults = results?.txs_results ?? [];
  if (txResults.length !== block.txs.length) {
    throw new Error(`block ${height} has ${block.txs.length} txs but ${txResults.length} results`);
  }
  const headerTime = block.header.time as Date; // cosmjs's DateWithNanoseconds
  const time = new Date(headerTime.getTime());
  const raw: RawTx[] = [];
  const txs = block.txs.map((bytes, index): FetchedTx => {
    const r = txResults[index]!;
    // read from the bytes, the events are already text (block-results.ts)
    const events = compactEvents
      ? ((r.events as ChainEvent[] | null | undefined) ?? [])
      : readEvents(r.events, protocol);
    const hash = digest('sha256', bytes, 'hex').toUpperCase(); // one call: half a createHash's cost a tx
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
      packedEvents: packed(events, compactEvents?.[index]),
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
    txCount: txs.length,
    rows: chainRows(height, time, txs),
    decoded: decodeBlockEvents({ height, time, txs: raw }, contracts),
    cw20: decodeCw20(raw, contracts),
    rest: restBlock(response),
  };
}

const packed = (events: ChainEvent[], compact: Buffer | undefined) =>
  compact ? packCompactJson(compact) : packEvents(events);

type Failure = Exclude<Answer, { result: unknown }>;

/**
 * What reading a block's two answers comes to: the block shaped; the node's answer to one of
 * them when it is not a result; a block cosmjs could not decode; or a block and results that
 * do not fit together. Plain data, so the block worker can send it back as it is.
 */
export type ReadOutcome =
  | { shaped: FetchedBlock }
  | { answer: Failure; method: 'block' | 'block_results' }
  | { undecodable: string }
  | { misfit: string };

export async function readBlockAnswers(
  blockBody: Buffer,
  resultsBody: Buffer,
  input: BlockInput,
): Promise<ReadOutcome> {
  const blockAnswer = readAnswer(blockBody);
  if (!('result' in blockAnswer)) return { answer: blockAnswer, method: 'block' };
  const { answer: resultsAnswer, compactEvents } = readBlockResults(resultsBody, input.protocol);
  if (!('result' in resultsAnswer)) return { answer: resultsAnswer, method: 'block_results' };
  let response: CometBlock;
  try {
    response = await decodeBlock(input.protocol, input.height, blockAnswer.result);
  } catch (error) {
    return { undecodable: (error as Error).message };
  }
  try {
    return { shaped: shapeBlock(input, response, resultsAnswer.result as WireBlockResults, compactEvents) };
  } catch (error) {
    return { misfit: (error as Error).message };
  }
}
