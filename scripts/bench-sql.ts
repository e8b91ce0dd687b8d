// `npm run bench:sql [-- --trades 300000 --tokens 100 --duration 10 --connections 8]`
//
// SQL over HTTP (docs/sql.md) against the same read through the API, in one run:
//  (1) POST /api/sql: a daily-volume query over candles_1d (every day, summed over tokens),
//      and a 1,000-row read of one token's 1-minute candles (a random token each request);
//      beside GET /api/candles/:token?timeframe=1m&limit=1000 (the same 1,000 candles as the
//      API serves them, from its response cache once asked): req/s and p99 of each.
//  (2) The indexer's write latency at 1 block a second (a block of 20 trades through the
//      indexer's write path, writeBatch in one transaction: a block's write from the moment
//      it is due to its commit), p99 without SQL load and while (1)'s SQL queries run
//      (target: within 2x of the figure without).
// Data: --trades trades of --tokens tokens over 60 days, written as a backfill writes them,
// the candles refreshed. The API, the writer and the load run in this one process. Uses
// DATABASE_URL when set (in a new database made there and dropped after), otherwise an
// embedded TimescaleDB in a temporary directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { startLaunchpadApi } from '../src/api/launchpad/server.ts';
import { DEFAULT_SQL_MAX_COST } from '../src/api/launchpad/sql/options.ts';
import { openDatabase } from '../src/db/index.ts';
import { runJobs } from '../src/db/jobs.ts';
import { migrate } from '../src/db/migrate.ts';
import type { Database } from '../src/db/types.ts';
import type { Trade } from '../src/domain/events.ts';
import { insertTrades } from '../src/indexer/trades.ts';
import { freshServerDatabase } from '../test/helpers/database.ts';
import { makeTrade, rng } from '../test/helpers/trades.ts';
import { launchpadBenchOptions } from './lib/bench-servers.ts';
import { benchTokenAddress, createLiveWriter, zipf } from './lib/live-writer.ts';
import { type Load, type LoadRequest, warmLoad } from './lib/load.ts';
import { fmt, measured } from './lib/report.ts';
import { percentile } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    trades: { type: 'string', default: '300000' },
    tokens: { type: 'string', default: '100' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '8' },
    'lag-seconds': { type: 'string', default: '20' },
  },
});
const TRADES = Number(values.trades);
const TOKENS = Number(values.tokens);
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const LAG_SECONDS = Number(values['lag-seconds']);
const DAY = 86_400_000;

async function prepare(db: Database, tokens: string[]): Promise<void> {
  await migrate(db);
  const now = Date.now();
  await db.query(
    `INSERT INTO tokens (address, name, symbol, source, creator, first_seen_at, created_at, native_reserves, current_price, metadata_fetched)
     SELECT a, 'Bench ' || i, 'B' || i, 'launchpad', $2, $3::timestamptz, $3::timestamptz, 1000000000, 1000, true
     FROM unnest($1::text[]) WITH ORDINALITY AS u(a, i)`,
    [tokens, tokens[0], new Date(now - 61 * DAY)],
  );
  const r = rng(7);
  const pick = zipf(TOKENS, r.next);
  const from = now - 60 * DAY;
  const step = (60 * DAY - 60_000) / TRADES;
  let height = 1;
  for (let done = 0; done < TRADES; done += 50_000) {
    const rows: Trade[] = [];
    for (let i = done; i < Math.min(TRADES, done + 50_000); i++, height++)
      rows.push(
        makeTrade(
          { time: new Date(Math.floor(from + i * step)), blockHeight: height, tokenAddress: tokens[pick()]! },
          BigInt(r.int(1_000, 5_000_000_000)),
          BigInt(r.int(1_000, 9_000_000_000)),
        ),
      );
    await insertTrades(db, rows);
  }
  await db.query(
    `INSERT INTO indexer_state (chain_id, first_height, first_block_hash, last_height, last_block_hash, last_block_time)
     VALUES ('bench', 1, 'BENCH', $1, 'BENCH', $2)`,
    [height, new Date(now)],
  );
  await runJobs(db, 'refresh');
}

const line = (name: string, l: Load) =>
  `  ${name.padEnd(56)} ${fmt(l.rps).padStart(7)} req/s  p99 ${fmt(l.p99, 1).padStart(7)} ms${l.non2xx ? `  (${fmt(l.non2xx)} not 2xx)` : ''}`;

