// Making a block: its transactions run one by one as they are added, then the header is
// made the way CometBFT makes it (linked to the parent, data, validators and results
// hashes, the rotating proposer), and the app hash chains on from block to block.
import { sha256 } from '@cosmjs/crypto';
import { toAscii, toHex } from '@cosmjs/encoding';
import {
  type BlockEvents,
  type BlockMeta,
  type CommittedBlock,
  compressResults,
  headerHash,
  packTxs,
  partsHashOf,
  type RenderedTxResult,
} from '../blocks/block.ts';
import type { Consensus } from '../blocks/consensus.ts';
import { concatBytes, merkleRoot } from '../blocks/hashes.ts';
import { BLOCK_CALLS_TX_INDEX } from '../blocks/tx-index.ts';
import type { BlockCall } from '../tx/block-call.ts';
import type { BlockInfo, TxResult, TxRunner } from '../tx/run-tx.ts';

export type ExecuteTx = (bytes: Uint8Array, mode: 'deliver' | 'trusted') => TxResult;

/** The transactions of a block being made, with their digests, hashes and results. */
export interface BlockTxs {
  readonly txs: Uint8Array[];
  readonly digests: Uint8Array[];
  readonly hashes: string[];
  readonly results: TxResult[];
  /** Runs a transaction at once and adds it to the block; throws when the block is full. */
  execute: ExecuteTx;
}

export function collectBlockTxs(runner: TxRunner, info: BlockInfo): BlockTxs {
  const body: BlockTxs = {
    txs: [],
    digests: [],
    hashes: [],
    results: [],
    execute(bytes, mode) {
      if (body.txs.length >= BLOCK_CALLS_TX_INDEX) throw new Error('block is full');
      const digest = sha256(bytes);
      const hash = toHex(digest).toUpperCase();
      const result = runner.deliverTx(bytes, info, body.txs.length, mode, hash);
      body.txs.push(bytes);
      body.digests.push(digest);
      body.hashes.push(hash);
      body.results.push(result);
      return result;
    },
  };
  return body;
}

/** What a header carries from before the block: the parent, and the app and results hashes after it. */
export interface BlockContext {
  chainId: string;
  info: BlockInfo;
  previous: BlockMeta | undefined;
  consensus: Consensus;
  hashes: Pick<HashChain, 'appHash' | 'lastResultsHash'>;
}

/** `rendered`: the tx results in the wire form; `own`: the block's contract calls and their events. */
export function assembleBlock(
  context: BlockContext,
  body: BlockTxs,
  rendered: readonly RenderedTxResult[],
  own: { calls: readonly BlockCall[]; blockEvents: BlockEvents },
): CommittedBlock {
  const { chainId, info, previous, consensus } = context;
  const proposer = consensus.proposerAt(info.height);
  const lastCommitHash = previous
    ? merkleRoot(consensus.validators.map((v) => consensus.commitSignature(v, previous.hash)))
    : merkleRoot([]);
  const header = {
    chainId,
    height: info.height,
    timeNs: info.timeNs,
    lastBlockHash: previous?.hash ?? new Uint8Array(),
    lastPartsHash: previous?.partsHash ?? new Uint8Array(),
    lastCommitHash,
    dataHash: merkleRoot(body.digests),
    validatorsHash: consensus.validatorsHash,
    consensusHash: consensus.consensusHash,
    appHash: context.hashes.appHash,
    lastResultsHash: context.hashes.lastResultsHash,
    evidenceHash: merkleRoot([]),
    proposerAddress: proposer.address,
  };
  const hash = headerHash(header);
  return {
    header,
    hash,
    partsHash: partsHashOf(hash, header.dataHash),
    txCount: body.txs.length,
    txBytes: body.txs.reduce((n, tx) => n + tx.length, 0),
    ...packTxs(body.txs),
    ...compressResults(rendered),
    calls: own.calls,
    blockEvents: own.blockEvents,
  };
}

/** The digest of one result that goes into last_results_hash (code, data and gas, as CometBFT hashes). */
const resultDigest = (r: RenderedTxResult) => toAscii(`${r.code}|${r.data ?? ''}|${r.gas_wanted}|${r.gas_used}`);

/** App hash and results hash of the last block, which the next header carries (as in CometBFT). */
export interface HashChain {
  readonly appHash: Uint8Array;
  readonly lastResultsHash: Uint8Array;
  advance(block: CommittedBlock, results: readonly RenderedTxResult[]): void;
}

export function createHashChain(): HashChain {
  let appHash: Uint8Array = new Uint8Array();
  let lastResultsHash = merkleRoot([]);
  return {
    get appHash() {
      return appHash;
    },
    get lastResultsHash() {
      return lastResultsHash;
    },
    advance(block, results) {
      lastResultsHash = merkleRoot(results.map(resultDigest));
      appHash = sha256(concatBytes(appHash, block.header.dataHash, lastResultsHash));
    },
  };
}
