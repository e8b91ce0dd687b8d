// The last day of trades in memory (src/api/launchpad/trade-windows.ts) against figures
// computed here from the trades themselves: seeded, caught up with trades written after it,
// a trade leaving the day while the windows hold it, trades written out of chain order, and
// a day too large to keep (the database computes the figures then).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTradeWindows } from '../../src/api/launchpad/trade-windows.ts';
import { type ListedToken, listedTokens, storeTokenStates } from '../../src/db/tokens.ts';
import type { Trade } from '../../src/domain/events.ts';
import { insertTrades } from '../../src/indexer/trades.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { randomAddress } from '../helpers/devnet.ts';
import { makeTrade, rng } from '../helpers/trades.ts';

const test = suite<{ t: TestDatabase; tokens: string[]; trades: Trade[]; height: number }>('trade windows', {
  t: undefined as never,
  tokens: [],
  trades: [],
  height: 1000,
});

const DAY = 86_400_000;
const WINDOWS = { '5m': 300_000, '1h': 3_600_000, '6h': 21_600_000, '24h': DAY } as const;
const TRADERS = Array.from({ length: 7 }, () => randomAddress());
const r = rng(2024);
const seqOf = (t: Trade) => (BigInt(t.blockHeight) << 32n) | (BigInt(t.txIndex) << 16n) | BigInt(t.eventIndex);
const chainOrder = (a: Trade, b: Trade) => a.time.getTime() - b.time.getTime() || Number(seqOf(a) - seqOf(b));

/**
 * Trades of `token` at these times (ms before now, oldest first), one block each from `height`
 * on, written as the indexer writes them: the trades, then the token's state at its last one.
 */
async function write(
  ctx: { t: TestDatabase; trades: Trade[] },
  token: string,
  agoMs: readonly number[],
  height: number,
): Promise<void> {
  const now = Date.now();
  const trades = agoMs.map((ago, i) =>
    makeTrade(
      {
        time: new Date(now - ago),
        blockHeight: height + i,
        txIndex: r.int(0, 2),
        eventIndex: r.int(0, 2),
        tokenAddress: token,
        trader: r.pick(TRADERS),
        ...(r.next() < 0.4 ? { action: 'sell' as const, direction: 'token_to_native' as const } : {}),
      },
      BigInt(r.int(1_000, 50_000_000)),
      BigInt(r.int(1_000, 90_000_000)),
    ),
  );
  await insertTrades(ctx.t.db, trades);
  const all = [...ctx.trades, ...trades].filter((t) => t.tokenAddress === token);
  const last = all.reduce((a, b) => (seqOf(b) > seqOf(a) ? b : a));
  await storeTokenStates(ctx.t.db, [
    {
      address: token,
      reserves: '1000',
      seq: String(seqOf(last)),
      price: String(last.priceUnative),
      lastTradeAt: last.time.toISOString(),
      tradeSeq: String(seqOf(last)),
      graduatedAt: null,
    },
  ]);
  ctx.trades.push(...trades);
}

/** A token's figures computed from its trades alone, at `now`. */
function expected(trades: readonly Trade[], token: string, now: number) {
  const mine = trades.filter((t) => t.tokenAddress === token).sort(chainOrder);
  const day = mine.filter((t) => t.time.getTime() > now - DAY);
  const before = (ms: number) => {
    const last = mine.filter((t) => t.time.getTime() <= now - ms).at(-1);
    return last ? String(last.priceUnative) : null;
  };
  return {
    volume_24h: String(day.reduce((s, t) => s + t.volumeUnative, 0n)),
    trade_count_24h: day.length,
    buys_24h: day.filter((t) => t.direction === 'native_to_token').length,
    sells_24h: day.filter((t) => t.direction === 'token_to_native').length,
    traders_24h: new Set(day.map((t) => t.trader)).size,
    price_before_5m: before(WINDOWS['5m']),
    price_before_1h: before(WINDOWS['1h']),
    price_before_6h: before(WINDOWS['6h']),
    price_before_24h: before(DAY),
  };
}

const figuresOf = (t: ListedToken) => ({
  volume_24h: t.volume_24h,
  trade_count_24h: t.trade_count_24h,
  buys_24h: t.buys_24h,
  sells_24h: t.sells_24h,
  traders_24h: t.traders_24h,
  price_before_5m: t.price_before_5m,
  price_before_1h: t.price_before_1h,
  price_before_6h: t.price_before_6h,
  price_before_24h: t.price_before_24h,
});

function assertFigures(
  listed: readonly ListedToken[],
  trades: readonly Trade[],
  tokens: readonly string[],
  what: string,
) {
  const now = Date.now();
  for (const token of tokens) {
    const row = listed.find((t) => t.address === token);
    assert.ok(row, `${what}: ${token} listed`);
    assert.equal(figuresOf(row), expected(trades, token, now), `${what}: ${token}`);
  }
}

