// The devnet node: the mempool, block production (the BeginBlock contract calls, mempool
// txs, the traffic generator's, then the EndBlock calls), commitment (hashes, durable log,
// then visible), replay of a data directory on start, and the notifications subscribers,
// broadcast_tx_commit and scheduled block calls wait on.
import { toHex } from '@cosmjs/encoding';
import type { Logger } from 'pino';
import type { ChainState } from '../app/chain-state.ts';
import { type CommittedBlock, type RenderedTxResult, renderTxResult, txAt } from '../blocks/block.ts';
import { type BlockStore, createBlockStore, type StoredAt } from '../blocks/block-store.ts';
import { type Consensus, createConsensus } from '../blocks/consensus.ts';
import { createBlockClock, formatRfc3339Nano } from '../blocks/time.ts';
import { BLOCK_CALLS_TX_INDEX } from '../blocks/tx-index.ts';
import { type Wire, wireOf } from '../blocks/wire.ts';
import type { BlockPhase, ChainEvent } from '../core/events.ts';
import type { Protocol } from '../core/protocol.ts';
import { DevnetError } from '../errors.ts';
import type { LedgerWriter } from '../ledger/ledger.ts';
import type { BlockLog } from '../persistence/block-log.ts';
import type { BlockCall } from '../tx/block-call.ts';
import { txHash } from '../tx/decode.ts';
import type { BlockCallResult, BlockInfo, TxResult, TxRunner } from '../tx/run-tx.ts';
import { assembleBlock, collectBlockTxs, createHashChain, type ExecuteTx } from './assemble.ts';
import { createMempool } from './mempool.ts';
import { type CommittedTx, createTxWaiters } from './tx-waiters.ts';

/** Adds transactions to a block being built; `execute` runs one at once and returns its result. */
export type BlockFiller = (block: BlockInfo, execute: ExecuteTx) => void;

export interface SubmitResult {
  hash: string;
  check: TxResult;
}

/** What a scheduled block call did, once its block is committed. */
export interface BlockCallOutcome {
  height: number;
  phase: BlockPhase;
  /** Its events as the block reports them (text), empty when it failed. */
  events: ChainEvent[];
  /** Why it failed (its state changes were reverted); absent when it succeeded. */
  error?: string;
}

export interface DevnetNode {
  readonly chainId: string;
  readonly genesisTimeNs: bigint;
  readonly store: BlockStore;
  readonly state: ChainState;
  readonly runner: TxRunner;
  readonly consensus: Consensus;
  readonly protocol: Protocol;
  readonly wire: Wire;
  /** The app hash after the latest block (the next header carries it). */
  readonly appHash: Uint8Array;
  /** CheckTx, then into the mempool; throws for a tx already in the mempool or the chain. */
  submit(bytes: Uint8Array): SubmitResult;
  produceBlock(): CommittedBlock;
  /** Runs the call in the next block's BeginBlock or EndBlock; resolves once that block is committed. */
  scheduleBlockCall(call: BlockCall): Promise<BlockCallOutcome>;
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
  protocol: Protocol;
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
  const { chainId, state, runner, log, logger, ledger, protocol } = options;
  const wire = wireOf(protocol);
  const store = createBlockStore((at) => log.readAt(at), wire);
  const consensus = createConsensus(state.staking);
  const mempool = createMempool();
  const waiters = createTxWaiters();
  const hashes = createHashChain();
  const listeners = new Set<(block: CommittedBlock) => void>();
  let filler: BlockFiller | null = null;
  const scheduled: { call: BlockCall; resolve: (outcome: BlockCallOutcome) => void }[] = [];

  /** `results` in text, `wireResults` as answered (the same objects unless attributes are base64). */
  function publish(
    block: CommittedBlock,
    results: readonly RenderedTxResult[],
    wireResults: readonly RenderedTxResult[],
    txHashes: readonly string[] | undefined,
    at: StoredAt,
  ) {
    store.add(block, results, txHashes, at);
    hashes.advance(block, results);
    runner.resetPending();
    waiters.notify(block, wireResults, (i) => txHashes?.[i] ?? store.txHash(block, i));
    for (const listener of listeners) listener(block);
  }

