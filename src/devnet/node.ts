// The devnet node: the mempool, block production (mempool txs, then the traffic generator's),
// commitment (hashes, durable log, then visible), replay of a data directory on start, and
// the notifications subscribers and broadcast_tx_commit wait on.
import { sha256 } from '@cosmjs/crypto';
import { toAscii, toHex } from '@cosmjs/encoding';
import type { Logger } from 'pino';
import {
  type CommittedBlock,
  compressResults,
  headerHash,
  packTxs,
  partsHashOf,
  type RenderedTxResult,
  renderTxResult,
  txAt,
} from './blocks/block.ts';
import { type BlockStore, createBlockStore, type StoredAt } from './blocks/block-store.ts';
import { type Consensus, createConsensus } from './blocks/consensus.ts';
import { concatBytes, merkleRoot } from './blocks/hashes.ts';
import { createBlockClock, formatRfc3339Nano } from './blocks/time.ts';
import { MAX_TXS_PER_BLOCK } from './blocks/tx-index.ts';
import type { LedgerWriter } from './ledger/ledger.ts';
import type { BlockLog } from './persistence/block-log.ts';
import type { ChainState } from './state/chain-state.ts';
import { txHash } from './tx/decode.ts';
import { type BlockInfo, type TxResult, type TxRunner } from './tx/run-tx.ts';

/** Adds transactions to a block being built; `execute` runs one at once and returns its result. */
export type BlockFiller = (
  block: BlockInfo,
  execute: (bytes: Uint8Array, mode: 'deliver' | 'trusted') => TxResult,
) => void;

export interface SubmitResult {
  hash: string;
  check: TxResult;
}

export interface CommittedTx {
  height: number;
  index: number;
  result: RenderedTxResult;
}

export interface DevnetNode {
  readonly chainId: string;
  readonly genesisTimeNs: bigint;
  readonly store: BlockStore;
  readonly state: ChainState;
  readonly runner: TxRunner;
  readonly consensus: Consensus;
  /** The app hash after the latest block (the next header carries it). */
  readonly appHash: Uint8Array;
  /** CheckTx, then into the mempool; throws for a tx already in the mempool or the chain. */
  submit(bytes: Uint8Array): SubmitResult;
  produceBlock(): CommittedBlock;
  /** Resolves when the tx with this hash is committed (or with null after `timeoutMs`). */
  waitForTx(hash: string, timeoutMs: number): Promise<CommittedTx | null>;
  onBlock(listener: (block: CommittedBlock) => void): () => void;
  setFiller(filler: BlockFiller | null): void;
  readonly mempoolSize: number;
}

export interface NodeOptions {
  chainId: string;
  genesisTimeNs: bigint;
  state: ChainState;
  runner: TxRunner;
  ledger: LedgerWriter;
  /** Where blocks are recorded before they are served (durable with a data directory, scratch otherwise). */
  log: BlockLog;
  logger: Logger;
}

export class DuplicateTxError extends Error {
  override name = 'DuplicateTxError';
}

/** The digest of one result that goes into last_results_hash (code, data and gas, as CometBFT hashes). */
const resultDigest = (r: RenderedTxResult) => toAscii(`${r.code}|${r.data ?? ''}|${r.gas_wanted}|${r.gas_used}`);

