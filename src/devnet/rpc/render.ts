// CometBFT JSON shapes of blocks, headers, commits, txs and a block's own events, rendered on
// demand from the compact committed blocks (hashes upper-case hex, bytes base64, int64 as
// strings). Blocks, headers and commits have the same shape in 0.34, 0.37 and 0.38.
import { toBase64, toHex } from '@cosmjs/encoding';
import {
  BLOCK_VERSION,
  type BlockEvents,
  type BlockMeta,
  type CommittedBlock,
  type RenderedEvent,
  type RenderedTxResult,
  renderEvents,
  txAt,
} from '../blocks/block.ts';
import type { BlockStore } from '../blocks/block-store.ts';
import type { Consensus } from '../blocks/consensus.ts';
import { formatRfc3339Nano } from '../blocks/time.ts';
import type { DevnetNode } from '../node/node.ts';

export const hex = (bytes: Uint8Array) => toHex(bytes).toUpperCase();

/** Bytes as base64, by Node's native encoder (a block's 1,000 txs are ~0.5 MB to encode per read). */
const base64 = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');

const blockId = (hash: Uint8Array, partsHash: Uint8Array) =>
  hash.length
    ? { hash: hex(hash), parts: { total: 1, hash: hex(partsHash) } }
    : { hash: '', parts: { total: 0, hash: '' } };

export function renderHeader(block: BlockMeta) {
  const h = block.header;
  return {
    version: { block: BLOCK_VERSION.toString(), app: '0' },
    chain_id: h.chainId,
    height: String(h.height),
    time: formatRfc3339Nano(h.timeNs),
    last_block_id: blockId(h.lastBlockHash, h.lastPartsHash),
    last_commit_hash: hex(h.lastCommitHash),
    data_hash: hex(h.dataHash),
    validators_hash: hex(h.validatorsHash),
    next_validators_hash: hex(h.validatorsHash),
    consensus_hash: hex(h.consensusHash),
    app_hash: hex(h.appHash),
    last_results_hash: hex(h.lastResultsHash),
    evidence_hash: hex(h.evidenceHash),
    proposer_address: hex(h.proposerAddress),
  };
}

export const renderBlockId = (block: BlockMeta) => blockId(block.hash, block.partsHash);

/** The commit for `block`, signed by every validator, as it appears in the next block's last_commit. */
export function renderCommit(block: BlockMeta, consensus: Consensus, round = 0) {
  return {
    height: String(block.header.height),
    round,
    block_id: renderBlockId(block),
    signatures: consensus.validators.map((v) => ({
      block_id_flag: 2,
      validator_address: hex(v.address),
      timestamp: formatRfc3339Nano(block.header.timeNs),
      signature: toBase64(consensus.commitSignature(v, block.hash)),
    })),
  };
}

export function renderBlock(block: CommittedBlock, store: BlockStore, consensus: Consensus) {
  const previous = store.meta(block.header.height - 1);
  const txs = Array.from({ length: block.txCount }, (_, i) => base64(txAt(block, i)));
  return {
    block_id: renderBlockId(block),
    block: {
      header: renderHeader(block),
      data: { txs },
      evidence: { evidence: [] },
      last_commit: previous
        ? renderCommit(previous, consensus)
        : { height: '0', round: 0, block_id: { hash: '', parts: { total: 0, hash: '' } }, signatures: [] },
    },
  };
}

/** ResultTx (`tx`, `tx_search`): the result in the wire form, every field written. */
export function renderTx(store: BlockStore, height: number, index: number, result?: RenderedTxResult) {
  const block = store.get(height)!;
  return {
    hash: store.txHash(block, index),
    height: String(height),
    index,
    tx_result: result ?? store.wireResults(height)[index]!,
    tx: base64(txAt(block, index)),
  };
}

/** A block's own events per phase, rendered in the wire form. */
export function renderBlockEvents(
  node: DevnetNode,
  events: BlockEvents,
): { begin: RenderedEvent[]; end: RenderedEvent[] } {
  return { begin: node.wire.events(renderEvents(events.begin)), end: node.wire.events(renderEvents(events.end)) };
}

/**
 * A tx result inside a websocket event: CometBFT writes the value it publishes by reflection,
 * where proto3's omitempty leaves out every zero field (code 0, empty data, log, info, codespace).
 */
export function eventTxResult(result: RenderedTxResult) {
  return {
    ...(result.code ? { code: result.code } : {}),
    ...(result.data ? { data: result.data } : {}),
    ...(result.log ? { log: result.log } : {}),
    ...(result.info ? { info: result.info } : {}),
    ...(result.gas_wanted !== '0' ? { gas_wanted: result.gas_wanted } : {}),
    ...(result.gas_used !== '0' ? { gas_used: result.gas_used } : {}),
    ...(result.events.length ? { events: result.events } : {}),
    ...(result.codespace ? { codespace: result.codespace } : {}),
  };
}

/** Approximate encoded size of a block (CometBFT reports the protobuf size). */
export const blockSize = (block: BlockMeta) => block.txBytes + 4 * block.txCount + 600;
