// The indexer: one writer that follows the chain from its cursor to the tip in bounded
// batches, each written in one transaction. It wakes on every new block (CometBFT
// NewBlockHeader over a websocket) and at least every POLL_INTERVAL_MS, and rides out node
// and database outages with backoff, logging once per change of state.
import type { ChainClient } from '../chain/client.ts';
import {
  HeightNotAvailableError,
  NodeBehindError,
  NodeError,
  NodeUnreachableError,
  RateLimitedError,
  ResultsNotFoundError,
  ResultsNotKeptError,
} from '../chain/errors.ts';
import { subscribeNewBlocks } from '../chain/new-blocks.ts';
import { protocolOf } from '../chain/node-events.ts';
import { type Database, DatabaseError } from '../db/types.ts';
import type { ContractAddresses } from '../domain/events.ts';
import { createBackoff, sleep } from '../internal/backoff.ts';
import type { Logger } from '../internal/logger.ts';
import { type Cursor, type NodeView, nodeViewOf, readCursor, verifyChainIdentity } from './cursor.ts';
import { ChainMismatchError, CursorMovedError, NodeUnsuitableError, nodeCall } from './errors.ts';
import { type BatchSummary, indexRange } from './index-range.ts';
import { createIndexerStatus, type IndexerStatus } from './status.ts';
import { createMetadataFetcher } from './token-metadata.ts';
import { createWriterLock } from './writer-lock.ts';

export interface IndexerOptions {
  db: Database;
  chain: ChainClient;
  contracts: ContractAddresses;
  logger: Logger;
  pollIntervalMs: number;
  /** Height to start from when the database has no cursor (or a choice by the node's chain id); default: the node's tip. */
  startHeight?: number | ((chainId: string) => number | undefined);
  /** Wake on NewBlockHeader over a websocket (default true); polling remains the fallback. */
  subscribe?: boolean;
  maxBlocksPerBatch?: number;
  maxTxsPerBatch?: number;
  fetchConcurrency?: number;
  /** CW20 contracts followed besides the launchpad's and the AMM's tokens (CW20_CONTRACTS). */
  cw20Contracts?: readonly string[];
  /** Retry delays after a failure (exponential with jitter); default 500 ms to 30 s. */
  retryMs?: { min: number; max: number };
  /** Test hook: throw from here to crash the indexer mid-batch. */
  faultPoint?: (step: string) => void;
  onBatch?: (batch: BatchSummary) => void;
}

export interface Indexer {
  start(): void;
  stop(): Promise<void>;
  status(): IndexerStatus;
  /** Resolves once blocks up to `height` are committed. */
  waitForHeight(height: number, timeoutMs?: number): Promise<void>;
  /**
   * Settles after the first attempt to check the chain's identity against the index:
   * rejects with ChainMismatchError when the node serves another chain than the one
   * indexed; resolves when it matches, or when the node or database could not be reached
   * yet (those are retried).
   */
  checked(): Promise<void>;
}

function logBatch(logger: Logger, batch: BatchSummary, tip: number | null) {
  logger.info(
    {
      from: batch.fromHeight,
      to: batch.toHeight,
      blocks: batch.blocks,
      txs: batch.txs,
      trades: batch.trades,
      new_tokens: batch.newTokens.length,
      feed_events: batch.feedEvents,
      tip,
      duration_ms: Math.round(batch.ms),
    },
    batch.blocks > 1 ? 'Indexed blocks' : 'Indexed a block',
  );
}

const ARCHIVE_HINT = 'point CHAIN_RPC_URL at a node that keeps them (an archive node)';

/**
 * Refuses a node that cannot serve the next height to index: one that pruned it (its
 * lowest height is above), or that keeps no block results (CometBFT's
 * `discard_abci_responses`, or a state-synced node without them).
 */
