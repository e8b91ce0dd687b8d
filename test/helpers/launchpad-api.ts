// The Launchpad API over HTTP against a running server, as the test/api files set it up: a
// test database, a devnet, an indexer following it and the API reading the index, plus the
// steps that fill the index (devnet traffic, three days of older trades for one token) and
// wait until the API has seen all of it.

import { type LaunchpadApi, type LaunchpadApiOptions, startLaunchpadApi } from '../../src/api/launchpad/server.ts';
import { DEFAULT_SQL_MAX_COST } from '../../src/api/launchpad/sql/options.ts';
import type { NativeCoin } from '../../src/chain/native-coin.ts';
import { runJobs } from '../../src/db/jobs.ts';
import { storeTokenStates } from '../../src/db/tokens.ts';
import type { Database } from '../../src/db/types.ts';
import type { Devnet } from '../../src/devnet/index.ts';
import type { Trade } from '../../src/domain/events.ts';
import { notify } from '../../src/feed/notice.ts';
import { indexSource } from '../../src/indexer/indexer.ts';
import { insertTrades } from '../../src/indexer/trades.ts';
import { silentLogger } from '../../src/internal/logger.ts';
import { openTestDatabase, type TestDatabase } from './database.ts';
import { randomAddress, startDevnet } from './devnet.ts';
import { getJson } from './http.ts';
import { produceTraffic, setOraclePrice, startIndexer } from './indexing.ts';
import { closeStarted } from './teardown.ts';
import { makeTrade, rng } from './trades.ts';
import { waitFor } from './wait.ts';

export interface ApiCtx {
  t: TestDatabase;
  devnet: Devnet;
  running: ReturnType<typeof startIndexer>;
  api: LaunchpadApi;
}

export interface OldTokenCtx {
  /** the token with three days of synthetic trades */
  old: string;
  oldTrades: Trade[];
}

export const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The devnet's native coin: 10^6 unative make one NATIVE. */
export const DEVNET_NATIVE: NativeCoin = { denom: 'unative', display: 'NATIVE', decimals: 6 };

/** GETs `path` from the API: status, headers and the JSON body (read loosely). */
export function get(api: LaunchpadApi, path: string, headers: Record<string, string> = {}) {
  return getJson(`${api.url}${path}`, headers);
}

/**
 * Another API process on `db`: silent, on a free port, 1000 requests a minute per client, the
 * devnet's native coin, the index's position read from the database, and SQL over HTTP as the
 * service serves it; `options` overrides any of that.
 */
export function startApi(db: Database, options: Partial<LaunchpadApiOptions> = {}): Promise<LaunchpadApi> {
  return startLaunchpadApi({
    db,
    logger: silentLogger,
    host: '127.0.0.1',
    port: 0,
    rateLimit: { points: 1000, windowSeconds: 60, trustedHops: 0 },
    index: indexSource(db),
    native: DEVNET_NATIVE,
    // SQL over HTTP as the service serves it on a loopback address
    sql: {
      mode: 'loopback',
      maxRows: 10_000,
      rateLimit: 1000,
      timeoutMs: 5000,
      maxCost: db.kind === 'embedded' ? DEFAULT_SQL_MAX_COST : undefined,
    },
    ...options,
  });
}

/**
 * A test database, a devnet, an indexer following it and the API under test (a limit no test
 * reaches, keepalive comments every 250 ms), into `ctx`.
 */
export async function openApi(ctx: ApiCtx): Promise<void> {
  ctx.t = await openTestDatabase();
  ctx.devnet = await startDevnet();
  ctx.running = startIndexer(ctx.t.db, ctx.devnet, { pollIntervalMs: 100 });
  ctx.api = await startApi(ctx.t.db, {
    rateLimit: { points: 100_000, windowSeconds: 60, trustedHops: 0 },
    index: indexSource(ctx.t.db, ctx.running.indexer),
    keepaliveMs: 250,
  });
}

/** Stops what openApi started; each step runs even when the one before fails (a test may have closed the database). */
export function closeApi(ctx: Partial<ApiCtx>): Promise<void> {
  return closeStarted(ctx);
}

/**
 * Three days of trades of one token, several per block time, into `ctx.old` and
 * `ctx.oldTrades`, the older ones materialized in the candle aggregates.
 */
