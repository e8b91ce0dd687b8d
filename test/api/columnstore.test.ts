// Trades a week old in the columnstore (sql/0015_columnstore.sql), compressed by the hourly
// upkeep (runJobs 'retention', as the embedded service and a server's job run it; its batches
// in LZ4 where the server has it: sql/0022_trades_columnstore_lz4.sql): a
// token's whole history pages back across compressed and uncompressed chunks, a trader's too,
// candles equal the trades, a backfill writes into a compressed chunk without duplicates, and
// a chunk written into after it was compressed is compressed again whole (0023).
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LaunchpadApi } from '../../src/api/launchpad/server.ts';
import { JobsFailedError, runJobs } from '../../src/db/jobs.ts';
import type { Trade } from '../../src/domain/events.ts';
import { notify } from '../../src/feed/notice.ts';
import { insertTrades } from '../../src/indexer/trades.ts';
import {
  batchCompression,
  hasLz4,
  holdCompressionJobs,
  openTestDatabase,
  type TestDatabase,
} from '../helpers/database.ts';
import { randomAddress } from '../helpers/devnet.ts';
import { get, startApi } from '../helpers/launchpad-api.ts';
import { makeTrade, rng, servedCandles } from '../helpers/trades.ts';
import { waitFor } from '../helpers/wait.ts';

const test = suite<{ t: TestDatabase; api: LaunchpadApi; tokens: string[]; traders: string[]; trades: Trade[] }>(
  'columnstore',
  { t: undefined as never, api: undefined as never, tokens: [], traders: [], trades: [] },
);

const DAY = 86_400_000;
const r = rng(26);
const seqOf = (t: Trade) => (BigInt(t.blockHeight) << 32n) | (BigInt(t.txIndex) << 16n) | BigInt(t.eventIndex);
const newestFirst = (a: Trade, b: Trade) => b.time.getTime() - a.time.getTime() || Number(seqOf(b) - seqOf(a));
const position = (t: Trade) => `${t.blockHeight}-${t.txIndex}-${t.eventIndex}`;

/** A trade as a chain makes it: a random 32-byte tx hash, one of a few traders. */
function trade(ctx: { tokens: string[]; traders: string[] }, time: number, height: number, txIndex: number): Trade {
  return makeTrade(
    {
      time: new Date(time),
      blockHeight: height,
      txIndex,
      eventIndex: r.int(0, 2),
      tokenAddress: ctx.tokens[r.next() < 0.6 ? 0 : r.int(1, ctx.tokens.length - 1)]!,
      trader: r.pick(ctx.traders),
      txHash: randomBytes(32).toString('hex').toUpperCase(),
    },
    BigInt(r.int(1_000, 50_000_000)),
    BigInt(r.int(1_000, 90_000_000)),
  );
}

/** Blocks and their trades written as a backfill writes them (announcing that anything may have changed), then the candles refreshed. */
async function write(ctx: { t: TestDatabase }, trades: readonly Trade[]): Promise<void> {
  await insertTrades(ctx.t.db, trades);
  await ctx.t.db.query(
    `INSERT INTO blocks (height, hash, time, time_rfc3339, chain_id, proposer, tx_count, block)
     SELECT DISTINCT block_height, 'COLUMNSTORE' || block_height, time, '', 'test', '', 1, '{}'::jsonb FROM trades
     ON CONFLICT DO NOTHING`,
  );
  await notify(ctx.t.db, { kind: 'anything' });
  await runJobs(ctx.t.db, 'refresh');
}