async function checkNodeServes(
  chain: ChainClient,
  node: NodeView,
  next: number,
  what: string,
  retryMs: number,
): Promise<void> {
  if (next < node.earliestHeight) {
    throw new NodeUnsuitableError(
      `${what} is ${next}, but the node's lowest height is ${node.earliestHeight} (it prunes older blocks, or was state-synced): set START_HEIGHT to ${node.earliestHeight} or more, or ${ARCHIVE_HINT}`,
    );
  }
  // below the tip where it can be: the tip's own results are missing while it executes
  const probe = Math.max(Math.min(next, node.tipHeight - 1), node.earliestHeight);
  if (probe > node.tipHeight) return;
  try {
    await probeResults(chain, probe, retryMs);
  } catch (error) {
    if (error instanceof ResultsNotFoundError && probe < node.tipHeight)
      throw new NodeUnsuitableError(
        `the node has no block results at height ${probe}, below its tip ${node.tipHeight} (${error.message}): it prunes results apart from its blocks; ${ARCHIVE_HINT}`,
      );
    if (error instanceof ResultsNotKeptError)
      throw new NodeUnsuitableError(
        `the node keeps no block results (${error.message}); the index needs every block's results: ${ARCHIVE_HINT}, or one run without discard_abci_responses`,
      );
    if (error instanceof HeightNotAvailableError && error.reason === 'pruned')
      throw new NodeUnsuitableError(`${what} is ${next}, but ${error.message}: ${ARCHIVE_HINT}`);
    throw error;
  }
}

/**
 * Reads the results at `height`, asked again for a while (PROBE_ATTEMPTS, `retryMs` more each
 * time) when the node has none yet: a backend of a load balancer may still be executing that
 * block (ResultsNotFoundError).
 */
async function probeResults(chain: ChainClient, height: number, retryMs: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await nodeCall(`block_results ${height}`, () => chain.rawCall('block_results', { height: String(height) }));
      return;
    } catch (error) {
      if (!(error instanceof ResultsNotFoundError) || attempt >= PROBE_ATTEMPTS) throw error;
      await sleep(retryMs * attempt);
    }
  }
}
const PROBE_ATTEMPTS = 5;

/**
 * Where indexing resumes: the stored cursor once the node is shown to serve its chain,
 * or, for a new index, just before the start height (default: the node's tip).
 */
async function startingCursor(
  db: Database,
  cursor: Cursor | undefined,
  chain: ChainClient,
  node: NodeView,
  startHeight: IndexerOptions['startHeight'],
  logger: Logger,
  retryMs: number,
): Promise<Pick<Cursor, 'chainId' | 'lastHeight' | 'lastBlockTime'>> {
  if (cursor) {
    await verifyChainIdentity(cursor, node, db);
    if (cursor.lastHeight < node.tipHeight)
      await checkNodeServes(chain, node, cursor.lastHeight + 1, "the index's next height", retryMs);
    return cursor;
  }
  const configured = typeof startHeight === 'function' ? startHeight(node.chainId) : startHeight;
  const start = configured ?? node.tipHeight;
  if (start > node.tipHeight + 1)
    throw new NodeUnsuitableError(`START_HEIGHT ${start} is above the node's tip ${node.tipHeight}`);
  await checkNodeServes(chain, node, start, configured === undefined ? "the node's tip" : 'START_HEIGHT', retryMs);
  logger.info(
    { chain_id: node.chainId, start_height: start, tip: node.tipHeight, protocol: chain.protocol },
    'Started a new index',
  );
  return { chainId: node.chainId, lastHeight: start - 1, lastBlockTime: new Date(0) };
}

