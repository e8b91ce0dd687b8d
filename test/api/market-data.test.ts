// The market figures of the Launchpad API (docs/launchpad-api.md "Token", "Token list",
// "Trade", "Holders and traders", "Candles"), each against an oracle of the test's own: the
// devnet's ledger of its contracts' events, the CW20 contracts' own `balance` and
// `token_info` answers, the oracle price the test set, and, for price changes over hours, the
// trades the test wrote itself.
import { toBase64, toUtf8 } from '@cosmjs/encoding';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChainClient, createChainClient } from '../../src/chain/client.ts';
import { runJobs } from '../../src/db/jobs.ts';
import type { LedgerTrade } from '../../src/devnet/index.ts';
import type { Trade } from '../../src/domain/events.ts';
import { indexSource } from '../../src/indexer/indexer.ts';
import { insertTrades } from '../../src/indexer/trades.ts';
import { attr, randomAddress, wasmClient } from '../helpers/devnet.ts';
import { launchToken, produceTraffic, setOraclePrice, withBlocks } from '../helpers/indexing.ts';
import {
  type ApiCtx,
  addOldToken,
  apiCaughtUp,
  closeApi,
  get,
  type OldTokenCtx,
  openApi,
  startApi,
} from '../helpers/launchpad-api.ts';
import { makeTrade, rng } from '../helpers/trades.ts';
import { waitFor } from '../helpers/wait.ts';

type Ctx = ApiCtx &
  OldTokenCtx & {
    chain: ChainClient;
    /** The API with a node (USD figures), beside ctx.api, which has none. */
    usdApi: ApiCtx['api'];
    token: string;
    receiver: string;
    /** Addresses later tests sent the token to. */
    recipients: string[];
  };
const test = suite<Ctx>('launchpad API: market data', {} as Ctx);

const NATIVE = 1_000_000n;
const USD_MICRO = 750_000n; // one NATIVE = $0.75

async function caughtUp(ctx: Ctx) {
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 60_000);
  await apiCaughtUp(ctx);
  const read = async () =>
    (await ctx.t.db.query(`SELECT 1 FROM tokens WHERE NOT metadata_fetched OR supply_stale LIMIT 1`)).length === 0;
  assert.ok(await waitFor(read, 15_000, 50), 'every token has its metadata and supply');
}

test.before(async (ctx) => {
  await openApi(ctx);
  await addOldToken(ctx);
  // as the indexer keeps a token: its last trade's time and price (the helper writes only the trades)
  await ctx.t.db.query(
    `UPDATE tokens t SET last_trade_at = l.time, current_price = l.price_unative
     FROM (SELECT time, price_unative FROM trades WHERE token_address = $1 ORDER BY time DESC, seq DESC LIMIT 1) l
     WHERE t.address = $1`,
    [ctx.old],
  );
  ctx.chain = createChainClient(ctx.devnet.rpcUrl);
  ctx.usdApi = await startApi(ctx.t.db, {
    index: indexSource(ctx.t.db, ctx.running.indexer),
    wallet: { chain: ctx.chain, accountPrefix: 'native', launchpad: ctx.devnet.contracts.launchpad },
  });
  await setOraclePrice(ctx.devnet, USD_MICRO);
  ({ token: ctx.token } = await launchToken(ctx.devnet, 1, { name: 'Market Maker', symbol: 'MKT' }));
  const users = await Promise.all([2, 3, 4].map((i) => wasmClient(ctx.devnet, i)));
  try {
    const [a, b, c] = users as [(typeof users)[0], (typeof users)[0], (typeof users)[0]];
    const buy = (u: typeof a, amount: bigint) =>
      withBlocks(
        ctx.devnet,
        u.execute(ctx.devnet.contracts.launchpad, { buy: { token_address: ctx.token } }, [
          { denom: 'unative', amount: String(amount) },
        ]),
      );
    const bought = async (u: typeof a, amount: bigint) =>
      BigInt(attr((await buy(u, amount)).events, 'wasm-buy')[0]!.tokens_out!);
    const aTokens = await bought(a, 30n * NATIVE);
    const bTokens = await bought(b, 20n * NATIVE);
    await bought(c, 10n * NATIVE);
    // a gives half away; b sells everything (to a zero balance)
    ctx.receiver = randomAddress();
    ctx.recipients = [];
    await withBlocks(
      ctx.devnet,
      a.execute(ctx.token, { transfer: { recipient: ctx.receiver, amount: String(aTokens / 2n) } }),
    );
    const sell = {
      send: { contract: ctx.devnet.contracts.launchpad, amount: String(bTokens), msg: toBase64(toUtf8('{"sell":{}}')) },
    };
    await withBlocks(ctx.devnet, b.execute(ctx.token, sell));
  } finally {
    for (const u of users) u.client.disconnect();
  }
  await produceTraffic(ctx.devnet, 20, 8);
  await caughtUp(ctx);
});