const compressedChunks = async (ctx: { t: TestDatabase }) =>
  Number(
    (
      await ctx.t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM chunk_compression_stats('trades') WHERE compression_status = 'Compressed'`,
      )
    )[0]!.n,
  );

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
  await holdCompressionJobs(ctx.t);
  ctx.tokens = Array.from({ length: 3 }, () => randomAddress());
  ctx.traders = Array.from({ length: 5 }, () => randomAddress());
  await ctx.t.db.query(
    `INSERT INTO tokens (address, name, symbol, source, first_seen_at, created_at, native_reserves, current_price, metadata_fetched)
     SELECT a, 'C', 'C', 'launchpad', now() - interval '40 days', now() - interval '40 days', 1000, 1000, true FROM unnest($1::text[]) a`,
    [ctx.tokens],
  );
  // 30 days of blocks, one every ~2 hours, up to a minute ago
  const now = Date.now();
  let height = 1;
  for (let at = now - 30 * DAY; at < now - 60_000; at += r.int(3_600_000, 10_800_000), height++)
    for (let k = r.int(1, 3); k > 0; k--) ctx.trades.push(trade(ctx, at, height, k));
  await write(ctx, ctx.trades);
  await ctx.t.db.query(
    `UPDATE tokens t SET last_trade_at = m.at, price_seq = m.seq FROM (SELECT token_address, max(time) AS at, max(seq) AS seq FROM trades GROUP BY 1) m
     WHERE m.token_address = t.address`,
  );
  ctx.api = await startApi(ctx.t.db);
});

test.after(async (ctx) => {
  await ctx.api?.close();
  await ctx.t?.dispose();
});

/** Every trade `query` pages to, 7 a page, following `before`. */
async function pageAll(api: LaunchpadApi, query: string): Promise<string[]> {
  const seen: string[] = [];
  let before: string | undefined;
  for (let page = 0; page < 500; page++) {
    const { status, body } = await get(api, `/api/trades/recent?${query}&limit=7${before ? `&before=${before}` : ''}`);
    assert.is(status, 200);
    if (body.trades.length === 0) return seen;
    seen.push(...body.trades.map((t: { position: string }) => t.position));
    before = body.trades.at(-1).position;
  }
  throw new Error('more than 500 pages');
}

test('the hourly upkeep moves week-old chunks to the columnstore, and only those', async (ctx) => {
  assert.is(await compressedChunks(ctx), 0, 'nothing compressed before the upkeep');
  await runJobs(ctx.t.db, 'retention');
  assert.ok((await compressedChunks(ctx)) >= 20, 'the chunks of the days before the last week');
  const [hot] = await ctx.t.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM chunk_compression_stats('trades') s
     JOIN timescaledb_information.chunks c ON c.chunk_name = s.chunk_name
     WHERE s.compression_status = 'Compressed' AND c.range_end > now() - interval '7 days'`,
  );
  assert.is(Number(hot!.n), 0, 'the last week stays in the rowstore');
  // its batches' values compressed again with LZ4 where the server has it (0022), else pglz
  // (pglz leaves a value as it is unless it saves a quarter: the embedded database's may show none)
  const methods = await batchCompression(ctx.t.db, 'trades', ['trader', 'token_address', 'tx_hash', 'time']);
  if (await hasLz4(ctx.t.db)) assert.equal(methods, ['lz4'], 'the batches compressed with LZ4');
  else
    assert.ok(
      methods.every((m) => m === 'pglz'),
      `pglz only: ${methods}`,
    );
});

test("a token's whole history, and a trader's, page back across compressed chunks: each trade once, newest first", async (ctx) => {
  for (const token of ctx.tokens) {
    const expected = ctx.trades
      .filter((t) => t.tokenAddress === token)
      .sort(newestFirst)
      .map(position);
    assert.equal(await pageAll(ctx.api, `token_address=${token}`), expected, 'a token');
  }
  const trader = ctx.traders[0]!;
  const expected = ctx.trades
    .filter((t) => t.trader === trader)
    .sort(newestFirst)
    .map(position);
  assert.equal(await pageAll(ctx.api, `trader=${trader}`), expected, 'a trader');
});

