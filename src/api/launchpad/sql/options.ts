// How SQL over HTTP is served here (docs/sql.md "Configuration"): whether at all (SQL_API),
// its limits, its own per-client rate limit, and how many queries run at once.
import { isIP } from 'node:net';
import pLimit from 'p-limit';
import type { Database } from '../../../db/types.ts';
import { HttpError } from '../../http/errors.ts';
import { createRateLimit } from '../../http/rate-limit.ts';
import { createSqlRunner, type SqlLimits, type SqlRunner } from './run.ts';

export interface SqlOptions extends SqlLimits {
  /** on: served; off: not; loopback: served only when the API listens on a loopback address. */
  mode: 'on' | 'off' | 'loopback';
  /** Queries per client per rate-limit window. */
  rateLimit: number;
}

export interface SqlContext {
  /** Why SQL over HTTP is not served here; undefined when it is. */
  off?: string;
  runner: SqlRunner;
  /** The per-client limit: resolves, or throws the 429. */
  limit: ReturnType<typeof createRateLimit>;
  /** Runs a query when its turn comes; throws 503 when too many are waiting. */
  queue<T>(run: () => Promise<T>): Promise<T>;
}

/** The embedded database's cap on a query's estimated cost (EXPLAIN's units) unless SQL_MAX_COST says: about a second or two of its time. */
export const DEFAULT_SQL_MAX_COST = 250_000;

/** Queries waiting for their turn at most; past it a query is refused with 503. */
const MAX_WAITING = 32;

export const isLoopback = (host: string) =>
  host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));

/** Why SQL over HTTP is not served by an API listening on `host` in `mode`; undefined when it is. */
export function sqlOff(mode: SqlOptions['mode'], host: string): string | undefined {
  if (mode === 'off') return 'SQL_API=off';
  if (mode === 'loopback' && !isLoopback(host))
    return `the API listens on ${host}, not a loopback address, and SQL_API=loopback (the default) serves SQL only on loopback: set SQL_API=on to serve it here`;
  return undefined;
}

export function createSqlContext(
  db: Database,
  options: SqlOptions,
  api: { host: string; windowSeconds: number; trustedHops: number },
): SqlContext {
  const off = sqlOff(options.mode, api.host);
  // One at a time: embedded, a query holds the one session; on a server, one connection of
  // the pool, so that analysts' queries never take the database's cores (or connections)
  // from the indexer and the API (bench:sql measures the indexer's writes beside them).
  const running = pLimit(1);
  return {
    off,
    runner: createSqlRunner(db, options),
    limit: createRateLimit({
      points: options.rateLimit,
      windowSeconds: api.windowSeconds,
      trustedHops: api.trustedHops,
    }),
    queue: (run) => {
      if (running.pendingCount >= MAX_WAITING)
        throw new HttpError(
          503,
          'Too many queries are waiting',
          [{ message: `${MAX_WAITING} queries are waiting: retry in a second` }],
          {
            'Retry-After': 1,
          },
        );
      return running(run);
    },
  };
}
