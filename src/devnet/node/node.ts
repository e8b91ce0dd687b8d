// The devnet node: the mempool, block production (mempool txs, then the traffic generator's),
// commitment (hashes, durable log, then visible), replay of a data directory on start, and
// the notifications subscribers and broadcast_tx_commit wait on.
import type { Logger } from 'pino';
import type { ChainState } from '../app/chain-state.ts';
import { type CommittedBlock, type RenderedTxResult, renderTxResult, txAt } from '../blocks/block.ts';
import { type BlockStore, createBlockStore, type StoredAt } from '../blocks/block-store.ts';
import { type Consensus, createConsensus } from '../blocks/consensus.ts';
import { createBlockClock, formatRfc3339Nano } from '../blocks/time.ts';
import { MAX_TXS_PER_BLOCK } from '../blocks/tx-index.ts';
import { DevnetError } from '../errors.ts';
import type { LedgerWriter } from '../ledger/ledger.ts';
import type { BlockLog } from '../persistence/block-log.ts';
import { txHash } from '../tx/decode.ts';
import type { BlockInfo, TxResult, TxRunner } from '../tx/run-tx.ts';
import { assembleBlock, collectBlockTxs, createHashChain, type ExecuteTx } from './assemble.ts';
import { createMempool } from './mempool.ts';
import { type CommittedTx, createTxWaiters } from './tx-waiters.ts';

/** Adds transactions to a block being built; `execute` runs one at once and returns its result. */
export type BlockFiller = (block: BlockInfo, execute: ExecuteTx) => void;

export interface SubmitResult {
  hash: string;
  check: TxResult;
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

export class DuplicateTxError extends DevnetError {
  override name = 'DuplicateTxError';
}

function blockInfo(height: number, timeNs: bigint): BlockInfo {
  return { height, timeNs, time: formatRfc3339Nano(timeNs) };
}

export function createNode(options: NodeOptions): DevnetNode {
  const { chainId, state, runner, log, logger } = options;
  const store = createBlockStore((at) => log.readAt(at));
  const consensus = createConsensus(state.staking);
  const mempool = createMempool();
  const waiters = createTxWaiters();
  const hashes = createHashChain();
  const listeners = new Set<(block: CommittedBlock) => void>();
  let filler: BlockFiller | null = null;

  function publish(
    block: CommittedBlock,
    results: readonly RenderedTxResult[],
    txHashes: readonly string[] | undefined,
    at: StoredAt,
  ) {
    store.add(block, results, txHashes, at);
    hashes.advance(block, results);
    runner.resetPending();
    waiters.notify(block, results, (i) => txHashes?.[i] ?? store.txHash(block, i));
    for (const listener of listeners) listener(block);
  }

  // Replay the log: re-execute every stored tx (trusted) to rebuild state and ledger.
  for (const { block, at } of log.readAll()) {
    const info = blockInfo(block.header.height, block.header.timeNs);
    for (let i = 0; i < block.txCount; i++) runner.deliverTx(txAt(block, i), info, i, 'trusted');
    publish(block, JSON.parse(store.resultsJsonOf(block)) as RenderedTxResult[], undefined, at);
  }
  if (store.height > 0) logger.info({ height: store.height }, 'Restored the chain from the data directory');
  const clock = createBlockClock(store.latestMeta()?.header.timeNs ?? options.genesisTimeNs);

  function produceBlock(): CommittedBlock {
    const info = blockInfo(store.height + 1, clock.next());
    const body = collectBlockTxs(runner, info);
    for (const { bytes } of mempool.take(MAX_TXS_PER_BLOCK / 2)) body.execute(bytes, 'deliver');
    filler?.(info, (bytes, mode) => body.execute(bytes, mode));
    const rendered = body.results.map(renderTxResult);
    const block = assembleBlock({ chainId, info, previous: store.latestMeta(), consensus, hashes }, body, rendered);
    publish(block, rendered, body.hashes, log.append(block));
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
      return hashes.appHash;
    },
    submit(bytes) {
      const hash = txHash(bytes);
      if (mempool.has(hash) || store.index.position(hash) !== undefined)
        throw new DuplicateTxError('tx already exists in cache');
      const check = runner.checkTx(bytes);
      if (check.code === 0) mempool.add({ bytes, hash });
      return { hash, check };
    },
    produceBlock,
    waitForTx: (hash, timeoutMs) => waiters.wait(hash, timeoutMs),
    onBlock(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    setFiller(next) {
      filler = next;
    },
    get mempoolSize() {
      return mempool.size;
    },
  };
}