async function main() {
  const serverUrl = process.env.DATABASE_URL;
  const dir = serverUrl ? undefined : mkdtempSync(path.join(tmpdir(), 'launchpad-bench-sql-'));
  const fresh = serverUrl ? await freshServerDatabase(serverUrl) : undefined;
  const db = await openDatabase({ databaseUrl: fresh?.url, dataDir: dir ?? '' });
  try {
    const tokens = Array.from({ length: TOKENS }, (_, i) => benchTokenAddress(i));
    console.log(
      `bench:sql on ${db.kind === 'embedded' ? 'the embedded TimescaleDB' : 'a TimescaleDB server (DATABASE_URL)'}: ${fmt(TRADES)} trades of ${fmt(TOKENS)} tokens over 60 days`,
    );
    const started = performance.now();
    await prepare(db, tokens);
    console.log(`  prepared in ${fmt((performance.now() - started) / 1000, 1)} s`);
    const api = await startLaunchpadApi({
      ...launchpadBenchOptions(db),
      sql: {
        mode: 'loopback',
        maxRows: 10_000,
        rateLimit: 1_000_000_000,
        timeoutMs: 5_000,
        maxCost: db.kind === 'embedded' ? DEFAULT_SQL_MAX_COST : undefined,
      },
    });
    const r = rng(11);
    const pick = zipf(TOKENS, r.next);
    const post = (sql: string, params?: unknown[]): LoadRequest => ({
      path: '/api/sql',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(params ? { sql, params } : { sql }),
    });
    const DAILY = `SELECT day, sum(volume_unative) AS volume, sum(trade_count) AS trades FROM daily_volume GROUP BY day ORDER BY day`;
    const CANDLES = `SELECT bucket, open, high, low, close, volume, trade_count FROM candles_1m WHERE token_address = $1 ORDER BY bucket DESC LIMIT 1000`;
    const routes: [string, () => string | LoadRequest][] = [
      ['POST /api/sql: daily volume over candles_1d', () => post(DAILY)],
      ['POST /api/sql: 1,000 1-minute candles of a token', () => post(CANDLES, [tokens[pick()]])],
      [
        'GET /api/candles/:token?timeframe=1m&limit=1000',
        () => `/api/candles/${tokens[pick()]}?timeframe=1m&limit=1000`,
      ],
    ];
    console.log(
      `\n(1) HTTP load: autocannon, ${CONNECTIONS} connections, ${DURATION} s per run after a 2 s warm-up, in this process`,
    );
    const sqlLoads: Load[] = [];
    for (const [name, next] of routes) {
      const load = await warmLoad(api.url, next, { connections: CONNECTIONS, duration: DURATION });
      if (name.startsWith('POST')) sqlLoads.push(load);
      console.log(line(name, load));
    }

    console.log(
      `\n(2) the indexer's writes at 1 block a second (20 trades each through writeBatch): a block's write from when it is due to its commit, ${LAG_SECONDS} s each`,
    );
    const lag = async (withSql: boolean) => {
      const writer = createLiveWriter(db, {
        tradesPerBlock: 20,
        blockMs: 1000,
        tokenFor: () => tokens[pick()]!,
      });
      await writer.start();
      let load: Load | undefined;
      if (withSql) {
        let k = 0;
        load = await warmLoad(api.url, () => (k++ % 2 ? post(DAILY) : post(CANDLES, [tokens[pick()]])), {
          connections: CONNECTIONS,
          duration: LAG_SECONDS,
        });
      } else await new Promise((resolve) => setTimeout(resolve, (LAG_SECONDS + 2) * 1000));
      const stats = await writer.stop();
      return { stats, load };
    };
    const quiet = await lag(false);
    const busy = await lag(true);
    const p99 = (ms: number[]) => percentile(ms, 99);
    const q = p99(quiet.stats.commitMs);
    const b = p99(busy.stats.commitMs);
    console.log(
      `  without SQL load: p99 ${fmt(q, 1)} ms, p50 ${fmt(percentile(quiet.stats.commitMs, 50), 1)} ms (${quiet.stats.blocks} blocks, ${quiet.stats.late} late)`,
    );
    console.log(
      `  with SQL load:    p99 ${fmt(b, 1)} ms, p50 ${fmt(percentile(busy.stats.commitMs, 50), 1)} ms (${busy.stats.blocks} blocks, ${busy.stats.late} late; ${fmt(busy.load!.rps)} SQL queries/s meanwhile, p99 ${fmt(busy.load!.p99, 1)} ms)`,
    );
    console.log(`  ratio ${fmt(b / q, 2)}x (target <= 2x)`);
    measured(
      'req/s = a run of autocannon (after a 2 s warm-up) over its duration; the SQL routes are never cached, GET /api/candles answers from its response cache once asked; the write latency includes waiting for the database (the embedded one has one session, shared with the SQL queries)',
    );
    await api.close();
  } finally {
    await db.close();
    await fresh?.dispose();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

await main();
