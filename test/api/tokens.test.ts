// GET /api/tokens, /api/tokens/:address and /api/trades/recent over HTTP against a running
// server: the devnet's traffic (launches, trades, a graduation) indexed into the test
// database, plus one token with three days of older trades.
import { gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Devnet, LedgerTrade } from '../../src/devnet/index.ts';
import { randomAddress } from '../helpers/devnet.ts';
import { getRaw } from '../helpers/http.ts';
import {
  type ApiCtx,
  addOldToken,
  closeApi,
  get,
  ISO,
  indexLaunches,
  type OldTokenCtx,
  openApi,
} from '../helpers/launchpad-api.ts';

type Ctx = ApiCtx & OldTokenCtx;
const test = suite<Ctx>('launchpad API: tokens and trades', {} as Ctx);

const TOKEN_FIELDS = [
  'address',
  'name',
  'symbol',
  'decimals',
  'image',
  'description',
  'creator',
  'source',
  'graduated',
  'native_reserves',
  'current_price',
  'price_usd',
  'total_supply',
  'market_cap_unative',
  'market_cap_usd',
  'price_change',
  'volume_24h',
  'volume_24h_usd',
  'trade_count_24h',
  'buys_24h',
  'sells_24h',
  'traders_24h',
  'holders',
  'created_at',
  'first_seen_at',
  'graduation_threshold',
  'graduation_progress',
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
  'position',
];
const INTEGER = /^(0|[1-9]\d*)$/;

test.before(async (ctx) => {
  await openApi(ctx);
  await addOldToken(ctx);
  await indexLaunches(ctx, { blocks: 40, rate: 10, graduate: true });
});

test.after(closeApi);

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
  position: `${t.height}-${t.txIndex}-${t.eventIndex}`,
});

const newestFirst = (trades: readonly LedgerTrade[]) =>
  [...trades].sort((a, b) => b.height - a.height || b.txIndex - a.txIndex || b.eventIndex - a.eventIndex);

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
    assert.is(token.decimals, 6, `${launch.symbol}: the decimals its contract's token_info says`);
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
  assert.is(oldToken.decimals, null, 'a token whose decimals the index has not read');
  assert.ok(
    (oldToken.trade_count_24h as number) >= day.length && (oldToken.trade_count_24h as number) <= day.length + 1,
    `the old token counts only the last 24 hours: ${oldToken.trade_count_24h} vs ${day.length}`,
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

test('cached answers of 1 KiB or more are gzipped to clients that take gzip, the same JSON to others; small ones as they are', async ({
  api,
  devnet,
}) => {
  for (const path of ['/api/tokens', '/api/trades/recent?limit=50']) {
    const plain = await getRaw(`${api.url}${path}`);
    assert.is(plain.status, 200);
    assert.ok(plain.body.length >= 1024, `${path}: ${plain.body.length} bytes, enough to compress`);
    assert.is(plain.headers['content-encoding'], undefined, `${path}: as it is without Accept-Encoding`);
    assert.is(plain.headers.vary, 'Accept-Encoding');
    assert.is(Number(plain.headers['content-length']), plain.body.length);
    const gzipped = await getRaw(`${api.url}${path}`, { 'Accept-Encoding': 'gzip, deflate, br' });
    assert.is(gzipped.headers['content-encoding'], 'gzip', `${path}: gzipped to a browser`);
    assert.is(gzipped.headers.vary, 'Accept-Encoding');
    assert.is(Number(gzipped.headers['content-length']), gzipped.body.length);
    assert.ok(
      gzipped.body.length < plain.body.length / 2,
      `${path}: ${gzipped.body.length} of ${plain.body.length} bytes`,
    );
    assert.is(gunzipSync(gzipped.body).toString('utf8'), plain.body.toString('utf8'), `${path}: the same JSON`);
    const refused = await getRaw(`${api.url}${path}`, { 'Accept-Encoding': 'gzip;q=0, br' });
    assert.is(refused.headers['content-encoding'], undefined, `${path}: gzip;q=0 is as it is`);
  }
  const token = await getRaw(`${api.url}/api/tokens/${devnet.ledger.launches[0]!.token}`, {
    'Accept-Encoding': 'gzip',
  });
  assert.is(token.status, 200);
  assert.ok(token.body.length < 1024, `one token is ${token.body.length} bytes`);
  assert.is(token.headers['content-encoding'], undefined, 'under 1 KiB: as it is');
  assert.is(token.headers.vary, undefined);
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
  // a tx or event index past 16 bits would read as another position in chain order
  for (const before of ['100-4-70000', '100-65536-0']) {
    const wide = await get(api, `/api/trades/recent?before=${before}`);
    assert.is(wide.status, 400, before);
    assert.equal(wide.body.details, [
      { parameter: 'before', message: 'the tx index and the event index are at most 65535' },
    ]);
  }
  assert.is((await get(api, '/api/trades/recent?before=100-65535-65535')).status, 200);
});

test.run();
