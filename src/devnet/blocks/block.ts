// A committed block as the devnet keeps it: the header, the tx bytes packed in one buffer,
// the tx results as deflated CometBFT JSON (rendered once at commit in the wire form of the
// devnet's protocol, served on demand), and the contract calls the block made outside its
// txs with the events they emitted.
import { isAscii } from 'node:buffer';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { sha256 } from '@cosmjs/crypto';
import { toBase64 } from '@cosmjs/encoding';
import { Header } from 'cosmjs-types/tendermint/types/types';
import type { ChainEvent } from '../core/events.ts';
import type { BlockCall } from '../tx/block-call.ts';
import type { TxResult } from '../tx/run-tx.ts';
import { concatBytes } from './hashes.ts';
import { toTimestamp } from './time.ts';

export interface BlockHeader {
  chainId: string;
  height: number;
  timeNs: bigint;
  lastBlockHash: Uint8Array;
  lastPartsHash: Uint8Array;
  lastCommitHash: Uint8Array;
  dataHash: Uint8Array;
  validatorsHash: Uint8Array;
  consensusHash: Uint8Array;
  appHash: Uint8Array;
  lastResultsHash: Uint8Array;
  evidenceHash: Uint8Array;
  proposerAddress: Uint8Array;
}

/** What the node keeps in memory for every block, however old. */
export interface BlockMeta {
  header: BlockHeader;
  hash: Uint8Array;
  partsHash: Uint8Array;
  txCount: number;
  /** Total size of the block's tx bytes. */
  txBytes: number;
}

/** A block's own events, outside its txs, per phase, in plain text. */
export interface BlockEvents {
  begin: ChainEvent[];
  end: ChainEvent[];
}

export const NO_BLOCK_EVENTS: BlockEvents = Object.freeze({ begin: [], end: [] }) as BlockEvents;

export interface CommittedBlock extends BlockMeta {
  /** All tx bytes back to back; tx i spans txOffsets[i]..txOffsets[i+1]. */
  txData: Uint8Array;
  txOffsets: Uint32Array;
  /** deflate-raw of the JSON array of `txs_results` entries, in the wire form. */
  results: Uint8Array;
  /** The bytes `results` inflates to; 0 when not known (a block logged before it was kept). */
  resultsLength: number;
  /** Contract calls of the block's BeginBlock and EndBlock, in the order they ran. */
  calls: readonly BlockCall[];
  blockEvents: BlockEvents;
}

export const BLOCK_VERSION = 11n;

export function headerHash(header: BlockHeader): Uint8Array {
  const encoded = Header.encode({
    version: { block: BLOCK_VERSION, app: 0n },
    chainId: header.chainId,
    height: BigInt(header.height),
    time: toTimestamp(header.timeNs),
    lastBlockId: {
      hash: header.lastBlockHash,
      partSetHeader: { total: header.lastBlockHash.length ? 1 : 0, hash: header.lastPartsHash },
    },
    lastCommitHash: header.lastCommitHash,
    dataHash: header.dataHash,
    validatorsHash: header.validatorsHash,
    nextValidatorsHash: header.validatorsHash,
    consensusHash: header.consensusHash,
    appHash: header.appHash,
    lastResultsHash: header.lastResultsHash,
    evidenceHash: header.evidenceHash,
    proposerAddress: header.proposerAddress,
  }).finish();
  return sha256(encoded);
}

/** The block's single part: CometBFT splits block bytes into 64 kB parts; one hash stands for them. */
export const metaOf = ({ header, hash, partsHash, txCount, txBytes }: BlockMeta): BlockMeta => ({
  header,
  hash,
  partsHash,
  txCount,
  txBytes,
});

export const partsHashOf = (hash: Uint8Array, dataHash: Uint8Array) => sha256(concatBytes(hash, dataHash));

export function packTxs(txs: readonly Uint8Array[]): { txData: Uint8Array; txOffsets: Uint32Array } {
  const txOffsets = new Uint32Array(txs.length + 1);
  let total = 0;
  txs.forEach((tx, i) => {
    txOffsets[i] = total;
    total += tx.length;
  });
  txOffsets[txs.length] = total;
  const txData = new Uint8Array(total);
  for (const [i, tx] of txs.entries()) txData.set(tx, txOffsets[i]!);
  return { txData, txOffsets };
}

export const txAt = (block: CommittedBlock, index: number) =>
  block.txData.subarray(block.txOffsets[index]!, block.txOffsets[index + 1]!);

/** Events as ABCI renders them: every attribute indexed (the SDK's MarkEventsToIndex with no filter). */
export const renderEvents = (events: readonly ChainEvent[]) =>
  events.map((e) => ({
    type: e.type,
    attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: true })),
  }));
export type RenderedEvent = ReturnType<typeof renderEvents>[number];

/**
 * One `txs_results` entry, in plain text: the field set of ResponseDeliverTx (0.34, 0.37) and
 * ExecTxResult (0.38) alike, which CometBFT writes with every field (jsonpb, EmitDefaults).
 */
export function renderTxResult(result: TxResult) {
  return {
    code: result.code,
    data: result.data.length ? toBase64(result.data) : null,
    log: result.log,
    info: '',
    gas_wanted: result.gasWanted.toString(),
    gas_used: result.gasUsed.toString(),
    events: renderEvents(result.events),
    codespace: result.codespace,
  };
}
export type RenderedTxResult = ReturnType<typeof renderTxResult>;

/** The block's results as stored: deflated JSON, and its length inflated. */
export function compressResults(rendered: readonly RenderedTxResult[]): { results: Buffer; resultsLength: number } {
  const json = Buffer.from(JSON.stringify(rendered));
  return { results: deflateRawSync(json, { level: 1 }), resultsLength: json.length };
}
/**
 * The stored results' JSON, as bytes, inflated into one buffer of their size. A block's results
 * deflate ~20-fold (5 MB to 260 kB for 1,000 trades): in zlib's default 16 KiB output chunks
 * they made ~300 buffers and a copy of them all for each answer, twice the external memory
 * that sets off the devnet's collections while it serves a backfill (each a mark of the whole
 * chain's state).
 */
export const resultsBytes = (block: CommittedBlock): Buffer =>
  // the slack: zlib reports the stream's end only with room left in the output
  inflateRawSync(block.results, block.resultsLength ? { chunkSize: block.resultsLength + 64 } : {});

/** The stored results' JSON (read as ASCII when it is: several times faster than UTF-8 for megabytes). */
export function resultsJson(block: CommittedBlock): string {
  const json = resultsBytes(block);
  return isAscii(json) ? json.toString('ascii') : json.toString('utf8');
}
