// GET /api/candles over HTTP against a running server: one token with three days of older
// trades, so candles of every timeframe span materialized and real-time parts of the
// aggregates, and the devnet's traffic indexed live, all compared with an independent
// calculation from the trades.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LedgerTrade } from '../../src/devnet/index.ts';
import type { Trade } from '../../src/domain/events.ts';
import { randomAddress } from '../helpers/devnet.ts';
import { assertEncodings } from '../helpers/http.ts';
import {
  type ApiCtx,
  addOldToken,
  closeApi,
  get,
  indexLaunches,
  indexTraffic,
  type OldTokenCtx,
  openApi,
} from '../helpers/launchpad-api.ts';
import { makeTrade, servedCandles, TIMEFRAMES, type Timeframe } from '../helpers/trades.ts';

type Ctx = ApiCtx & OldTokenCtx;
const test = suite<Ctx>('launchpad API: candles', {} as Ctx);

const CANDLE_FIELDS = ['time', 'open', 'high', 'low', 'close', 'volume', 'trade_count'];

test.before(async (ctx) => {
  await openApi(ctx);
  await addOldToken(ctx);
  await indexLaunches(ctx, { blocks: 40, rate: 10, graduate: false });
});

test.after(closeApi);

/**
 * The candles the API should answer, from the in-memory oracle: the periods that start
 * within [from, to], the latest `limit` of them, ascending.
 */
function oracleCandles(trades: readonly Trade[], timeframe: Timeframe, from: Date, to: Date, limit: number) {
  return servedCandles(trades, timeframe)
    .filter((c) => Date.parse(c.time) >= from.getTime() && Date.parse(c.time) <= to.getTime())
    .slice(-limit);
}

const asTrade = (x: LedgerTrade) =>
  makeTrade({
    time: new Date(x.time),
    blockHeight: x.height,
    txIndex: x.txIndex,
    eventIndex: x.eventIndex,
    tokenAddress: x.token,
    priceUnative: x.priceUnative,
    volumeUnative: x.volumeUnative,
  });

test('GET /api/candles: all four timeframes equal an independent calculation from the trades', async (ctx) => {
  const { api, old } = ctx;
  const to = new Date();
  const from = new Date(to.getTime() - 4 * 86_400_000);
  for (const timeframe of Object.keys(TIMEFRAMES) as Timeframe[]) {
    for (const limit of [1000, 7]) {
      const { status, body } = await get(
        api,
        `/api/candles/${old}?timeframe=${timeframe}&from=${from.toISOString()}&to=${to.toISOString()}&limit=${limit}`,
      );
      assert.is(status, 200, timeframe);
      assert.is(body.token_address, old);
      assert.is(body.timeframe, timeframe);
      const expected = oracleCandles(ctx.oldTrades, timeframe, from, to, limit);
      assert.ok(expected.length > 0 && expected.length <= limit);
      assert.equal(body.candles, expected, `${timeframe} limit ${limit}`);
      for (const c of body.candles) {
        assert.equal(Object.keys(c), CANDLE_FIELDS);
        assert.ok(c.trade_count > 0 && c.volume !== '0', 'no zero-volume candles');
        assert.is(Date.parse(c.time) % TIMEFRAMES[timeframe], 0, 'candle time is the UTC start of its period');
      }
    }
  }
  // the devnet's tokens too, indexed live, with the default range (last 24 hours) and timeframe (1h)
  const busiest = [...new Set(ctx.devnet.ledger.trades.map((x) => x.token))][0]!;
  const { body } = await get(api, `/api/candles/${busiest}`);
  assert.is(body.timeframe, '1h');
  const now = new Date();
  assert.equal(
    body.candles,
    oracleCandles(
      ctx.devnet.ledger.tradesOf(busiest).map(asTrade),
      '1h',
      new Date(now.getTime() - 86_400_000),
      now,
      300,
    ),
  );
});

test('GET /api/candles: a trade just indexed is in its candle at once', async (ctx) => {
  const token = ctx.devnet.ledger.trades.at(-1)!.token;
  const before = await get(ctx.api, `/api/candles/${token}?timeframe=1m`);
  const countBefore = before.body.candles.reduce((s: number, c: { trade_count: number }) => s + c.trade_count, 0);
  // more trades, until this token trades again
  const tradedBefore = ctx.devnet.ledger.tradesOf(token).length;
  for (let i = 0; i < 20 && ctx.devnet.ledger.tradesOf(token).length === tradedBefore; i++)
    await indexTraffic(ctx, 1, 10);
  const traded = ctx.devnet.ledger.tradesOf(token).length;
  assert.ok(traded > tradedBefore, 'the token traded again');
  for (const timeframe of ['1m', '5m', '1h', '1d']) {
    const after = await get(ctx.api, `/api/candles/${token}?timeframe=${timeframe}`);
    assert.is(
      after.body.candles.reduce((s: number, c: { trade_count: number }) => s + c.trade_count, 0),
      countBefore + traded - tradedBefore,
      timeframe,
    );
  }
});