test.after(async (ctx) => {
  await ctx.usdApi?.close();
  await closeApi(ctx);
});

/** Every address that can hold the token: its traders, the test's users and receiver, the contracts. */
async function chainHolders(ctx: Ctx, token: string): Promise<Map<string, bigint>> {
  const users = await Promise.all([1, 2, 3, 4].map(async (i) => await wasmClient(ctx.devnet, i)));
  for (const u of users) u.client.disconnect();
  const candidates = new Set([
    ...ctx.devnet.ledger.tradesOf(token).map((t) => t.trader),
    ...users.map((u) => u.address),
    ctx.receiver,
    ...ctx.recipients,
    ctx.devnet.contracts.launchpad,
    ctx.devnet.contracts.amm,
  ]);
  const balances = new Map<string, bigint>();
  for (const address of candidates) {
    const { balance } = await ctx.chain.smartQuery<{ balance: string }>(token, { balance: { address } });
    if (BigInt(balance) > 0n) balances.set(address, BigInt(balance));
  }
  return balances;
}

const within24h = (t: LedgerTrade) => Date.parse(t.time) > Date.now() - 86_400_000 + 60_000;

test('a token: supply and market cap from its contract, buys, sells and traders from the chain, holders after a transfer and a sell to zero', async (ctx) => {
  const { body } = await get(ctx.usdApi, `/api/tokens/${ctx.token}`);
  const trades = ctx.devnet.ledger.tradesOf(ctx.token).filter(within24h);
  const info = await ctx.chain.smartQuery<{ total_supply: string; decimals: number }>(ctx.token, { token_info: {} });
  const price = ctx.devnet.ledger.tradesOf(ctx.token).at(-1)!.priceUnative;
  assert.is(body.total_supply, info.total_supply, "total_supply is the contract's");
  assert.is(body.market_cap_unative, String((BigInt(info.total_supply) * price) / 1_000_000n));
  assert.is(body.buys_24h, trades.filter((t) => t.direction === 'native_to_token').length);
  assert.is(body.sells_24h, trades.filter((t) => t.direction === 'token_to_native').length);
  assert.ok(body.sells_24h >= 1, 'the sell is counted');
  assert.is(body.traders_24h, new Set(trades.map((t) => t.trader)).size);
  const holders = await chainHolders(ctx, ctx.token);
  assert.is(body.holders, holders.size, 'holders: the addresses whose contract balance is positive');

  // USD: the oracle price the test set, × the index's integers
  const usd = Number(USD_MICRO) / 1e6;
  const close = (a: string, b: number, what: string) =>
    assert.ok(Math.abs(Number(a) - b) <= b * 1e-11, `${what}: ${a} vs ${b}`);
  close(body.price_usd, (((Number(price) / 1e6) * 10 ** info.decimals) / 1e6) * usd, 'price_usd');
  close(body.market_cap_usd, (Number(body.market_cap_unative) / 1e6) * usd, 'market_cap_usd');
  close(body.volume_24h_usd, (Number(trades.reduce((s, t) => s + t.volumeUnative, 0n)) / 1e6) * usd, 'volume_24h_usd');

  const plain = await get(ctx.api, `/api/tokens/${ctx.token}`);
  assert.is(plain.body.price_usd, null, 'no USD figure without a price source');
  assert.is(plain.body.market_cap_usd, null);
  assert.is(plain.body.market_cap_unative, body.market_cap_unative);
});

const WINDOWS = [
  ['5m', 300_000],
  ['1h', 3_600_000],
  ['6h', 21_600_000],
  ['24h', 86_400_000],
] as const;

const chainOrder = (a: Trade, b: Trade) =>
  a.time.getTime() - b.time.getTime() ||
  a.blockHeight - b.blockHeight ||
  a.txIndex - b.txIndex ||
  a.eventIndex - b.eventIndex;

