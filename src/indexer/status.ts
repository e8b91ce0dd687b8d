// What the indexer reports about itself: its state (logged once per change), where the
// index is against the node's tip, and waiters for a height. The run loop (indexer.ts)
// feeds it; health and metrics read it through `snapshot()`.
import type { Logger } from '../internal/logger.ts';
import type { Cursor } from './cursor.ts';

export type IndexerState =
  | 'starting'
  | 'standby'
  | 'syncing'
  | 'live'
  | 'node_unreachable'
  | 'node_error'
  | 'rate_limited'
  | 'lagging'
  | 'node_pruned'
  | 'database_unavailable'
  | 'failed'
  | 'stopped';

export interface IndexerStatus {
  state: IndexerState;
  chainId: string | null;
  indexedHeight: number | null;
  indexedBlockTime: Date | null;
  tipHeight: number | null;
  lagBlocks: number | null;
  lagSeconds: number | null;
  lastBatchAt: Date | null;
  error: string | null;
}

export function createIndexerStatus(logger: Logger) {
  const status: IndexerStatus = {
    state: 'starting',
    chainId: null,
    indexedHeight: null,
    indexedBlockTime: null,
    tipHeight: null,
    lagBlocks: null,
    lagSeconds: null,
    lastBatchAt: null,
    error: null,
  };
  const heightWaiters = new Set<{ height: number; resolve: () => void }>();

  const updateLag = () => {
    const { indexedHeight, tipHeight, indexedBlockTime } = status;
    status.lagBlocks = indexedHeight !== null && tipHeight !== null ? Math.max(0, tipHeight - indexedHeight) : null;
    status.lagSeconds = indexedBlockTime ? Math.max(0, (Date.now() - indexedBlockTime.getTime()) / 1000) : null;
  };

  return {
    /** The live record (the run loop reads and writes its fields). */
    current: status,

    setState(state: IndexerState, error: string | null = null) {
      if (status.state === state && status.error === error) return;
      const previous = status.state;
      status.state = state;
      status.error = error;
      // one line per change of state: the same outage with another message is not news
      if (previous === state) return void logger.debug({ state, err: error }, 'Stayed in the same state');
      if (state === 'node_unreachable') logger.warn({ err: error }, 'Lost the node; retrying with backoff');
      else if (state === 'node_error')
        logger.warn({ err: error }, 'The node answered with an error; retrying with backoff');
      else if (state === 'rate_limited') logger.warn({ err: error }, 'The node asked to slow down; waiting as it said');
      else if (state === 'lagging') logger.warn({ err: error }, 'The node is behind the index; waiting for it');
      else if (state === 'node_pruned')
        logger.error({ err: error }, 'The node no longer has the blocks to index; retrying with backoff');
      else if (state === 'database_unavailable')
        logger.warn({ err: error }, 'Lost the database; retrying with backoff');
      else if (state === 'failed') logger.error({ err: error }, 'Stopped indexing: an operator is needed');
      else if (
        ['node_unreachable', 'node_error', 'rate_limited', 'lagging', 'node_pruned', 'database_unavailable'].includes(
          previous,
        )
      )
        logger.info({ state }, 'Recovered; indexing again');
    },

    setTip(height: number) {
      status.tipHeight = height;
      updateLag();
    },

    /** The index reached `cursor`: updates the position and wakes the waiters it satisfies. */
    advance(cursor: Pick<Cursor, 'chainId' | 'lastHeight' | 'lastBlockTime'>) {
      status.chainId = cursor.chainId;
      status.indexedHeight = cursor.lastHeight;
      status.indexedBlockTime = cursor.lastBlockTime;
      updateLag();
      for (const w of heightWaiters) {
        if (cursor.lastHeight >= w.height) {
          heightWaiters.delete(w);
          w.resolve();
        }
      }
    },

    snapshot(): IndexerStatus {
      updateLag();
      return { ...status };
    },

    /** Resolves once blocks up to `height` are committed; rejects after `timeoutMs`. */
    waitForHeight(height: number, timeoutMs = 30_000): Promise<void> {
      if ((status.indexedHeight ?? 0) >= height) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          height,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        };
        const timer = setTimeout(() => {
          heightWaiters.delete(waiter);
          reject(
            new Error(
              `indexer did not reach height ${height} within ${timeoutMs} ms (at ${status.indexedHeight}, state ${status.state}${status.error ? `: ${status.error}` : ''})`,
            ),
          );
        }, timeoutMs);
        heightWaiters.add(waiter);
      });
    },

    /** Releases every waiter (the indexer stopped). */
    releaseWaiters() {
      for (const w of heightWaiters) w.resolve();
      heightWaiters.clear();
    },
  };
}