test('GET /api/candles: bad parameters are 400 naming the parameter; unknown token 404', async ({ api, old }) => {
  const cases: [string, string][] = [
    ['timeframe=2m', 'timeframe'],
    ['timeframe=1H', 'timeframe'],
    ['from=yesterday', 'from'],
    ['from=2026-01-01T00:00:00', 'from'], // no timezone
    ['from=2026-01-01', 'from'],
    ['to=2026-13-01T00:00:00Z', 'to'],
    ['from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'from'],
    ['limit=0', 'limit'],
    ['limit=1001', 'limit'],
    ['limit=ten', 'limit'],
  ];
  for (const [q, parameter] of cases) {
    const { status, body } = await get(api, `/api/candles/${old}?${q}`);
    assert.is(status, 400, q);
    assert.type(body.error, 'string');
    assert.ok(
      body.details.some((d: { parameter: string }) => d.parameter === parameter),
      `${q} names ${parameter}: ${JSON.stringify(body)}`,
    );
  }
  const offsets = await get(
    api,
    `/api/candles/${old}?from=${encodeURIComponent('2026-01-01T00:00:00+02:00')}&to=${encodeURIComponent('2026-01-02T00:00:00-05:00')}`,
  );
  assert.is(offsets.status, 200, 'offsets are timezones too');
  // the forming candle of a block time a little ahead of this clock, with no `to`: its candles
  const ahead = new Date(Math.floor(Date.now() / 60_000) * 60_000 + 60_000).toISOString();
  const forming = await get(api, `/api/candles/${old}?timeframe=1m&from=${ahead}`);
  assert.is(forming.status, 200, JSON.stringify(forming.body));
  assert.equal(forming.body.candles, []);
  const unknown = await get(api, `/api/candles/${randomAddress()}`);
  assert.is(unknown.status, 404);
  assert.equal(unknown.body, { error: 'Token not found' });
  const malformed = await get(api, '/api/candles/nope');
  assert.is(malformed.status, 400);
  assert.is(malformed.body.details[0].parameter, 'tokenAddress');
});

test('GET /api/candles: periods over and indexed are immutable (ETag, 304); others kept a second, not before the index', async (ctx) => {
  const { api, old } = ctx;
  const from = new Date(Date.now() - 3 * 86_400_000);
  const to = new Date(Date.now() - 86_400_000);
  const path = `/api/candles/${old}?timeframe=1h&from=${from.toISOString()}&to=${to.toISOString()}`;
  const expected = oracleCandles(ctx.oldTrades, '1h', from, to, 300);
  // the index's first block is the devnet's, after these periods: a backfill could still add to them
  const early = await get(api, path);
  assert.equal(early.body.candles, expected);
  assert.is(early.headers.get('cache-control'), 'public, max-age=1', 'not before the index');
  assert.is(early.headers.get('etag'), null);
  const open = await get(api, `/api/candles/${old}?timeframe=1h`);
  assert.is(open.headers.get('cache-control'), 'public, max-age=1', 'the current period moves');
  // an index that reaches back before them: every period of the range is over and indexed
  const [state] = await ctx.t.db.query<{ first_height: string }>('SELECT first_height FROM indexer_state');
  await ctx.t.db.query(
    `INSERT INTO blocks (height, hash, time, time_rfc3339, chain_id, proposer, tx_count, block)
     VALUES (0, 'EARLY', now() - interval '4 days', '', 'test', '', 0, '{}'::jsonb)`,
  );
  await ctx.t.db.query('UPDATE indexer_state SET first_height = 0');
  try {
    await new Promise((resolve) => setTimeout(resolve, 1100)); // the extent the route read is kept a second
    const closed = await get(api, path);
    assert.equal(closed.body, early.body, 'the same answer');
    // until retention (90 days, less a day) cuts its first candle: about 86 days from now
    const maxAge = Number(/^public, max-age=(\d+), immutable$/.exec(closed.headers.get('cache-control') ?? '')?.[1]);
    assert.ok(
      Math.abs(maxAge - (Date.parse(from.toISOString()) + 89 * 86_400_000 - Date.now()) / 1000) < 3700,
      `max-age ${maxAge}`,
    );
    const { json, etag } = await assertEncodings(`${api.url}${path}`);
    assert.is(closed.headers.get('etag'), `W/${etag}`, 'fetch takes gzip: the weak ETag of that form');
    assert.equal(JSON.parse(json.toString('utf8')), closed.body);
    const usd = await get(api, `${path}&currency=usd`);
    assert.is(usd.headers.get('cache-control'), 'public, max-age=1', 'USD figures wait for the oracle and decimals');
  } finally {
    await ctx.t.db.query(`UPDATE indexer_state SET first_height = ${Number(state!.first_height)}`);
    await ctx.t.db.query(`DELETE FROM blocks WHERE hash = 'EARLY'`);
  }
});

test.run();
