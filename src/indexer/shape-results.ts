// A block's results (`block_results`) taken apart into what the indexer stores of its txs:
// each tx's hash, result, log and events as kept, its indexed attribute pairs, and the
// launchpad's and AMM's events and CW20 movements of the block, decoded. Pure: it runs on
// the indexer's thread for small blocks and in the results worker for large ones
// (src/indexer/read-results.ts), with the same answer.
import { createHash } from 'node:crypto';
import { indexedAttributes } from '../chain/indexed-attributes.ts';
import { blockEventsOf, type CometProtocol, readEvents, type WireBlockResults } from '../chain/node-events.ts';
import { type Answer, readAnswer } from '../chain/rpc-client.ts';
import { packEvents } from '../chain/stored-events.ts';
import { type StoredLog, storedLog } from '../chain/stored-logs.ts';
import type { ContractAddresses } from '../domain/events.ts';
import { type Cw20Changes, decodeCw20 } from './decode-cw20.ts';
import { type DecodeResult, decodeBlockEvents, type RawTx } from './decode-events.ts';

/** What the results need of their block. */
export interface ResultsInput {
  height: number;
  time: Date;
  /** Upper-case hex: the tx hash of the block's own events. */
  blockHash: string;
  /** The block's txs as the block carries them, in order. */
  txs: readonly Uint8Array[];
  protocol: CometProtocol;
  contracts: ContractAddresses;
}

/** A tx of the block as stored, less its bytes (the block has them). */
export interface ShapedTx {
  hash: string; // upper-case hex
  index: number;
  code: number;
  codespace: string;
  /** The log as stored (src/chain/stored-logs.ts). */
  log: StoredLog;
  gasWanted: string;
  gasUsed: string;
  /** The tx's events as stored (src/chain/stored-events.ts). */
  packedEvents: Uint8Array;
  /** Its distinct [type.key, value] pairs of the indexed attributes (src/chain/indexed-attributes.ts). */
  attributes: [string, string][];
}

export interface ShapedResults {
  txs: ShapedTx[];
  /** The launchpad's and AMM's events of its txs, decoded. */
  decoded: DecodeResult;
  /** Its CW20 balance movements and token creations (src/indexer/decode-cw20.ts); none when absent. */
  cw20?: Cw20Changes;
}

/**
 * Where a block's own events (begin and end block, outside any tx: a contract called by
 * governance or a cron module) stand among its txs: after them, as tx index 32767 (the highest
 * the trades' order key `seq` keeps in order: sql/0002_trades.sql shifts a 32-bit tx index), with the
 * block's hash as their tx hash (docs/real-chains.md "Block events").
 */
export const BLOCK_EVENTS_TX_INDEX = 32_767;

/** The results of a block, shaped; throws (a plain Error) when they do not fit the block. */
export function shapeResults(input: ResultsInput, results: WireBlockResults): ShapedResults {
  const { height, protocol } = input;
  const txResults = results?.txs_results ?? [];
  if (txResults.length !== input.txs.length) {
    throw new Error(`block ${height} has ${input.txs.length} txs but ${txResults.length} results`);
  }
  const raw: RawTx[] = [];
  const txs = input.txs.map((bytes, index): ShapedTx => {
    const r = txResults[index]!;
    const events = readEvents(r.events, protocol);
    const hash = createHash('sha256').update(bytes).digest('hex').toUpperCase();
    const code = r.code ?? 0;
    raw.push({ hash, index, code, events });
    return {
      hash,
      index,
      code,
      codespace: r.codespace ?? '',
      log: storedLog(r.log ?? '', code, events),
      gasWanted: r.gas_wanted ?? '0',
      gasUsed: r.gas_used ?? '0',
      packedEvents: packEvents(events),
      attributes: indexedAttributes(events),
    };
  });
  const blockEvents = blockEventsOf(results, protocol);
  if (blockEvents.length > 0)
    raw.push({ hash: input.blockHash, index: BLOCK_EVENTS_TX_INDEX, code: 0, events: blockEvents });
  return {
    txs,
    decoded: decodeBlockEvents({ height, time: input.time, txs: raw }, input.contracts),
    cw20: decodeCw20(raw, input.contracts),
  };
}

/**
 * What reading a `block_results` answer's body comes to: its results shaped, the node's
 * answer when it is not a result, or why the results do not fit the block. Plain data.
 */
export type ReadOutcome =
  | { shaped: ShapedResults }
  | { answer: Exclude<Answer, { result: unknown }> }
  | { misfit: string };

export function readResultsBody(body: Buffer, input: ResultsInput): ReadOutcome {
  const answer = readAnswer(body);
  if (!('result' in answer)) return { answer };
  try {
    return { shaped: shapeResults(input, answer.result as WireBlockResults) };
  } catch (error) {
    return { misfit: (error as Error).message };
  }
}