/**
 * The price change of each window computed from the trades themselves: percent from the last
 * trade at or before its start to the last trade, truncated to hundredths; undefined for a
 * window whose start is within a few seconds of a trade (it may fall either side while a
 * request runs).
 */
function priceChanges(trades: readonly Trade[], now: number): Record<string, string | null | undefined> {
  const sorted = [...trades].sort(chainOrder);
  const current = sorted.at(-1)!.priceUnative;
  const out: Record<string, string | null | undefined> = {};
  for (const [w, ms] of WINDOWS) {
    const before = sorted.filter((t) => t.time.getTime() <= now - ms).at(-1);
    const near = trades.some((t) => Math.abs(t.time.getTime() - (now - ms)) < 10_000);
    if (near) out[w] = undefined;
    else if (!before) out[w] = null;
    else {
      const hundredths = ((current - before.priceUnative) * 10_000n) / before.priceUnative;
      const abs = hundredths < 0n ? -hundredths : hundredths;
      out[w] = `${hundredths < 0n ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
    }
  }
  return out;
}

function assertChanges(got: Record<string, string | null>, expected: Record<string, string | null | undefined>) {
  for (const [w] of WINDOWS) if (expected[w] !== undefined) assert.is(got[w], expected[w], `price_change ${w}`);
}

test('price change: against the last price at or before each window start; null without one', async (ctx) => {
  const { body } = await get(ctx.api, `/api/tokens/${ctx.old}`);
  assertChanges(body.price_change, priceChanges(ctx.oldTrades, Date.now()));
  const fresh = await get(ctx.api, `/api/tokens/${ctx.token}`);
  assert.equal(fresh.body.price_change, { '5m': null, '1h': null, '6h': null, '24h': null }, 'launched minutes ago');
});

test("a token's answer, once kept, follows a transfer to a new holder", async (ctx) => {
  const before = await get(ctx.api, `/api/tokens/${ctx.token}`);
  const a = await wasmClient(ctx.devnet, 2);
  try {
    const recipient = randomAddress();
    ctx.recipients.push(recipient);
    await withBlocks(ctx.devnet, a.execute(ctx.token, { transfer: { recipient, amount: '1' } }));
  } finally {
    a.client.disconnect();
  }
  await caughtUp(ctx);
  const after = await get(ctx.api, `/api/tokens/${ctx.token}`);
  assert.is(after.body.holders, before.body.holders + 1, 'one holder more');
  assert.is(after.body.holders, (await chainHolders(ctx, ctx.token)).size, "as the contracts' balances count them");
});

test('a token that trades rarely: its price changes and its pages reach back months', async (ctx) => {
  const now = Date.now();
  const day = 86_400_000;
  const r = rng(31);
  const make = (token: string, firstHeight: number, daysAgo: number[]) =>
    daysAgo.flatMap((ago, i) =>
      Array.from({ length: r.int(1, 3) }, (_, k) =>
        makeTrade(
          {
            time: new Date(now - ago * day),
            blockHeight: firstHeight + i,
            txIndex: k,
            eventIndex: 0,
            tokenAddress: token,
          },
          BigInt(r.int(1_000, 50_000_000)),
          BigInt(r.int(1_000, 90_000_000)),
        ),
      ),
    );
  // a day or more between trades, then one a minute ago; and one untraded for 100 days before it
  const [rare, dormant] = [randomAddress(), randomAddress()];
  const trades = {
    [rare]: make(rare, 3_000_000, [100, 40, 20, 5, 3, 2.5, 1.5, 0.2, 1 / 1440]),
    [dormant]: make(dormant, 4_000_000, [100.5, 100, 1 / 1440]),
  };
  for (const [token, list] of Object.entries(trades)) {
    const last = [...list].sort(chainOrder).at(-1)!;
    await ctx.t.db.query(
      `INSERT INTO tokens (address, name, symbol, source, first_seen_at, created_at, native_reserves, current_price, last_trade_at, metadata_fetched)
       VALUES ($1, 'Rare', 'RARE', 'launchpad', now() - interval '101 days', now() - interval '101 days', 1000, $2, $3, true)`,
      [token, last.priceUnative.toString(), last.time],
    );
    await insertTrades(ctx.t.db, list);
  }
  // the rare token's blocks are indexed (a page's `before` is then bounded by its block's time), the dormant one's not
  await ctx.t.db.query(
    `INSERT INTO blocks (height, hash, time, time_rfc3339, chain_id, proposer, tx_count, block)
     SELECT DISTINCT block_height, 'RARE' || block_height, time, '', 'test', '', 1, '{}'::jsonb FROM trades WHERE token_address = $1`,
    [rare],
  );
  await runJobs(ctx.t.db, 'refresh');
  for (const [token, list] of Object.entries(trades)) {
    const { body } = await get(ctx.api, `/api/tokens/${token}`);
    assertChanges(body.price_change, priceChanges(list, Date.now()));
    // newest first, two at a time, down to the first trade 100 days back
    const seen: string[] = [];
    let before: string | undefined;
    for (let page = 0; page < 50; page++) {
      const { body: p } = await get(
        ctx.api,
        `/api/trades/recent?token_address=${token}&limit=2${before ? `&before=${before}` : ''}`,
      );
      if (p.trades.length === 0) break;
      seen.push(...p.trades.map((t: { position: string }) => t.position));
      before = p.trades.at(-1).position;
    }
    const expected = [...list]
      .sort(chainOrder)
      .reverse()
      .map((t) => `${t.blockHeight}-${t.txIndex}-${t.eventIndex}`);
    assert.equal(seen, expected, 'every trade once, newest first');
    const all = await get(ctx.api, `/api/trades/recent?token_address=${token}&limit=100`);
    assert.equal(
      all.body.trades.map((t: { position: string }) => t.position),
      expected,
      'a page larger than the history: all of it',
    );
  }
  await ctx.t.db.query(`DELETE FROM blocks WHERE hash LIKE 'RARE%'`);
});

test('a cached token answer changes when a trade leaves a window, with no new trade', async (ctx) => {
  const token = randomAddress();
  const now = Date.now();
  const trades = [
    makeTrade(
      { time: new Date(now - 7_200_000), blockHeight: 5_000_000, txIndex: 0, eventIndex: 0, tokenAddress: token },
      1_000_000n,
      2_000_000n,
    ),
    makeTrade(
      { time: new Date(now - 300_000 + 3_000), blockHeight: 5_000_001, txIndex: 0, eventIndex: 0, tokenAddress: token },
      3_000_000n,
      2_000_000n,
    ),
  ];
  const last = trades[1]!;
  await ctx.t.db.query(
    `INSERT INTO tokens (address, name, symbol, source, first_seen_at, created_at, native_reserves, current_price, last_trade_at, metadata_fetched)
     VALUES ($1, 'Edge', 'EDGE', 'launchpad', now() - interval '1 day', now() - interval '1 day', 1000, $2, $3, true)`,
    [token, last.priceUnative.toString(), last.time],
  );
  await insertTrades(ctx.t.db, trades);
  const first = await get(ctx.api, `/api/tokens/${token}`);
  assert.ok(first.body.price_change['5m'] !== '0.00', 'the 5-minute window holds the last trade');
  const [p1, p2] = trades.map((t) => t.priceUnative) as [bigint, bigint];
  assert.is(
    first.body.price_change['5m'],
    (Number(((p2 - p1) * 10_000n) / p1) / 100).toFixed(2),
    'from the earlier trade',
  );
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, last.time.getTime() + 300_000 - Date.now()) + 500));
  const later = await get(ctx.api, `/api/tokens/${token}`);
  assert.is(later.body.price_change['5m'], '0.00', 'once it left the window: nothing changed within it');
  assert.is(later.body.price_change['1h'], first.body.price_change['1h'], 'the hour still holds it');
});

test("holders and traders of a token: the contract's balances, largest first; the ledger's trades by trader", async (ctx) => {
  const holders = await chainHolders(ctx, ctx.token);
  const { body } = await get(ctx.api, `/api/tokens/${ctx.token}/holders?limit=1000`);
  const expected = [...holders]
    .sort(([a, x], [b, y]) => (x === y ? (a < b ? -1 : 1) : x > y ? -1 : 1))
    .map(([address, balance]) => address + balance);
  assert.equal(
    body.holders.map((h: { address: string; balance: string }) => h.address + h.balance),
    expected,
  );
  const supply = BigInt(body.total_supply);
  for (const h of body.holders)
    assert.is(h.share, (Number((BigInt(h.balance) * 1_000_000n) / supply) / 1e6).toFixed(6));
  const two = await get(ctx.api, `/api/tokens/${ctx.token}/holders?limit=2`);
  assert.equal(two.body.holders, body.holders.slice(0, 2));

  const traders = await get(ctx.api, `/api/tokens/${ctx.token}/traders?window=24h`);
  const by = new Map<string, { volume: bigint; buys: number; sells: number; trades: number }>();
  for (const t of ctx.devnet.ledger.tradesOf(ctx.token).filter(within24h)) {
    const s = by.get(t.trader) ?? { volume: 0n, buys: 0, sells: 0, trades: 0 };
    s.volume += t.volumeUnative;
    s.trades++;
    if (t.direction === 'native_to_token') s.buys++;
    else s.sells++;
    by.set(t.trader, s);
  }
  assert.equal(
    traders.body.traders,
    [...by]
      .sort(([a, x], [b, y]) => (x.volume === y.volume ? (a < b ? -1 : 1) : x.volume > y.volume ? -1 : 1))
      .map(([address, s]) => ({
        address,
        volume_unative: String(s.volume),
        buys: s.buys,
        sells: s.sells,
        trades: s.trades,
      })),
  );
  assert.is((await get(ctx.api, `/api/tokens/${randomAddress()}/holders`)).status, 404);
  assert.is((await get(ctx.api, `/api/tokens/${randomAddress()}/traders`)).status, 404);
});

test("paging back through a token's history with `before` visits every trade once, in chain order, while blocks arrive", async (ctx) => {
  const busiest = [...new Set(ctx.devnet.ledger.trades.map((t) => t.token))].sort(
    (a, b) => ctx.devnet.ledger.tradesOf(b).length - ctx.devnet.ledger.tradesOf(a).length,
  )[0]!;
  const seen: string[] = [];
  let before: string | undefined;
  let first: string | undefined;
  for (let page = 0; page < 1000; page++) {
    const { status, body } = await get(
      ctx.api,
      `/api/trades/recent?token_address=${busiest}&limit=7${before ? `&before=${before}` : ''}`,
    );
    assert.is(status, 200);
    if (body.trades.length === 0) break;
    first ??= body.trades[0].position;
    seen.push(...body.trades.map((t: { position: string }) => t.position));
    before = body.trades.at(-1).position;
    if (page % 3 === 0) await produceTraffic(ctx.devnet, 1, 6); // new blocks while paging
  }
  const order = (p: string) => p.split('-').map(Number) as [number, number, number];
  const expected = ctx.devnet.ledger
    .tradesOf(busiest)
    .map((t) => `${t.height}-${t.txIndex}-${t.eventIndex}`)
    .filter((p) => {
      const [h, t, e] = order(p);
      const [fh, ft, fe] = order(first!);
      return h < fh || (h === fh && (t < ft || (t === ft && e <= fe)));
    })
    .reverse();
  assert.equal(seen, expected, "each trade once, newest first, down to the token's first");

  // filters: one trader's trades, by action, by volume (once the blocks made while paging are indexed)
  await caughtUp(ctx);
  const trader = ctx.devnet.ledger.tradesOf(busiest)[0]!.trader;
  const mine = await get(ctx.api, `/api/trades/recent?trader=${trader}&limit=100`);
  assert.ok(mine.body.trades.length > 0);
  assert.ok(mine.body.trades.every((t: { trader: string }) => t.trader === trader));
  assert.is(mine.body.trades.length, Math.min(100, ctx.devnet.ledger.trades.filter((t) => t.trader === trader).length));
  const sells = await get(ctx.api, `/api/trades/recent?token_address=${busiest}&action=sell&limit=100`);
  assert.is(
    sells.body.trades.length,
    Math.min(100, ctx.devnet.ledger.tradesOf(busiest).filter((t) => t.action === 'sell').length),
  );
  const big = ctx.devnet.ledger
    .tradesOf(busiest)
    .map((t) => t.volumeUnative)
    .sort((a, b) => (a < b ? 1 : -1))[4]!;
  const large = await get(ctx.api, `/api/trades/recent?token_address=${busiest}&min_volume=${big}&limit=100`);
  assert.is(large.body.trades.length, ctx.devnet.ledger.tradesOf(busiest).filter((t) => t.volumeUnative >= big).length);
  const bad = await get(ctx.api, '/api/trades/recent?before=12&action=hold');
  assert.is(bad.status, 400);
  assert.equal(bad.body.details.map((d: { parameter: string }) => d.parameter).sort(), ['action', 'before']);
});

test('the token list sorted, filtered and paged: the same tokens as a sort of the whole list', async (ctx) => {
  await caughtUp(ctx);
  const { body: whole } = await get(ctx.api, '/api/tokens');
  assert.is(whole.next_cursor, undefined, "the plain list is the specification's");
  type T = Record<string, unknown> & { address: string };
  const tokens = whole.tokens as T[];
  const keyOf: Record<string, (t: T) => bigint | null> = {
    first_seen_at: (t) => BigInt(Date.parse(t.first_seen_at as string)),
    volume_24h: (t) => BigInt(t.volume_24h as string),
    market_cap: (t) => (t.market_cap_unative === null ? null : BigInt(t.market_cap_unative as string)),
    price_change_24h: (t) => {
      const p = (t.price_change as Record<string, string | null>)['24h'] ?? null;
      return p === null ? null : BigInt(p.replace('.', ''));
    },
    trade_count_24h: (t) => BigInt(t.trade_count_24h as number),
  };
  for (const [sort, key] of Object.entries(keyOf)) {
    for (const order of ['desc', 'asc']) {
      const expected = [...tokens]
        .sort((a, b) => {
          const x = key(a);
          const y = key(b);
          if (x !== y) {
            if (x === null) return 1;
            if (y === null) return -1;
            return (x < y ? -1 : 1) * (order === 'desc' ? -1 : 1);
          }
          return a.address < b.address ? -1 : 1;
        })
        .map((t) => t.address);
      const got: string[] = [];
      let cursor: string | null = null;
      do {
        const { status, body } = await get(
          ctx.api,
          `/api/tokens?sort=${sort}&order=${order}&limit=3${cursor ? `&cursor=${cursor}` : ''}`,
        );
        assert.is(status, 200);
        got.push(...body.tokens.map((t: T) => t.address));
        cursor = body.next_cursor;
      } while (cursor);
      assert.equal(got, expected, `${sort} ${order}`);
    }
  }
  const graduated = await get(ctx.api, '/api/tokens?graduated=true');
  assert.equal(
    graduated.body.tokens.map((t: T) => t.address),
    tokens.filter((t) => t.graduated).map((t) => t.address),
  );
  const q = await get(ctx.api, '/api/tokens?q=mk');
  assert.equal(
    q.body.tokens.map((t: T) => t.address),
    [ctx.token],
    'a symbol prefix, any case',
  );
  const badCursor = await get(ctx.api, '/api/tokens?limit=2&cursor=nope');
  assert.is(badCursor.status, 400);
  // a search box's every keystroke is a query of its own: none is kept in the API's cache
  // (pages go with the snapshot they were cut from)
  const kept = ctx.api.stats().cachedResponses;
  for (let i = 0; i < 40; i++) assert.is((await get(ctx.api, `/api/tokens?q=search${i}`)).status, 200);
  assert.is(ctx.api.stats().cachedResponses, kept, 'no entry a query');
});

test('candles in USD: the native candles at the oracle price set before them', async (ctx) => {
  const native = await get(ctx.api, `/api/candles/${ctx.token}?timeframe=1m`);
  const usd = await get(ctx.api, `/api/candles/${ctx.token}?timeframe=1m&currency=usd`);
  assert.is(usd.body.currency, 'usd');
  assert.is(usd.body.candles.length, native.body.candles.length);
  assert.ok(native.body.candles.length > 0);
  const rate = Number(USD_MICRO) / 1e6;
  native.body.candles.forEach((c: Record<string, string>, i: number) => {
    const u = usd.body.candles[i];
    assert.is(u.time, c.time);
    for (const f of ['open', 'high', 'low', 'close'])
      assert.ok(Math.abs(Number(u[f]) - (Number(c[f]) / 1e6) * rate) <= Number(u[f]) * 1e-11, `${f}`);
    assert.ok(Math.abs(Number(u.volume) - (Number(c.volume) / 1e6) * rate) <= Number(u.volume) * 1e-11, 'volume');
  });
  const old = await get(ctx.api, `/api/candles/${ctx.old}?timeframe=1h&currency=usd`);
  assert.ok(
    old.body.candles.every((c: Record<string, unknown>) => c.close === null),
    'no USD figure before any oracle price (and without decimals)',
  );
});

test.run();
