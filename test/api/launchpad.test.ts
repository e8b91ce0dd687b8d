// The Launchpad API over HTTP against a running server: the devnet's traffic indexed into
// the embedded TimescaleDB, plus three days of older trades for one token, so candles of
// every timeframe span materialized and real-time parts of the aggregates.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { toBech32 } from '@cosmjs/encoding';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type LaunchpadApi, startLaunchpadApi } from '../../src/api/launchpad/server.ts';
import { runJobs } from '../../src/db/jobs.ts';
import type { Devnet, LedgerTrade } from '../../src/devnet/index.ts';
import type { Trade } from '../../src/domain/events.ts';
import { encodeNotice, FEED_CHANNEL } from '../../src/feed/notice.ts';
import { indexSource } from '../../src/indexer/indexer.ts';
import { insertTrades } from '../../src/indexer/trades.ts';
import { silentLogger } from '../../src/internal/logger.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { produceTraffic, setOraclePrice, startDevnet, startIndexer } from '../helpers/indexing.ts';
import { openSse } from '../helpers/sse.ts';
import { expectedCandles, makeTrade, rng, TIMEFRAMES, type Timeframe } from '../helpers/trades.ts';

interface Ctx {
  t: TestDatabase;
  devnet: Devnet;
  running: ReturnType<typeof startIndexer>;
  api: LaunchpadApi;
  /** the token with three days of synthetic trades */
  old: string;
  oldTrades: Trade[];
}
const test = suite<Ctx>('launchpad API', {} as Ctx);

const TOKEN_FIELDS = [
  'address',
  'name',
  'symbol',
  'image',
  'description',
  'creator',
  'source',
  'graduated',
  'native_reserves',
  'current_price',
  'volume_24h',
  'trade_count_24h',
  'created_at',
  'first_seen_at',
];
const TRADE_FIELDS = [
  'time',
  'block_height',
  'tx_hash',
  'source',
  'action',
  'direction',
  'token_address',
  'price_unative',
  'volume_unative',
  'volume_token',
  'fee_unative',
  'trader',
  'token_name',
  'token_symbol',
];
const CANDLE_FIELDS = ['time', 'open', 'high', 'low', 'close', 'volume', 'trade_count'];
const SSE_TRADE_FIELDS = [
  'token_address',
  'action',
  'direction',
  'input_amount',
  'output_amount',
  'price_unative',
  'trader',
  'tx_hash',
  'time',
  'native_reserves',
];
const INTEGER = /^(0|[1-9]\d*)$/;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const randomAddress = () => toBech32('native', randomBytes(32));