  /** Runs the calls of one phase in order; each keeps whatever rides along with it. */
  const runCalls = <T extends { call: BlockCall }>(calls: readonly T[], phase: BlockPhase, info: BlockInfo) =>
    calls.filter((c) => c.call.phase === phase).map((c) => ({ ...c, result: runner.runBlockCall(c.call, info) }));

  /**
   * The ledger records of a block's calls, at the position an index gives block events: the
   * block's hash as their tx hash, tx index BLOCK_CALLS_TX_INDEX, message 0, and the event's
   * index among the block's own events (BeginBlock's, then EndBlock's).
   */
  function recordBlockCalls(block: CommittedBlock, info: BlockInfo, results: readonly BlockCallResult[]) {
    const events = results.flatMap((r) => r.events);
    const where = {
      height: info.height,
      time: info.time,
      txHash: toHex(block.hash).toUpperCase(),
      txIndex: BLOCK_CALLS_TX_INDEX,
      msgIndex: 0,
    };
    for (const { drafts } of results) {
      for (const { draft, event } of drafts)
        ledger.append(draft, { ...where, eventIndex: event ? events.indexOf(event) : -1 });
    }
  }

  // Replay the log: re-execute every stored block call and tx (trusted) to rebuild state and ledger.
  for (const { block, at } of log.readAll()) {
    const info = blockInfo(block.header.height, block.header.timeNs);
    const calls = block.calls.map((call) => ({ call }));
    const begun = runCalls(calls, 'begin', info);
    for (let i = 0; i < block.txCount; i++) runner.deliverTx(txAt(block, i), info, i, 'trusted');
    const ended = runCalls(calls, 'end', info);
    recordBlockCalls(
      block,
      info,
      [...begun, ...ended].map((c) => c.result),
    );
    const results = store.textResultsOf(block);
    publish(block, results, results.map(wire.result), undefined, at);
  }
  if (store.height > 0) logger.info({ height: store.height }, 'Restored the chain from the data directory');
  const clock = createBlockClock(store.latestMeta()?.header.timeNs ?? options.genesisTimeNs);

  function produceBlock(): CommittedBlock {
    const info = blockInfo(store.height + 1, clock.next());
    const pending = scheduled.splice(0);
    const begun = runCalls(pending, 'begin', info);
    const body = collectBlockTxs(runner, info);
    for (const { bytes } of mempool.take(BLOCK_CALLS_TX_INDEX)) body.execute(bytes, 'deliver');
    filler?.(info, (bytes, mode) => body.execute(bytes, mode));
    const ended = runCalls(pending, 'end', info);
    const ran = [...begun, ...ended];
    const rendered = body.results.map(renderTxResult);
    const wireResults = wire.base64 ? rendered.map(wire.result) : rendered;
    const block = assembleBlock({ chainId, info, previous: store.latestMeta(), consensus, hashes }, body, wireResults, {
      calls: ran.map((c) => c.call),
      blockEvents: { begin: begun.flatMap((c) => c.result.events), end: ended.flatMap((c) => c.result.events) },
    });
    recordBlockCalls(
      block,
      info,
      ran.map((c) => c.result),
    );
    publish(block, rendered, wireResults, body.hashes, log.append(block));
    for (const { call, result, resolve } of ran) {
      resolve({
        height: info.height,
        phase: call.phase,
        events: result.events,
        ...(result.error ? { error: result.error } : {}),
      });
    }
    return block;
  }

  return {
    chainId,
    genesisTimeNs: options.genesisTimeNs,
    store,
    state,
    runner,
    consensus,
    protocol,
    wire,
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
    scheduleBlockCall: (call) => new Promise((resolve) => scheduled.push({ call, resolve })),
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