/** A token launched three days ago, not traded yet. */
async function addToken(ctx: { t: TestDatabase; tokens: string[] }): Promise<string> {
  const token = randomAddress();
  ctx.tokens.push(token);
  await ctx.t.db.query(
    `INSERT INTO tokens (address, name, symbol, source, first_seen_at, created_at, native_reserves, current_price, metadata_fetched)
     VALUES ($1, 'W', 'W', 'launchpad', now() - interval '3 days', now() - interval '3 days', 1000, 1000, true)`,
    [token],
  );
  return token;
}

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
  ctx.tokens = Array.from({ length: 4 }, () => randomAddress());
  await ctx.t.db.query(
    `INSERT INTO tokens (address, name, symbol, source, first_seen_at, created_at, native_reserves, current_price, metadata_fetched)
     SELECT a, 'W', 'W', 'launchpad', now() - interval '3 days', now() - interval '3 days', 1000, 1000, true FROM unnest($1::text[]) a`,
    [ctx.tokens],
  );
  const spread = (n: number, from: number, to: number) =>
    Array.from({ length: n }, () => r.int(to, from)).sort((a, b) => b - a);
  // a busy token over two days, a sparse one, one whose last trade is two days old, one never traded
  const [busy, sparse, stale] = ctx.tokens as [string, string, string, string];
  await write(ctx, busy, spread(300, 2 * DAY, 60_000), 1000);
  await write(ctx, sparse, [1.5 * DAY, 20 * 3_600_000, 2 * 3_600_000, 120_000], 2000);
  await write(ctx, stale, [2 * DAY], 3000);
  ctx.height = 4000;
});

test.after(async (ctx) => {
  await ctx.t.dispose();
});

test('seeded from the index: every figure as the trades give it, and as the database computes it', async (ctx) => {
  const windows = createTradeWindows(ctx.t.db);
  assertFigures(await windows.listedTokens(), ctx.trades, ctx.tokens, 'the list');
  const [one] = await windows.listedTokens(ctx.tokens[0]);
  assertFigures([one!], ctx.trades, [ctx.tokens[0]!], 'one token');
  const database = await listedTokens(ctx.t.db);
  const mine = await windows.listedTokens();
  for (const token of ctx.tokens)
    assert.equal(
      figuresOf(mine.find((t) => t.address === token)!),
      figuresOf(database.find((t) => t.address === token)!),
      'as the database computes them',
    );
  assert.ok((windows.stats()?.trades ?? 0) > 0, 'the day is held in memory');
});

test('trades written after the windows were read are in the next answer', async (ctx) => {
  const windows = createTradeWindows(ctx.t.db);
  await windows.listedTokens();
  const [busy, , stale, never] = ctx.tokens as [string, string, string, string];
  await write(ctx, busy, [30_000, 20_000], ctx.height);
  await write(ctx, stale, [10_000], ctx.height + 10);
  await write(ctx, never, [5_000, 4_000], ctx.height + 20);
  ctx.height += 100;
  assertFigures(await windows.listedTokens(stale), ctx.trades, [stale], 'one token, caught up');
  assertFigures(await windows.listedTokens(), ctx.trades, ctx.tokens, 'the list, caught up');
});

test('a trade that leaves the day while held: its figures drop it, its price is the price before the day', async (ctx) => {
  const edge = await addToken(ctx);
  await write(ctx, edge, [1.2 * DAY, DAY - 2_500, DAY - 60_000], ctx.height);
  ctx.height += 10;
  const windows = createTradeWindows(ctx.t.db);
  const held = await windows.listedTokens(edge);
  assert.is(held[0]!.trade_count_24h, 2, 'within the day');
  assertFigures(held, ctx.trades, [edge], 'within the day');
  await new Promise((resolve) => setTimeout(resolve, 3_500));
  const after = await windows.listedTokens(edge);
  assertFigures(after, ctx.trades, [edge], 'after it left');
  assert.is(after[0]!.trade_count_24h, 1, 'one trade fewer');
});

test('trades written below the chain order the windows reached, without a notice: read again from the index', async (ctx) => {
  const windows = createTradeWindows(ctx.t.db);
  await windows.listedTokens();
  const late = await addToken(ctx);
  await write(ctx, late, [7_200_000, 600_000], 10); // heights far below every other trade
  assertFigures(await windows.listedTokens(late), ctx.trades, [late], 'one token');
  assertFigures(await windows.listedTokens(), ctx.trades, ctx.tokens, 'the list');
});

test('a day of more trades than kept: the database computes the figures', async (ctx) => {
  const windows = createTradeWindows(ctx.t.db, { maxTrades: 10 });
  assertFigures(await windows.listedTokens(), ctx.trades, ctx.tokens, 'the list');
  assert.is(windows.stats(), undefined, 'nothing held');
  const reset = createTradeWindows(ctx.t.db);
  await reset.listedTokens();
  reset.reset();
  assert.is(reset.stats(), undefined, 'dropped by a reset');
  assertFigures(await reset.listedTokens(), ctx.trades, ctx.tokens, 'read again after a reset');
});

test.run();