async function get(api: LaunchpadApi, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${api.url}${path}`, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** Waits until the API process has read every committed outbox row (its caches are fresh from then on). */
async function apiCaughtUp({ t, api }: Pick<Ctx, 't' | 'api'>) {
  const [{ high }] = (await t.db.query<{ high: number | null }>(`SELECT max(id) AS high FROM feed_events`)) as [
    { high: number | null },
  ];
  const deadline = Date.now() + 10_000;
  while (api.stats().lastEventId < Number(high ?? 0)) {
    if (Date.now() > deadline) throw new Error(`API at event ${api.stats().lastEventId}, outbox at ${high}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function indexTraffic(ctx: Ctx, blocks: number, rate: number) {
  await produceTraffic(ctx.devnet, blocks, rate);
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
  await apiCaughtUp(ctx);
}

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
  ctx.devnet = await startDevnet();
  await setOraclePrice(ctx.devnet, 5_000_000n); // graduations within a short run
  ctx.running = startIndexer(ctx.t.db, ctx.devnet, { pollIntervalMs: 100 });
  ctx.api = await startLaunchpadApi({
    db: ctx.t.db,
    logger: silentLogger,
    host: '127.0.0.1',
    port: 0,
    rateLimit: { points: 100_000, windowSeconds: 60, trustedHops: 0 },
    index: indexSource(ctx.t.db, ctx.running.indexer),
    keepaliveMs: 250,
  });

  // three days of trades of one token, several per block time, older ones materialized
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
  // Written directly, as a backfill writes them: trades in periods the refresh job may have
  // materialized already reach their candles with its next run (a server also runs it on its own).
  await insertTrades(ctx.t.db, ctx.oldTrades);
  await runJobs(ctx.t.db, 'refresh');

  await produceTraffic(ctx.devnet, 40, 10);
  for (let i = 0; i < 30 && ctx.devnet.ledger.graduations.length === 0; i++) await produceTraffic(ctx.devnet, 5, 10);
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 60_000);
  // metadata of AMM-born tokens comes from contract queries after the block is indexed
  for (let i = 0; i < 100; i++) {
    const [{ n }] = (await ctx.t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM tokens WHERE NOT metadata_fetched`,
    )) as [{ n: number }];
    if (n === 0) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  await apiCaughtUp(ctx);
});

test.after(async (ctx) => {
  // the last test closes the database under the API; each step still runs
  for (const step of [
    () => ctx.api?.close(),
    () => ctx.running?.stop(),
    () => ctx.devnet?.close(),
    () => ctx.t?.dispose(),
  ])
    await step()?.catch(() => {});
});

const tokenOf = (devnet: Devnet, address: string) => devnet.ledger.launches.find((l) => l.token === address);

const expectedTrade = (devnet: Devnet, t: LedgerTrade) => ({
  time: new Date(t.time).toISOString(),
  block_height: t.height,
  tx_hash: t.txHash,
  source: t.source,
  action: t.action,
  direction: t.direction,
  token_address: t.token,
  price_unative: `${t.priceUnative}`,
  volume_unative: `${t.volumeUnative}`,
  volume_token: `${t.volumeToken}`,
  fee_unative: `${t.feeUnative}`,
  trader: t.trader,
  token_name: tokenOf(devnet, t.token)?.name ?? null,
  token_symbol: tokenOf(devnet, t.token)?.symbol ?? null,
});

const newestFirst = (trades: readonly LedgerTrade[]) =>
  [...trades].sort((a, b) => b.height - a.height || b.txIndex - a.txIndex || b.eventIndex - a.eventIndex);

test('GET /api/health: ok, a timestamp and where the indexer is', async ({ api, devnet }) => {
  const { status, body, headers } = await get(api, '/api/health');
  assert.is(status, 200);
  assert.is(headers.get('content-type'), 'application/json; charset=utf-8');
  assert.is(body.status, 'ok');
  assert.match(body.timestamp, ISO);
  assert.is(body.database.status, 'ok');
  assert.is(body.indexer.chain_id, devnet.chainId);
  assert.is(body.indexer.indexed_height, devnet.height());
  assert.is(body.indexer.lag_blocks, 0);
  assert.type(body.indexer.lag_seconds, 'number');
});

test('GET /api/tokens: every token with the documented fields, newest first, 24 h figures from the trades', async ({
  api,
  devnet,
  old,
  oldTrades,
}) => {
  const { status, body } = await get(api, '/api/tokens');
  assert.is(status, 200);
  const tokens = body.tokens as Record<string, unknown>[];
  assert.is(tokens.length, devnet.ledger.launches.length + 1, 'every launched token and the old one');
  for (const token of tokens) {
    assert.equal(Object.keys(token), TOKEN_FIELDS);
    for (const f of ['native_reserves', 'current_price', 'volume_24h'])
      assert.match(token[f] as string, INTEGER, `${f} is an integer string`);
    assert.type(token.trade_count_24h, 'number');
    assert.type(token.graduated, 'boolean');
    assert.match(token.first_seen_at as string, ISO);
  }
  const seen = tokens.map((t) => Date.parse(t.first_seen_at as string));
  assert.equal(
    seen,
    [...seen].sort((a, b) => b - a),
    'ordered by first_seen_at descending',
  );

  for (const launch of devnet.ledger.launches) {
    const token = tokens.find((t) => t.address === launch.token)!;
    const trades = devnet.ledger.tradesOf(launch.token);
    assert.is(token.name, launch.name);
    assert.is(token.symbol, launch.symbol);
    assert.is(token.source, launch.source);
    assert.is(token.volume_24h, `${trades.reduce((s, t) => s + t.volumeUnative, 0n)}`, `${launch.symbol} volume_24h`);
    assert.is(token.trade_count_24h, trades.length, `${launch.symbol} trade_count_24h`);
    if (trades.length) assert.is(token.current_price, `${trades.at(-1)!.priceUnative}`);
    assert.is(
      token.graduated,
      devnet.ledger.graduations.some((g) => g.token === launch.token),
    );
    if (launch.source === 'launchpad') {
      assert.is(token.creator, launch.creator);
      assert.is(token.created_at, new Date(launch.time).toISOString());
    }
  }
  const day = oldTrades.filter((t) => t.time.getTime() > Date.now() - 86_400_000 + 60_000); // a minute of slack at the window's edge
  const oldToken = tokens.find((t) => t.address === old)!;
  assert.ok(
    (oldToken.trade_count_24h as number) >= day.length && (oldToken.trade_count_24h as number) <= day.length + 1,
    'the old token counts only the last 24 hours',
  );
});

test('GET /api/tokens/:address: one token as in the list; 404 and 400 bodies', async ({ api, devnet }) => {
  const { body: list } = await get(api, '/api/tokens');
  const launch = devnet.ledger.launches[0]!;
  const { status, body } = await get(api, `/api/tokens/${launch.token}`);
  assert.is(status, 200);
  assert.equal(
    body,
    list.tokens.find((t: { address: string }) => t.address === launch.token),
  );

  const missing = await get(api, `/api/tokens/${randomAddress()}`);
  assert.is(missing.status, 404);
  assert.equal(missing.body, { error: 'Token not found' });

  const bad = await get(api, '/api/tokens/not-an-address');
  assert.is(bad.status, 400);
  assert.is(bad.body.details[0].parameter, 'address');
  const badChecksum = await get(
    api,
    `/api/tokens/${launch.token.slice(0, -1)}${launch.token.endsWith('q') ? 'p' : 'q'}`,
  );
  assert.is(badChecksum.status, 400, 'a bech32 checksum error is a malformed address');
});

test('GET /api/trades/recent: newest first with every field, default 50, limit and token filter', async ({
  api,
  devnet,
}) => {
  const all = newestFirst(devnet.ledger.trades);
  const { status, body } = await get(api, '/api/trades/recent');
  assert.is(status, 200);
  assert.is(body.trades.length, 50);
  for (const trade of body.trades) assert.equal(Object.keys(trade), TRADE_FIELDS);
  assert.equal(
    body.trades,
    all.slice(0, 50).map((t) => expectedTrade(devnet, t)),
  );

  const hundred = await get(api, '/api/trades/recent?limit=100');
  assert.equal(
    hundred.body.trades,
    all.slice(0, 100).map((t) => expectedTrade(devnet, t)),
  );
  const one = await get(api, '/api/trades/recent?limit=1');
  assert.equal(one.body.trades, [expectedTrade(devnet, all[0]!)]);

  const busiest = [...new Set(devnet.ledger.trades.map((t) => t.token))].sort(
    (a, b) => devnet.ledger.tradesOf(b).length - devnet.ledger.tradesOf(a).length,
  )[0]!;
  const ofToken = await get(api, `/api/trades/recent?token_address=${busiest}&limit=100`);
  assert.equal(
    ofToken.body.trades,
    newestFirst(devnet.ledger.tradesOf(busiest))
      .slice(0, 100)
      .map((t) => expectedTrade(devnet, t)),
  );
  const none = await get(api, `/api/trades/recent?token_address=${randomAddress()}`);
  assert.equal(none.body, { trades: [] });
});

test('GET /api/trades/recent: bad parameters are 400 naming the parameter', async ({ api }) => {
  for (const q of ['limit=0', 'limit=101', 'limit=abc', 'limit=1.5', 'limit=-1', 'limit=']) {
    const { status, body } = await get(api, `/api/trades/recent?${q}`);
    assert.is(status, 400, q);
    assert.is(body.error, 'Invalid query parameters');
    assert.equal(
      body.details.map((d: { parameter: string }) => d.parameter),
      ['limit'],
      q,
    );
    assert.type(body.details[0].message, 'string');
  }
  const bad = await get(api, '/api/trades/recent?token_address=native1xyz');
  assert.is(bad.status, 400);
  assert.is(bad.body.details[0].parameter, 'token_address');
});

/**
 * The candles the API should answer, from the in-memory oracle: the periods that start
 * within [from, to], the latest `limit` of them, ascending.
 */
function oracleCandles(trades: readonly Trade[], timeframe: Timeframe, from: Date, to: Date, limit: number) {
  return expectedCandles(trades, timeframe)
    .filter((c) => Date.parse(c.bucket) >= from.getTime() && Date.parse(c.bucket) <= to.getTime())
    .slice(-limit)
    .map(({ bucket, open, high, low, close, volume, trade_count }) => ({
      time: bucket,
      open,
      high,
      low,
      close,
      volume,
      trade_count,
    }));
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
  const unknown = await get(api, `/api/candles/${randomAddress()}`);
  assert.is(unknown.status, 404);
  assert.equal(unknown.body, { error: 'Token not found' });
  const malformed = await get(api, '/api/candles/nope');
  assert.is(malformed.status, 400);
  assert.is(malformed.body.details[0].parameter, 'tokenAddress');
});

test('unknown routes are 404 JSON; CORS on answers and preflight', async ({ api }) => {
  const { status, body, headers } = await get(api, '/api/nothing-here');
  assert.is(status, 404);
  assert.type(body.error, 'string');
  assert.is(headers.get('content-type'), 'application/json; charset=utf-8');
  assert.is(headers.get('access-control-allow-origin'), '*');
  const ok = await get(api, '/api/tokens', { Origin: 'https://app.example' });
  assert.is(ok.headers.get('access-control-allow-origin'), '*');
  const preflight = await fetch(`${api.url}/api/tokens`, {
    method: 'OPTIONS',
    headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' },
  });
  assert.is(preflight.status, 204);
  assert.is(preflight.headers.get('access-control-allow-origin'), '*');
  assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /GET/);
});

test('SSE: headers, retry hint, keepalive comments, and trades as documented events with ids', async (ctx) => {
  const stream = await openSse(`${ctx.api.url}/api/sse/feed`);
  try {
    assert.is(stream.status, 200);
    assert.is(stream.headers['content-type'], 'text/event-stream; charset=utf-8');
    assert.is(stream.headers['x-accel-buffering'], 'no');
    assert.is(stream.headers['access-control-allow-origin'], '*');
    assert.match(stream.headers['cache-control'] ?? '', /no-cache/);
    // keepalive comments (every 250 ms here, 15 s by default)
    await stream.until((b) => b.filter((x) => x.comments.length > 0).length >= 3);
    assert.is(stream.blocks[0]!.retry, '3000');
    assert.equal(stream.blocks[0]!.comments, ['connected']);

    const height = ctx.devnet.height();
    await indexTraffic(ctx, 3, 6);
    const executed = ctx.devnet.ledger.trades.filter((t) => t.height > height);
    await stream.until(() => stream.events().filter((e) => e.event === 'trade').length >= executed.length);
    const trades = stream.events().filter((e) => e.event === 'trade');
    assert.is(trades.length, executed.length, 'one trade event per trade, none twice');
    const ids = stream.events().map((e) => Number(e.id));
    assert.ok(
      ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > ids[i - 1]!)),
      'ids increase',
    );
    trades.forEach((e, i) => {
      const data = JSON.parse(e.data!);
      const t = executed[i]!;
      assert.equal(Object.keys(data), SSE_TRADE_FIELDS);
      assert.equal(data, {
        token_address: t.token,
        action: t.action,
        direction: t.direction,
        input_amount: `${t.inputAmount}`,
        output_amount: `${t.outputAmount}`,
        price_unative: `${t.priceUnative}`,
        trader: t.trader,
        tx_hash: t.txHash,
        time: new Date(t.time).toISOString(),
        native_reserves: `${t.nativeReservesAfter}`,
      });
    });
  } finally {
    stream.close();
  }
});

test('SSE: launches and graduations carry the documented fields', async ({ t }) => {
  const rows = await t.db.query<{ id: number; event: string; data: string }>(
    `SELECT id, event, data::text AS data FROM feed_events WHERE event <> 'trade' ORDER BY id`,
  );
  const launch = rows.find((r) => r.event === 'token_launch');
  const graduation = rows.find((r) => r.event === 'graduation');
  assert.ok(launch && graduation, 'the traffic launched and graduated tokens');
  assert.equal(Object.keys(JSON.parse(launch.data)), ['token_address', 'creator', 'initial_reserves', 'time']);
  assert.equal(Object.keys(JSON.parse(graduation.data)), [
    'token_address',
    'native_for_pool',
    'tokens_for_pool',
    'creator',
    'time',
  ]);
});

test('SSE: Last-Event-ID replays exactly the missed events, then live ones follow', async (ctx) => {
  const first = await openSse(`${ctx.api.url}/api/sse/feed`);
  await indexTraffic(ctx, 2, 6);
  await first.until(() => first.events().length >= 2);
  const lastSeen = Number(first.events().at(-1)!.id);
  first.close();

  await indexTraffic(ctx, 4, 6); // missed while disconnected
  const missed = await ctx.t.db.query<{ id: number; event: string; data: string }>(
    `SELECT id, event, data::text AS data FROM feed_events WHERE id > $1 ORDER BY id`,
    [lastSeen],
  );
  assert.ok(missed.length > 0);

  const again = await openSse(`${ctx.api.url}/api/sse/feed`, { 'Last-Event-ID': String(lastSeen) });
  try {
    await again.until(() => again.events().length >= missed.length);
    assert.equal(
      again.events().map((e) => ({ id: Number(e.id), event: e.event, data: e.data })),
      missed.map((r) => ({ id: Number(r.id), event: r.event, data: r.data })),
      'exactly the missed events, in order',
    );
    await indexTraffic(ctx, 1, 6);
    const [{ high }] = (await ctx.t.db.query<{ high: number }>(`SELECT max(id) AS high FROM feed_events`)) as [
      { high: number },
    ];
    await again.until(() => Number(again.events().at(-1)?.id) === Number(high));
    const ids = again.events().map((e) => Number(e.id));
    assert.equal(
      ids,
      [...new Set(ids)].sort((a, b) => a - b),
      'no event twice, none out of order',
    );
    assert.is(ids.length, Number(high) - lastSeen, 'no gap between replay and live');
  } finally {
    again.close();
  }
});

test('SSE: filters by token and event name; a second API process sends the same events', async (ctx) => {
  const token = ctx.devnet.ledger.trades.at(-1)!.token;
  const second = await startLaunchpadApi({
    db: ctx.t.db,
    logger: silentLogger,
    host: '127.0.0.1',
    port: 0,
    rateLimit: { points: 1000, windowSeconds: 60, trustedHops: 0 },
    index: indexSource(ctx.t.db),
  });
  const all = await openSse(`${ctx.api.url}/api/sse/feed`);
  const other = await openSse(`${second.url}/api/sse/feed`);
  const filtered = await openSse(`${ctx.api.url}/api/sse/feed?token_address=${token}&events=trade`);
  try {
    const bad = await get(ctx.api, '/api/sse/feed?events=trade,nope');
    assert.is(bad.status, 400);
    assert.is(bad.body.details[0].parameter, 'events');
    const height = ctx.devnet.height();
    for (let i = 0; i < 20 && !ctx.devnet.ledger.trades.some((t) => t.height > height && t.token === token); i++)
      await indexTraffic(ctx, 1, 8);
    const [{ high }] = (await ctx.t.db.query<{ high: number }>(`SELECT max(id) AS high FROM feed_events`)) as [
      { high: number },
    ];
    await all.until(() => Number(all.events().at(-1)?.id) === Number(high));
    await other.until(() => Number(other.events().at(-1)?.id) === Number(high));
    const frames = (s: typeof all) => s.events().map((e) => `${e.id}|${e.event}|${e.data}`);
    assert.equal(frames(other), frames(all), 'both processes send the same ids and data');
    const expected = all.events().filter((e) => e.event === 'trade' && JSON.parse(e.data!).token_address === token);
    assert.ok(expected.length > 0);
    await filtered.until(() => filtered.events().length >= expected.length);
    assert.equal(frames(filtered), frames({ events: () => expected } as typeof all));
  } finally {
    all.close();
    other.close();
    filtered.close();
    await second.close();
  }
});

test('SSE: a subscriber that stops reading is dropped; one that reads gets everything', async ({ t }) => {
  const api = await startLaunchpadApi({
    db: t.db,
    logger: silentLogger,
    host: '127.0.0.1',
    port: 0,
    rateLimit: { points: 1000, windowSeconds: 60, trustedHops: 0 },
    index: indexSource(t.db),
    sseMaxBufferedBytes: 4 << 20,
  });
  const { port } = new URL(api.url);
  // a raw connection that never reads what it is sent
  const stalled = net.connect(Number(port), '127.0.0.1', () =>
    stalled.write(`GET /api/sse/feed HTTP/1.1\r\nHost: x\r\n\r\n`),
  );
  stalled.pause();
  const reader = await openSse(`${api.url}/api/sse/feed`);
  try {
    while (api.stats().subscribers < 2) await new Promise((r) => setTimeout(r, 10));
    // a burst far larger than the socket buffers and the 4 MiB bound: 20 MB of events in one commit
    const data = JSON.stringify({ token_address: 'native1flood', padding: 'x'.repeat(1000) });
    const high = await t.db.transaction(async (tx) => {
      const [row] = await tx.query<{ high: number }>(
        `WITH ins AS (
           INSERT INTO feed_events (event, token_address, data, event_key, block_height)
           SELECT 'trade', 'native1flood', $1::json, 'flood:' || i, 0 FROM generate_series(1, 20000) AS i RETURNING id)
         SELECT max(id) AS high FROM ins`,
        [data],
      );
      await tx.query(`SELECT pg_notify($1, $2)`, [
        FEED_CHANNEL,
        encodeNotice({ kind: 'events', highId: Number(row!.high) }),
      ]);
      return Number(row!.high);
    });
    await reader.until(() => Number(reader.events().at(-1)?.id) === Number(high), 60_000);
    for (let i = 0; i < 500 && api.stats().dropped === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.is(api.stats().dropped, 1, 'the stalled subscriber was dropped');
    assert.is(api.stats().subscribers, 1);
    assert.is(
      reader.events().filter((e) => JSON.parse(e.data!).token_address === 'native1flood').length,
      20000,
      'the reading subscriber got every event',
    );
  } finally {
    reader.close();
    stalled.destroy();
    await api.close();
    await t.db.query(`DELETE FROM feed_events WHERE token_address = 'native1flood'`);
  }
});

test('rate limit: 100 per window with headers; the 101st is 429; X-Forwarded-For does not reset it', async ({ t }) => {
  const limited = await startLaunchpadApi({
    db: t.db,
    logger: silentLogger,
    host: '127.0.0.1',
    port: 0,
    rateLimit: { points: 100, windowSeconds: 60, trustedHops: 0 },
    index: indexSource(t.db),
  });
  try {
    for (let i = 1; i <= 100; i++) {
      const res = await fetch(`${limited.url}${i % 2 ? '/api/health' : '/api/nowhere'}`);
      await res.arrayBuffer();
      assert.is(res.headers.get('x-ratelimit-limit'), '100');
      assert.is(res.headers.get('x-ratelimit-remaining'), String(100 - i));
      const reset = Number(res.headers.get('x-ratelimit-reset'));
      assert.ok(
        reset > Date.now() / 1000 && reset <= Date.now() / 1000 + 61,
        'reset is the epoch second the window ends',
      );
    }
    const over = await get(limited, '/api/tokens');
    assert.is(over.status, 429);
    assert.type(over.body.error, 'string');
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
    assert.is(over.headers.get('x-ratelimit-remaining'), '0');
    const spoofed = await get(limited, '/api/tokens', { 'X-Forwarded-For': '203.0.113.9' });
    assert.is(spoofed.status, 429, 'a forwarded-for header from the client itself is not believed');
    const sse = await fetch(`${limited.url}/api/sse/feed`);
    assert.is(sse.status, 429, 'every endpoint');
    await sse.arrayBuffer();
  } finally {
    await limited.close();
  }
});

test('rate limit behind a trusted proxy: the client is the address the proxy saw', async ({ t }) => {
  const proxied = await startLaunchpadApi({
    db: t.db,
    logger: silentLogger,
    host: '127.0.0.1',
    port: 0,
    rateLimit: { points: 3, windowSeconds: 60, trustedHops: 1 },
    index: indexSource(t.db),
  });
  try {
    const as = async (xff: string) => (await get(proxied, '/api/health', { 'X-Forwarded-For': xff })).status;
    for (let i = 0; i < 3; i++) assert.is(await as('198.51.100.1'), 200);
    assert.is(await as('198.51.100.1'), 429);
    // a client adding its own entry in front does not become someone else
    assert.is(await as('10.0.0.1, 198.51.100.1'), 429);
    assert.is(await as('198.51.100.2'), 200, 'another client has its own budget');
  } finally {
    await proxied.close();
  }
});

test('failures: a broken query is a 500 with a request id and no internals; a closed database makes health 503', async (ctx) => {
  await ctx.running.stop();
  await ctx.t.db.exec(`ALTER TABLE trades RENAME TO trades_moved`);
  try {
    const broken = await get(ctx.api, '/api/trades/recent?limit=3');
    assert.is(broken.status, 500);
    assert.equal(Object.keys(broken.body), ['error', 'request_id']);
    assert.not.match(JSON.stringify(broken.body), /trades_moved|relation|at \//);
  } finally {
    await ctx.t.db.exec(`ALTER TABLE trades_moved RENAME TO trades`);
  }
  await ctx.api.close();
  const api = await startLaunchpadApi({
    db: ctx.t.db,
    logger: silentLogger,
    host: '127.0.0.1',
    port: 0,
    rateLimit: { points: 1000, windowSeconds: 60, trustedHops: 0 },
    index: indexSource(ctx.t.db),
  });
  ctx.api = api;
  await ctx.t.db.close();
  const down = await get(api, '/api/health');
  assert.is(down.status, 503);
  assert.is(down.body.status, 'error');
  assert.is(down.body.database.status, 'unreachable');
  const tokens = await get(api, `/api/tokens/${randomAddress()}`);
  assert.is(tokens.status, 503);
  assert.type(tokens.body.error, 'string');
});

test.run();
