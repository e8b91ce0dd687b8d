// GET /api/health: the service answers "ok" while its database answers; the body also
// says where the indexer is (lag in blocks and seconds). 503 when the database is down.
import { type Database, DatabaseError } from '../../../db/types.ts';
import { type Cursor, readCursor } from '../../../indexer/cursor.ts';
import type { IndexerStatus } from '../../../indexer/indexer.ts';
import type { Logger } from '../../../internal/logger.ts';
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../handler.ts';

/** The promise's value, or a rejection after `ms`. */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The indexer's error as the public may read it: outages are named, not located (a
 * driver's message carries the database's or node's address); other errors (a refused
 * chain) are said as they are, less any address in them.
 */
function publicIndexerError(status: IndexerStatus): string | null {
  if (status.error === null) return null;
  if (status.state === 'database_unavailable') return 'the database cannot be reached';
  if (status.state === 'node_unreachable') return 'the chain node cannot be reached';
  return status.error
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<address>')
    .replace(/\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b/g, '<address>');
}

/** `indexerStatus` is the in-process indexer's, when this process runs one. */
export function health(db: Database, logger: Logger, indexerStatus?: () => IndexerStatus): Handler {
  return async (_req, res) => {
    const timestamp = new Date().toISOString();
    let cursor: Cursor | undefined;
    try {
      cursor = await withTimeout(readCursor(db), 3000);
    } catch (error) {
      // the cause goes to the log; a public body never names a host, port or user
      const unreachable = !(error instanceof DatabaseError) || error.unavailable;
      logger.warn({ err: error }, 'Health check: the database did not answer');
      res.setHeader('Retry-After', '5');
      return sendJson(res, 503, {
        status: 'error',
        timestamp,
        database: {
          status: unreachable ? 'unreachable' : 'error',
          error: unreachable ? 'the database cannot be reached' : 'the database failed the health query',
        },
      });
    }
    const live = indexerStatus?.();
    const indexer = live
      ? {
          state: live.state,
          chain_id: live.chainId,
          indexed_height: live.indexedHeight,
          tip_height: live.tipHeight,
          lag_blocks: live.lagBlocks,
          lag_seconds: live.lagSeconds === null ? null : Number(live.lagSeconds.toFixed(3)),
          error: publicIndexerError(live),
        }
      : {
          state: cursor ? 'unknown (indexer runs in another process)' : 'not started',
          chain_id: cursor?.chainId ?? null,
          indexed_height: cursor?.lastHeight ?? null,
          tip_height: null,
          lag_blocks: null,
          lag_seconds: cursor ? Number(((Date.now() - cursor.lastBlockTime.getTime()) / 1000).toFixed(3)) : null,
          error: null,
        };
    // an indexer that refused the chain (or gave up) needs an operator: not healthy
    const failed = live?.state === 'failed';
    if (failed) res.setHeader('Retry-After', '60');
    sendJson(res, failed ? 503 : 200, {
      status: failed ? 'error' : 'ok',
      timestamp,
      database: { status: 'ok' },
      indexer,
    });
  };
}