export async function addOldToken(ctx: ApiCtx & OldTokenCtx): Promise<void> {
  ctx.old = randomAddress();
  await ctx.t.db.query(
    `INSERT INTO tokens (address, name, symbol, source, first_seen_at, created_at, creator, native_reserves, current_price, metadata_fetched)
     VALUES ($1, 'Old Timer', 'OLD', 'launchpad', now() - interval '3 days', now() - interval '3 days', $2, 1000, 500, true)`,
    [ctx.old, randomAddress()],
  );
  const r = rng(7);
  const start = Date.now() - 3 * 86_400_000;
  ctx.oldTrades = [];
  for (let height = 1, at = start; at < Date.now() - 5_000; height++, at += r.int(20_000, 400_000)) {
    const n = r.int(1, 4); // trades sharing one block time: open/close must follow chain order
    for (let i = 0; i < n; i++) {
      ctx.oldTrades.push(
        makeTrade(
          {
            time: new Date(at),
            blockHeight: 1_000_000 + height,
            txIndex: i,
            eventIndex: r.int(0, 3),
            tokenAddress: ctx.old,
          },
          BigInt(r.int(1_000, 50_000_000)),
          BigInt(r.int(1_000, 90_000_000)),
        ),
      );
    }
  }
  // Written directly, as a backfill writes them (the trades, the token's state, a notice that
  // anything may have changed): trades in periods the refresh job may have materialized
  // already reach their candles with its next run (a server also runs it on its own).
  await insertTrades(ctx.t.db, ctx.oldTrades);
  const last = ctx.oldTrades.at(-1)!;
  const seq = String((BigInt(last.blockHeight) << 32n) | (BigInt(last.txIndex) << 16n) | BigInt(last.eventIndex));
  await storeTokenStates(ctx.t.db, [
    {
      address: ctx.old,
      reserves: '1000',
      seq,
      price: String(last.priceUnative),
      lastTradeAt: last.time.toISOString(),
      tradeSeq: seq,
      graduatedAt: null,
    },
  ]);
  await notify(ctx.t.db, { kind: 'anything' });
  await runJobs(ctx.t.db, 'refresh');
}

/**
 * Devnet traffic, indexed and served: `blocks` blocks of `rate` trades each and, with
 * `graduate`, more until a token graduates (the oracle price set so that one does within a
 * short run). Resolves once every block is indexed, every token has its metadata and the API
 * has read every event.
 */
export async function indexLaunches(
  ctx: ApiCtx,
  { blocks, rate, graduate }: { blocks: number; rate: number; graduate: boolean },
): Promise<void> {
  if (graduate) await setOraclePrice(ctx.devnet, 5_000_000n);
  await produceTraffic(ctx.devnet, blocks, rate);
  if (graduate)
    for (let i = 0; i < 30 && ctx.devnet.ledger.graduations.length === 0; i++)
      await produceTraffic(ctx.devnet, 5, rate);
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 60_000);
  // metadata of AMM-born tokens comes from contract queries after the block is indexed
  let pending = -1;
  const fetched = async () => {
    [{ pending }] = (await ctx.t.db.query<{ pending: number }>(
      `SELECT count(*)::int AS pending FROM tokens WHERE NOT metadata_fetched`,
    )) as [{ pending: number }];
    return pending === 0;
  };
  if (!(await waitFor(fetched, 10_000, 100))) throw new Error(`${pending} tokens still without metadata after 10 s`);
  await apiCaughtUp(ctx);
}

/** Waits until the API process has read every committed outbox row (its caches are fresh from then on). */
export async function apiCaughtUp({ t, api }: Pick<ApiCtx, 't' | 'api'>): Promise<void> {
  const [{ high }] = (await t.db.query<{ high: number | null }>(`SELECT max(id) AS high FROM feed_events`)) as [
    { high: number | null },
  ];
  if (!(await waitFor(() => api.stats().lastEventId >= Number(high ?? 0), 10_000)))
    throw new Error(`API at event ${api.stats().lastEventId}, outbox at ${high} after 10 s`);
}

/** `blocks` more blocks of `rate` trades each, indexed and read by the API. */
export async function indexTraffic(ctx: ApiCtx, blocks: number, rate: number): Promise<void> {
  await produceTraffic(ctx.devnet, blocks, rate);
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
  await apiCaughtUp(ctx);
}
