// GET /api/health: the service answers "ok" while its database answers; the body also
// says where the indexer is (lag in blocks and seconds). 503 when the database is down.
import { DatabaseError, type Database } from '../../../db/types.ts';
import { readCursor, type Cursor } from '../../../indexer/cursor.ts';
import type { IndexerStatus } from '../../../indexer/indexer.ts';
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../handler.ts';

/** The promise's value, or a rejection after `ms`. */
async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<T>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** `indexerStatus` is the in-process indexer's, when this process runs one. */
export function health(db: Database, indexerStatus?: () => IndexerStatus): Handler {
  return async (_req, res) => {
    const timestamp = new Date().toISOString();
    let cursor: Cursor | undefined;
    try {
      cursor = await withTimeout(readCursor(db), 3000);
    } catch (error) {
      const unreachable = !(error instanceof DatabaseError) || error.unavailable;
      return sendJson(res, 503, { status: 'error', timestamp, database: { status: unreachable ? 'unreachable' : 'error', error: (error as Error).message } });
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
          error: live.error,
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
    sendJson(res, 200, { status: 'ok', timestamp, database: { status: 'ok' }, indexer });
  };
}
