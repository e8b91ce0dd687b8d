// GET /api/health: the service answers "ok" while its database answers; the body also
// says where the indexer is (lag in blocks and seconds). 503 when the database is down
// or the in-process indexer stopped for an operator.
import { z } from 'zod';
import { DatabaseError } from '../../../db/types.ts';
import type { Logger } from '../../../internal/logger.ts';
import { unavailable } from '../../http/errors.ts';
import type { IndexPosition, IndexSource, IndexStatus } from '../../http/index-status.ts';
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../../http/routes.ts';
import type { LaunchpadRoute } from '../context.ts';

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
function publicIndexerError(status: IndexStatus): string | null {
  if (status.error === null) return null;
  if (status.state === 'database_unavailable') return 'the database cannot be reached';
  if (status.state === 'node_unreachable') return 'the chain node cannot be reached';
  if (status.state === 'rate_limited') return 'the chain node asked to slow down (HTTP 429); waiting as it said';
  return status.error
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<address>')
    .replace(/\b\d{1,3}(\.\d{1,3}){3}(:\d+)?\b/g, '<address>');
}

function indexerBody(live: IndexStatus | undefined, position: IndexPosition | undefined) {
  if (live) {
    return {
      state: live.state,
      chain_id: live.chainId,
      indexed_height: live.indexedHeight,
      tip_height: live.tipHeight,
      lag_blocks: live.lagBlocks,
      lag_seconds: live.lagSeconds === null ? null : Number(live.lagSeconds.toFixed(3)),
      error: publicIndexerError(live),
    };
  }
  return {
    state: position ? 'unknown (indexer runs in another process)' : 'not started',
    chain_id: position?.chainId ?? null,
    indexed_height: position?.lastHeight ?? null,
    tip_height: null,
    lag_blocks: null,
    lag_seconds: position ? Number(((Date.now() - position.lastBlockTime.getTime()) / 1000).toFixed(3)) : null,
    error: null,
  };
}

export function health(index: IndexSource, logger: Logger): Handler {
  return async (_req, res) => {
    const timestamp = new Date().toISOString();
    let position: IndexPosition | undefined;
    try {
      position = await withTimeout(index.position(), 3000);
    } catch (error) {
      // the cause goes to the log; a public body never names a host, port or user
      const unreachable = !(error instanceof DatabaseError) || error.unavailable;
      logger.warn({ err: error }, 'Health check: the database did not answer');
      throw unavailable(
        {
          status: 'error',
          timestamp,
          database: {
            status: unreachable ? 'unreachable' : 'error',
            error: unreachable ? 'the database cannot be reached' : 'the database failed the health query',
          },
        },
        5,
      );
    }
    const live = index.live?.();
    const body = { status: 'ok', timestamp, database: { status: 'ok' }, indexer: indexerBody(live, position) };
    // an indexer that refused the chain (or gave up) needs an operator: not healthy
    if (live?.state === 'failed') throw unavailable({ ...body, status: 'error' }, 60);
    sendJson(res, 200, body);
  };
}

const nullableInt = z.number().int().nullable();

/** What GET /api/health answers (both 200 and 503). */
export const healthSchema = z
  .strictObject({
    status: z.enum(['ok', 'error']),
    timestamp: z.iso.datetime(),
    database: z.strictObject({
      status: z.enum(['ok', 'unreachable', 'error']),
      error: z.string().optional().describe('why, naming no host, port or user'),
    }),
    indexer: z
      .strictObject({
        state: z
          .string()
          .describe(
            '`live`, `syncing`, `standby`, `lagging` (the node is behind the index: waiting for it), `rate_limited`, `node_unreachable`, `node_error` (the node answered with an error), `node_pruned` (the node no longer has the next block), `database_unavailable`, `starting`, `failed` or `stopped` (another process: `unknown (indexer runs in another process)`)',
          ),
        chain_id: z.string().nullable(),
        indexed_height: nullableInt,
        tip_height: nullableInt,
        lag_blocks: nullableInt,
        lag_seconds: z.number().nullable(),
        error: z.string().nullable(),
      })
      .optional()
      .describe('absent when the database cannot be reached'),
  })
  .meta({ id: 'Health' });

/** This file's routes (src/api/launchpad/route-table.ts serves and describes them). */
export const healthRoutes: LaunchpadRoute[] = [
  {
    method: 'get',
    path: '/api/health',
    tag: 'Launchpad',
    summary: "The service's health: the database and the indexer's lag",
    responses: {
      200: { description: 'The database answers', body: healthSchema },
      503: {
        description: 'The database cannot be reached, or the indexer stopped for an operator (`status: "error"`)',
        body: healthSchema,
        headers: { 'Retry-After': 'seconds to wait' },
      },
    },
    handler: (ctx) => health(ctx.index, ctx.logger),
  },
];