export function createIndexer(options: IndexerOptions): Indexer {
  const { db, chain, contracts, logger, pollIntervalMs } = options;
  const metadata = createMetadataFetcher({ db, chain, contracts, logger });

  const tracker = createIndexerStatus(logger);
  const status = tracker.current;
  const { setState } = tracker;
  const controller = new AbortController();
  let wakeUp: (() => void) | undefined;
  let loop: Promise<void> | undefined;
  let unsubscribe: (() => void) | undefined;
  let prepared = false;
  let settleCheck: { resolve(): void; reject(error: Error): void } | undefined;
  const firstCheck = new Promise<void>((resolve, reject) => (settleCheck = { resolve, reject }));
  firstCheck.catch(() => {}); // observed by checked(), when the caller asks
  const checkDone = (error?: Error) => {
    if (error) settleCheck?.reject(error);
    else settleCheck?.resolve();
    settleCheck = undefined;
  };
  // A standby, or a database not reachable yet, does not hold start-up: the writer decides.
  const writer = createWriterLock(db, (state, message) => {
    setState(state, message);
    checkDone();
  });

  /** Indexes from the cursor to the tip. */
  async function catchUp(tip: number): Promise<void> {
    const from = (status.indexedHeight ?? 0) + 1;
    if (from > tip) return;
    setState(tip - from > 1 ? 'syncing' : status.state === 'starting' ? 'live' : status.state);
    await indexRange(from, tip, {
      db,
      chain,
      contracts,
      logger,
      moveCursor: true,
      emitFeed: true,
      maxBlocksPerBatch: options.maxBlocksPerBatch,
      maxTxsPerBatch: options.maxTxsPerBatch,
      fetchConcurrency: options.fetchConcurrency,
      cw20Contracts: options.cw20Contracts,
      signal: controller.signal,
      faultPoint: options.faultPoint,
      onBatch: (batch) => {
        const last = batch.lastBlock;
        status.lastBatchAt = new Date();
        tracker.advance({ chainId: last.chainId, lastHeight: last.height, lastBlockTime: last.time });
        options.onBatch?.(batch);
        logBatch(logger, batch, status.tipHeight);
        if (batch.newTokens.length || batch.metadataStale) void metadata.run();
      },
    });
  }

  async function prepare(): Promise<void> {
    const before = chain.protocol;
    const protocol = await nodeCall('status', () => chain.detect());
    if (protocol !== before) logger.info({ protocol }, "Read the node's protocol version");
    const node = await nodeViewOf(chain);
    tracker.setTip(node.tipHeight);
    // where the index stands is known before the node is checked (a lagging node's status shows it)
    const cursor = await readCursor(db);
    if (cursor) tracker.advance(cursor);
    // results not stored yet are asked for again at twice the first retry's wait (1 s by default)
    const probeRetryMs = 2 * (options.retryMs?.min ?? 500);
    tracker.advance(await startingCursor(db, cursor, chain, node, options.startHeight, logger, probeRetryMs));
  }

  function subscribeToBlocks() {
    if (options.subscribe === false) return;
    const subscription = subscribeNewBlocks(chain.rpcUrl, {
      onBlock: () => wakeUp?.(),
      onDown: (error) => logger.debug({ err: error }, 'Lost the NewBlockHeader subscription; polling until it is back'),
      onUp: () => logger.debug('Subscribed to NewBlockHeader'),
    });
    unsubscribe = () => subscription.close();
  }

  /**
   * What a failed round means: a refused chain stops the indexer (false); an outage of
   * the node or the database, a moved cursor or a failed batch is retried (true), from a
   * cursor read again.
   */
  async function recover(error: unknown): Promise<boolean> {
    const message = (error as Error).message;
    if (error instanceof ChainMismatchError || error instanceof NodeUnsuitableError) {
      setState('failed', message);
      checkDone(error);
      return false;
    }
    checkDone(); // an outage is retried; it does not decide anything
    const lagging =
      error instanceof NodeBehindError || (error instanceof HeightNotAvailableError && error.reason === 'ahead');
    // a block whose results are not stored yet: waited for as a lagging node is, its node
    // checked again first (results missing below its tip are refused there: checkNodeServes)
    const executing = error instanceof ResultsNotFoundError;
    // From the cursor read again, and the chain's identity checked again (the node may come
    // back as another chain), after any failure but the node asking to wait: a 429 or a
    // lagging backend changes nothing of either, and a rate-limited provider is asked no more.
    if (!lagging && !(error instanceof RateLimitedError)) prepared = false;
    if (lagging || executing) {
      setState('lagging', message);
    } else if (error instanceof HeightNotAvailableError) {
      setState('node_pruned', message);
    } else if (error instanceof RateLimitedError) {
      setState('rate_limited', message);
    } else if (error instanceof NodeError) {
      setState(error instanceof NodeUnreachableError ? 'node_unreachable' : 'node_error', message);
    } else if (error instanceof DatabaseError && error.unavailable) {
      setState('database_unavailable', message);
      await writer.drop();
    } else if (error instanceof CursorMovedError) {
      // another writer indexed meanwhile (its lock session ended before ours began)
      logger.warn({ err: message }, 'The cursor moved under this writer; reading it again');
    } else {
      // A crash inside a batch (or an unexpected error): the transaction rolled back
      logger.error({ err: error }, 'An indexing batch failed; retrying');
      status.error = message;
    }
    return true;
  }

  async function run(): Promise<void> {
    const signal = controller.signal;
    const backoff = createBackoff(options.retryMs?.min ?? 500, options.retryMs?.max ?? 30_000);
    let subscribed = false;
    while (!signal.aborted) {
      // after the database was lost the lock is taken again, so a standby that took over
      // meanwhile stays the only writer
      await writer.take(signal, backoff);
      if (!writer.held || signal.aborted) return;
      if (status.state === 'standby') setState('starting');
      if (!subscribed) {
        subscribeToBlocks();
        subscribed = true;
      }
      while (!signal.aborted && writer.held) {
        const woken = new Promise<void>((resolve) => (wakeUp = resolve));
        try {
          // the writer lock's session ended (terminated, server restarted): take it again
          // before writing anything, so a standby that took over meanwhile is the only writer
          if (writer.lost)
            throw new DatabaseError('the session holding the writer lock ended', {
              code: 'CONNECTION_CLOSED',
              unavailable: true,
            });
          // after an outage the database must answer before the indexer says it recovered
          if (status.state === 'database_unavailable') await db.query('SELECT 1');
          if (!prepared) {
            await prepare();
            prepared = true;
            checkDone();
          }
          const nodeStatus = await nodeCall('status', () => chain.comet.status());
          if (protocolOf(nodeStatus.nodeInfo.version) !== chain.protocol) {
            // the node was upgraded (or the load balancer's backend that answers was): its
            // blocks are read as its new version says, from a chain checked again
            const was = chain.protocol;
            await nodeCall('status', () => chain.detect());
            logger.warn(
              { was, now: chain.protocol, version: nodeStatus.nodeInfo.version },
              'The node speaks another protocol now',
            );
            prepared = false;
            continue;
          }
          const tip = nodeStatus.syncInfo.latestBlockHeight;
          tracker.setTip(tip);
          const indexed = status.indexedHeight ?? 0;
          if (tip < indexed) {
            // a backend of a load balancer that is behind the one that served the index
            throw new NodeBehindError(`the node answered height ${tip}, behind the index at ${indexed}: waiting`);
          }
          await catchUp(tip);
          setState('live'); // also clears the error of a batch that failed before
          void metadata.run(); // new tokens, and retries that have come due
          backoff.reset();
          await Promise.race([woken, sleep(pollIntervalMs, signal)]);
        } catch (error) {
          if (signal.aborted) break;
          if (!(await recover(error))) {
            unsubscribe?.(); // stopped for good: nothing to wake
            return;
          }
          await sleep(backoff.next(), signal);
        }
      }
    }
  }

  return {
    start() {
      loop ??= run()
        .catch((error) => {
          setState('failed', (error as Error).message);
        })
        .finally(() => checkDone());
    },
    async stop() {
      controller.abort();
      wakeUp?.();
      unsubscribe?.();
      await loop;
      await metadata.settled();
      await writer.drop();
      tracker.releaseWaiters();
      if (status.state !== 'failed') status.state = 'stopped';
    },
    checked: () => firstCheck,
    status: tracker.snapshot,
    waitForHeight: tracker.waitForHeight,
  };
}

/** Where the index stands, for health and metrics: the cursor in the database and, when given, this indexer's status. */
export function indexSource(db: Database, indexer?: Indexer) {
  return { position: () => readCursor(db), live: indexer && (() => indexer.status()) };
}
