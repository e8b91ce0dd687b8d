// Trades in, candles out: the continuous aggregates against an independent calculation.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runJobs } from '../../src/db/jobs.ts';
import type { Database } from '../../src/db/types.ts';
import { insertTrades } from '../../src/indexer/trades.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { expectedCandles, makeTrade, randomTrades, TIMEFRAMES, type Timeframe } from '../helpers/trades.ts';

const test = suite<{ t: TestDatabase; db: Database }>('candles', {} as never);
const DAY = 86_400_000;
const TOKENS = ['native1tokenaaa', 'native1tokenbbb', 'native1tokenccc'];
const frames = Object.keys(TIMEFRAMES) as Timeframe[];

async function candles(db: Database, timeframe: Timeframe, where = '') {
  return db.query(
    `SELECT token_address AS token, to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS bucket,
            open::text, high::text, low::text, close::text, volume::text, trade_count
     FROM candles_${timeframe} ${where} ORDER BY token_address, bucket`,
  );
}

const now = Date.now();
const start = new Date(Math.floor(now / DAY) * DAY - 3 * DAY);
const history = randomTrades({ seed: 7, from: start, to: new Date(now - 60 * 60_000), tokens: TOKENS, blocks: 400 });

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
  ctx.db = ctx.t.db;
  await insertTrades(ctx.db, history);
});
test.after(async (ctx) => ctx.t.dispose());

test('every timeframe equals the in-memory calculation before any refresh (real-time aggregation)', async ({ db }) => {
  for (const tf of frames) assert.equal(await candles(db, tf), expectedCandles(history, tf), `timeframe ${tf}`);
});

test('every timeframe still equals it once the refresh job has materialized the candles', async ({ db }) => {
  await runJobs(db, 'refresh');
  const [mat] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM _timescaledb_catalog.continuous_aggs_watermark WHERE watermark > 0`,
  );
  assert.is(mat!.n, 4, 'all four aggregates have a watermark');
  for (const tf of frames) assert.equal(await candles(db, tf), expectedCandles(history, tf), `timeframe ${tf}`);
});

test('open and close follow block height, tx index and event index when trades share one block time', async ({
  db,
}) => {
  const time = new Date(start.getTime() + 2 * DAY + 30 * 60_000 + 7_000);
  const token = 'native1sameblock';
  const at = (blockHeight: number, txIndex: number, eventIndex: number, nativeIn: bigint) =>
    makeTrade({ time, blockHeight, txIndex, eventIndex, tokenAddress: token }, nativeIn, 1_000_000n);
  // inserted out of order on purpose; the first by (height, tx, event) is (900,0,1), the last (900,3,0)
  await insertTrades(db, [
    at(900, 2, 5, 3_000_000n),
    at(900, 3, 0, 4_000_000n),
    at(900, 0, 1, 1_000_000n),
    at(900, 0, 2, 9_000_000n),
  ]);
  await runJobs(db, 'refresh');
  for (const tf of frames) {
    const [c] = await candles(db, tf, `WHERE token_address = '${token}'`);
    assert.is(c!.open, '990000', `${tf} open`);
    assert.is(c!.close, '3960000', `${tf} close`);
    assert.is(c!.high, '8910000', `${tf} high`);
    assert.is(c!.low, '990000', `${tf} low`);
    assert.is(c!.volume, `${990_000n + 8_910_000n + 2_970_000n + 3_960_000n}`, `${tf} volume`);
    assert.is(c!.trade_count, 4, `${tf} trade_count`);
  }
});

test('a period with no trades has no candle', async ({ db }) => {
  const token = 'native1gappy';
  const t0 = Math.floor((start.getTime() + DAY) / 3_600_000) * 3_600_000;
  await insertTrades(db, [
    makeTrade({ time: new Date(t0 + 10_000), blockHeight: 1000, tokenAddress: token }),
    makeTrade({ time: new Date(t0 + 3 * 60_000 + 10_000), blockHeight: 1001, tokenAddress: token }),
  ]);
  await runJobs(db, 'refresh'); // the period was materialized already: these are late trades
  const rows = await candles(db, '1m', `WHERE token_address = '${token}'`);
  assert.equal(
    rows.map((r) => r.bucket),
    [new Date(t0).toISOString(), new Date(t0 + 3 * 60_000).toISOString()],
  );
  assert.ok(rows.every((r) => Number(r.trade_count) > 0 && r.volume !== '0'));
});

test('a trade just inserted is visible in its candle at once, in every timeframe', async ({ db }) => {
  await runJobs(db, 'refresh');
  const token = 'native1fresh';
  const trade = makeTrade({ time: new Date(), blockHeight: 5000, tokenAddress: token }, 7_000_000n, 3_000_000n);
  await insertTrades(db, [trade]);
  for (const tf of frames) {
    const rows = await candles(db, tf, `WHERE token_address = '${token}'`);
    assert.equal(rows, expectedCandles([trade], tf), `timeframe ${tf}`);
  }
});

test('re-inserting the same trades stores nothing and changes no candle', async ({ db }) => {
  const before = await Promise.all(frames.map((tf) => candles(db, tf)));
  const [{ n: countBefore }] = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM trades')) as [
    { n: number },
  ];
  assert.is(await insertTrades(db, history), 0);
  await runJobs(db, 'refresh');
  const [{ n: countAfter }] = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM trades')) as [
    { n: number },
  ];
  assert.is(countAfter, countBefore);
  const after = await Promise.all(frames.map((tf) => candles(db, tf)));
  assert.equal(after, before);
});

test('trades written late into an already refreshed period appear after the refresh job', async ({ db }) => {
  const token = 'native1late';
  const late = randomTrades({
    seed: 11,
    from: new Date(start.getTime() + DAY),
    to: new Date(start.getTime() + 2 * DAY),
    tokens: [token],
    blocks: 30,
    startHeight: 20_000,
  });
  await insertTrades(db, late);
  await runJobs(db, 'refresh');
  for (const tf of frames)
    assert.equal(
      await candles(db, tf, `WHERE token_address = '${token}'`),
      expectedCandles(late, tf),
      `timeframe ${tf}`,
    );
});

test('candles older than 90 days are gone after the retention job runs; younger ones stay', async ({ db }) => {
  const token = 'native1old';
  const old = makeTrade({ time: new Date(now - 100 * DAY), blockHeight: 30_000, tokenAddress: token });
  const young = makeTrade({ time: new Date(now - 80 * DAY), blockHeight: 30_001, tokenAddress: token });
  await insertTrades(db, [old, young]);
  await runJobs(db, 'refresh');
  for (const tf of frames)
    assert.is((await candles(db, tf, `WHERE token_address = '${token}'`)).length, 2, `${tf} before retention`);
  await runJobs(db, 'retention');
  for (const tf of frames) {
    const rows = await candles(db, tf, `WHERE token_address = '${token}'`);
    assert.equal(rows, expectedCandles([young], tf), `${tf} after retention`);
  }
  const [{ n }] = (await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT bucket FROM candles_1m UNION ALL SELECT bucket FROM candles_5m UNION ALL SELECT bucket FROM candles_1h UNION ALL SELECT bucket FROM candles_1d) c WHERE bucket < now() - INTERVAL '90 days'`,
  )) as [{ n: number }];
  assert.is(n, 0, 'nothing older than 90 days anywhere');
});

test.run();