export function createNode(options: NodeOptions): DevnetNode {
  const { chainId, state, runner, log, logger } = options;
  const store = createBlockStore((at) => log.readAt(at));
  const consensus = createConsensus(state.staking);
  const mempool: { bytes: Uint8Array; hash: string }[] = [];
  const mempoolHashes = new Set<string>();
  const listeners = new Set<(block: CommittedBlock) => void>();
  const txWaiters = new Map<string, ((tx: CommittedTx) => void)[]>();
  let filler: BlockFiller | null = null;
  // App hash and results hash of the last block, which the next header carries (as in CometBFT).
  let appHash: Uint8Array = new Uint8Array();
  let lastResultsHash = merkleRoot([]);

  const blockInfo = (height: number, timeNs: bigint): BlockInfo => ({
    height,
    timeNs,
    time: formatRfc3339Nano(timeNs),
  });

  function advanceHashes(block: CommittedBlock, results: readonly RenderedTxResult[]) {
    lastResultsHash = merkleRoot(results.map(resultDigest));
    appHash = sha256(concatBytes(appHash, block.header.dataHash, lastResultsHash));
  }

  function publish(
    block: CommittedBlock,
    results: readonly RenderedTxResult[],
    hashes: readonly string[] | undefined,
    at: StoredAt,
  ) {
    store.add(block, results, hashes, at);
    advanceHashes(block, results);
    runner.resetPending();
    for (let i = 0; i < block.txCount && txWaiters.size > 0; i++) {
      const hash = hashes?.[i] ?? store.txHash(block, i);
      const waiters = txWaiters.get(hash);
      if (!waiters) continue;
      txWaiters.delete(hash);
      for (const resolve of waiters) resolve({ height: block.header.height, index: i, result: results[i]! });
    }
    for (const listener of listeners) listener(block);
  }

  // Replay the log: re-execute every stored tx (trusted) to rebuild state and ledger.
  for (const { block, at } of log.readAll()) {
    const info = blockInfo(block.header.height, block.header.timeNs);
    for (let i = 0; i < block.txCount; i++) runner.deliverTx(txAt(block, i), info, i, 'trusted');
    publish(block, JSON.parse(store.resultsJsonOf(block)) as RenderedTxResult[], undefined, at);
  }
  if (store.height > 0)
    logger.info({ height: store.height }, `Restored chain from data directory height=${store.height}`);
  const clock = createBlockClock(store.latestMeta()?.header.timeNs ?? options.genesisTimeNs);

  function produceBlock(): CommittedBlock {
    const height = store.height + 1;
    const info = blockInfo(height, clock.next());
    const txs: Uint8Array[] = [];
    const digests: Uint8Array[] = [];
    const hashes: string[] = [];
    const results: TxResult[] = [];
    const execute = (bytes: Uint8Array, mode: 'deliver' | 'trusted') => {
      if (txs.length >= MAX_TXS_PER_BLOCK - 1) throw new Error('block is full');
      const digest = sha256(bytes);
      const hash = toHex(digest).toUpperCase();
      const result = runner.deliverTx(bytes, info, txs.length, mode, hash);
      txs.push(bytes);
      digests.push(digest);
      hashes.push(hash);
      results.push(result);
      return result;
    };
    for (const { bytes, hash } of mempool.splice(0, MAX_TXS_PER_BLOCK / 2)) {
      mempoolHashes.delete(hash);
      execute(bytes, 'deliver');
    }
    filler?.(info, (bytes, mode) => execute(bytes, mode));
    const rendered = results.map(renderTxResult);

    const previous = store.latestMeta();
    const proposer = consensus.proposerAt(height);
    const lastCommitHash = previous
      ? merkleRoot(consensus.validators.map((v) => consensus.commitSignature(v, previous.hash)))
      : merkleRoot([]);
    const header = {
      chainId,
      height,
      timeNs: info.timeNs,
      lastBlockHash: previous?.hash ?? new Uint8Array(),
      lastPartsHash: previous?.partsHash ?? new Uint8Array(),
      lastCommitHash,
      dataHash: merkleRoot(digests),
      validatorsHash: consensus.validatorsHash,
      consensusHash: consensus.consensusHash,
      appHash,
      lastResultsHash,
      evidenceHash: merkleRoot([]),
      proposerAddress: proposer.address,
    };
    const hash = headerHash(header);
    const block: CommittedBlock = {
      header,
      hash,
      partsHash: partsHashOf(hash, header.dataHash),
      txCount: txs.length,
      txBytes: txs.reduce((n, tx) => n + tx.length, 0),
      ...packTxs(txs),
      results: compressResults(rendered),
    };
    publish(block, rendered, hashes, log.append(block));
    return block;
  }

  return {
    chainId,
    genesisTimeNs: options.genesisTimeNs,
    store,
    state,
    runner,
    consensus,
    get appHash() {
      return appHash;
    },
    submit(bytes) {
      const hash = txHash(bytes);
      if (mempoolHashes.has(hash) || store.index.position(hash) !== undefined)
        throw new DuplicateTxError('tx already exists in cache');
      const check = runner.checkTx(bytes);
      if (check.code === 0) {
        mempool.push({ bytes, hash });
        mempoolHashes.add(hash);
      }
      return { hash, check };
    },
    produceBlock,
    waitForTx(hash, timeoutMs) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          const list = txWaiters.get(hash);
          if (list) list.splice(list.indexOf(done), 1);
          resolve(null);
        }, timeoutMs);
        const done = (tx: CommittedTx) => {
          clearTimeout(timer);
          resolve(tx);
        };
        const list = txWaiters.get(hash) ?? [];
        list.push(done);
        txWaiters.set(hash, list);
      });
    },
    onBlock(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    setFiller(next) {
      filler = next;
    },
    get mempoolSize() {
      return mempool.length;
    },
  };
}
