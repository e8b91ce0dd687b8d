// GET /api/health: the service answers "ok" while its database answers; the body also
// says where the indexer is (lag in blocks and seconds). 503 when the database is down.
import { DatabaseError, type Database } from '../../../db/types.ts';
import type { IndexerStatus } from '../../../indexer/indexer.ts';
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../handler.ts';

interface StateRow {
  chain_id: string;
  last_height: number;
  last_block_time: Date;
  updated_at: Date;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return Promise.race([promise, new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms).unref())]);
}

/** `indexerStatus` is the in-process indexer's, when this process runs one. */
export function health(db: Database, indexerStatus?: () => IndexerStatus): Handler {
  return async (_req, res) => {
    const timestamp = new Date().toISOString();
    let state: StateRow | undefined;
    try {
      [state] = await withTimeout(db.query<StateRow>(`SELECT chain_id, last_height, last_block_time, updated_at FROM indexer_state`), 3000);
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
          state: state ? 'unknown (indexer runs in another process)' : 'not started',
          chain_id: state?.chain_id ?? null,
          indexed_height: state ? Number(state.last_height) : null,
          tip_height: null,
          lag_blocks: null,
          lag_seconds: state ? Number(((Date.now() - state.last_block_time.getTime()) / 1000).toFixed(3)) : null,
          error: null,
        };
    sendJson(res, 200, { status: 'ok', timestamp, database: { status: 'ok' }, indexer });
  };
}