test('candles over compressed chunks equal the trades', async (ctx) => {
  const token = ctx.tokens[0]!;
  const from = new Date(Date.now() - 31 * DAY).toISOString();
  for (const timeframe of ['1h', '1d'] as const) {
    const { body } = await get(ctx.api, `/api/candles/${token}?timeframe=${timeframe}&from=${from}&limit=1000`);
    const expected = servedCandles(
      ctx.trades.filter((t) => t.tokenAddress === token),
      timeframe,
    );
    assert.equal(body.candles, expected, timeframe);
  }
});

test('a backfill writes into a compressed chunk: a new trade is found, a replayed one is not stored twice', async (ctx) => {
  const before = await compressedChunks(ctx);
  const old = ctx.trades.find((t) => t.time.getTime() < Date.now() - 20 * DAY)!;
  const added = trade(ctx, old.time.getTime(), old.blockHeight, 9);
  await write(ctx, [old, added]); // `old` replayed: the backfill skips what is stored
  ctx.trades.push(added);
  const [{ n }] = (await ctx.t.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM trades WHERE block_height = $1`,
    [old.blockHeight],
  )) as [{ n: number }];
  assert.is(
    Number(n),
    ctx.trades.filter((t) => t.blockHeight === old.blockHeight).length,
    'every trade of that block, once',
  );
  // the API drops what it cached when it hears the backfill's notice
  let pages: string[] = [];
  await waitFor(async () => {
    pages = await pageAll(ctx.api, `token_address=${added.tokenAddress}`);
    return pages.includes(position(added));
  }, 10_000);
  assert.is(new Set(pages).size, pages.length, 'no trade twice');
  assert.ok((await compressedChunks(ctx)) >= before - 1, 'the chunks stay in the columnstore');
});

/** `n` trades of many tokens within an hour of `at`, as a day of a busy chain has (more than a compressed batch holds). */
function busyDay(at: number, n: number, firstHeight: number): Trade[] {
  const tokens = Array.from({ length: 40 }, () => randomAddress());
  return Array.from({ length: n }, (_, i) =>
    makeTrade(
      {
        time: new Date(at + i * 1000),
        blockHeight: firstHeight + i,
        txIndex: 0,
        eventIndex: 0,
        tokenAddress: tokens[r.int(0, tokens.length - 1)]!,
        trader: randomAddress(),
        txHash: randomBytes(32).toString('hex').toUpperCase(),
      },
      BigInt(r.int(1_000, 50_000_000)),
      BigInt(r.int(1_000, 90_000_000)),
    ),
  );
}

test('a chunk written into after it was compressed is compressed again whole: grouped and ordered in the compression order, each token once', async (ctx) => {
  // a day 33 days old, before the other tests' trades (at most 30 days old)
  const day = Math.floor((Date.now() - 33 * DAY) / DAY) * DAY + 30 * 60_000;
  const trades = busyDay(day, 3000, 1_000_000);
  await insertTrades(ctx.t.db, trades);
  await runJobs(ctx.t.db, 'retention');
  // a backfill's late trade of one of those tokens, in the middle of the day, then the upkeep again
  const late = { ...trades[1500]!, time: new Date(day + 1500 * 1000 + 500), blockHeight: 2_000_000, txIndex: 1 };
  late.txHash = randomBytes(32).toString('hex').toUpperCase();
  await insertTrades(ctx.t.db, [late]);
  await runJobs(ctx.t.db, 'retention');
  const all = [...trades, late];
  const [chunk] = await ctx.t.db.query<{ compressed: boolean }>(
    `SELECT is_compressed AS compressed FROM timescaledb_information.chunks
     WHERE hypertable_name = 'trades' AND range_start <= $1 AND range_end > $1`,
    [new Date(day)],
  );
  assert.ok(chunk?.compressed, 'the day is in the columnstore again');
  const range = [new Date(day), new Date(day + 3600_000)];
  const counts = await ctx.t.db.query<{ token: string; n: number }>(
    `SELECT token_address AS token, count(*)::int AS n FROM trades WHERE time >= $1 AND time < $2 GROUP BY token_address`,
    range,
  );
  const expected = new Map<string, number>();
  for (const t of all) expected.set(t.tokenAddress, (expected.get(t.tokenAddress) ?? 0) + 1);
  assert.is(counts.length, expected.size, 'each token one group');
  for (const c of counts) assert.is(Number(c.n), expected.get(c.token), c.token);
  const ordered = await ctx.t.db.query<{ token: string; position: string }>(
    `SELECT token_address AS token, block_height || '-' || tx_index || '-' || event_index AS position FROM trades
     WHERE time >= $1 AND time < $2 ORDER BY token_address, time DESC, seq DESC`,
    range,
  );
  const sorted = [...all].sort((a, b) =>
    a.tokenAddress < b.tokenAddress ? -1 : a.tokenAddress > b.tokenAddress ? 1 : newestFirst(a, b),
  );
  assert.equal(
    ordered.map((o) => o.position),
    sorted.map(position),
    'in the compression order',
  );
});

test('a failing job of the upkeep does not keep the others from running, and is named', async (ctx) => {
  const day = Math.floor((Date.now() - 35 * DAY) / DAY) * DAY + 30 * 60_000;
  await ctx.t.db.query(
    `SELECT alter_job(job_id, config => '{"keep": "not an interval"}') FROM timescaledb_information.jobs WHERE proc_name = 'prune_candles'`,
  );
  try {
    const chunkOf = async () =>
      (
        await ctx.t.db.query<{ compressed: boolean }>(
          `SELECT is_compressed AS compressed FROM timescaledb_information.chunks
           WHERE hypertable_name = 'trades' AND range_start <= $1 AND range_end > $1`,
          [new Date(day)],
        )
      )[0];
    await insertTrades(ctx.t.db, busyDay(day, 20, 3_000_000));
    assert.is((await chunkOf())?.compressed, false, 'a new chunk, in the rowstore');
    const err = await runJobs(ctx.t.db, 'retention').catch((e) => e);
    assert.instance(err, JobsFailedError);
    assert.equal(
      (err as JobsFailedError).failures.map((f) => f.job),
      ['prune_candles'],
    );
    assert.match(err.message, /prune_candles failed: .*not an interval/);
    assert.is((await chunkOf())?.compressed, true, 'the trades of the day compressed all the same');
  } finally {
    await ctx.t.db.query(
      `SELECT alter_job(job_id, config => '{"keep": "90 days"}') FROM timescaledb_information.jobs WHERE proc_name = 'prune_candles'`,
    );
  }
});

test('a job an operator paused waits on the embedded schedule as on a server; run by hand, it runs', async (ctx) => {
  const day = Math.floor((Date.now() - 37 * DAY) / DAY) * DAY + 30 * 60_000;
  const compressed = async () =>
    (
      await ctx.t.db.query<{ compressed: boolean }>(
        `SELECT is_compressed AS compressed FROM timescaledb_information.chunks
         WHERE hypertable_name = 'trades' AND range_start <= $1 AND range_end > $1`,
        [new Date(day)],
      )
    )[0]?.compressed;
  const schedule = (on: boolean) =>
    ctx.t.db.query(
      `SELECT alter_job(job_id, scheduled => $1) FROM timescaledb_information.jobs WHERE proc_name = 'compress_trades'`,
      [on],
    );
  await schedule(false);
  try {
    await insertTrades(ctx.t.db, busyDay(day, 20, 4_000_000));
    await runJobs(ctx.t.db, 'retention', { skipPaused: true });
    assert.is(await compressed(), false, 'paused: the day stays in the rowstore');
    await runJobs(ctx.t.db, 'retention');
    assert.is(await compressed(), true, 'run by hand');
  } finally {
    // a server's jobs stay held for the tests (holdCompressionJobs)
    if (ctx.t.db.kind === 'embedded') await schedule(true);
  }
});

test.run();
