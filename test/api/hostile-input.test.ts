// Property: whatever a client sends, the Launchpad API answers with a 2xx or 4xx (never a
// 5xx), every answer but an SSE stream and the Prometheus text is JSON, and the process
// keeps serving. Generated hostile input goes to every route and every parameter: bad
// numbers, dates at and past the edges of what can be stored, bech32-like and random
// addresses, unicode (lone surrogates and NUL bytes percent-encoded), SQL fragments,
// overlong values, repeated parameters, percent-encoding mistakes, prototype property
// names, odd methods and request lines the HTTP parser refuses (test/helpers/hostile.ts).
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { indexSource } from '../../src/indexer/indexer.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { startDevnet } from '../helpers/devnet.ts';
import {
  type Answer,
  addressesWith,
  checkWith,
  describe,
  enc,
  encodingMistakesWith,
  expectAnswer,
  holds,
  hostileFrom,
  inUrl,
  junkFrom,
  known,
  numbersWith,
  oddMethodRequests,
  overlongFrom,
  type Param,
  paramWith,
  pick,
  protoKeysWith,
  query,
  type Request,
  recordErrors,
  refusedRequestLines,
  setUpBefore,
  sqlWith,
  unicodeWith,
  unknownPaths,
} from '../helpers/hostile.ts';
import { produceTraffic, startIndexer } from '../helpers/indexing.ts';
import { type ApiCtx, closeApi, startApi } from '../helpers/launchpad-api.ts';
import { waitFor } from '../helpers/wait.ts';

interface Ctx extends ApiCtx {
  /** tokens the index knows, so requests also reach the database with hostile parameters */
  tokens: string[];
}
const test = suite('hostile input');
const ctx = {} as Ctx;

/** What the API logged as errors (the cause of a 5xx), shown when the property fails. */
const { serverErrors, logger } = recordErrors();

// Each property's share of the run (about 500 requests in all, with the examples always tried).
const RUNS = {
  health: 15,
  chain: 15,
  describe: 10,
  token: 50,
  trades: 60,
  tokenList: 60,
  tradeFilters: 60,
  holders: 40,
  candles: 120,
  sse: 50,
  metrics: 10,
  unknown: 40,
  methods: 40,
  long: 16,
  raw: 30,
};

setUpBefore(test, async () => {
  ctx.t = await openTestDatabase();
  ctx.devnet = await startDevnet();
  ctx.running = startIndexer(ctx.t.db, ctx.devnet, { pollIntervalMs: 100 });
  await produceTraffic(ctx.devnet, 8, 6);
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
  ctx.tokens = ctx.devnet.ledger.launches.map((l) => l.token);
  assert.ok(ctx.tokens.length > 0, 'the devnet launched tokens');
  ctx.api = await startApi(ctx.t.db, {
    logger,
    // a coin of 18 decimals, not the devnet's
    native: { denom: 'inj', display: 'INJ', decimals: 18 },
    rateLimit: { points: 100_000, windowSeconds: 60, trustedHops: 0 },
    index: indexSource(ctx.t.db, ctx.running.indexer),
    keepaliveMs: 250,
  });
});

test.after(() => closeApi(ctx));

// ---------------------------------------------------------------------------------------
// Hostile values: the shared ones (test/helpers/hostile.ts) with the Launchpad API's own.

const knownToken = known(() => ctx.tokens);

const numbers = numbersWith({
  texts: ['5.', '1E2', '1e-7', '1e308', '-Infinity', '0X1F', '0o17', 'undefined'],
  bigIntBound: 2n ** 200n,
  more: [
    fc.nat().map((n) => `0x${n.toString(16)}`),
    fc.tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: -400, max: 400 })).map(([m, e]) => `${m}e${e}`),
  ],
});

const pad = (n: number, width: number) => String(Math.abs(n)).padStart(width, '0');
const year = (y: number) => (y >= 0 && y <= 9999 ? pad(y, 4) : `${y < 0 ? '-' : '+'}${pad(y, 6)}`);
const dateParts = fc.record({
  y: fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constantFrom(0, 1, 2, 99, 1969, 1970, 2026, 9998, 9999, 10000, 275760, 294277, -1, -4713, -271821),
    },
    { weight: 1, arbitrary: fc.integer({ min: 0, max: 9999 }) },
  ),
  mo: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 12 }) },
    { weight: 1, arbitrary: fc.constantFrom(0, 13, 99) },
  ),
  d: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 1, max: 28 }) },
    { weight: 1, arbitrary: fc.constantFrom(0, 29, 30, 31, 32) },
  ),
  h: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 23 }) },
    { weight: 1, arbitrary: fc.constantFrom(24, 25, 99) },
  ),
  mi: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 59 }) },
    { weight: 1, arbitrary: fc.constantFrom(60, 61) },
  ),
  s: fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 59 }) },
    { weight: 1, arbitrary: fc.constantFrom(60, 61) },
  ), // 60: a leap second
  frac: fc.option(fc.stringMatching(/^\.\d{1,12}$/), { nil: '' }),
  zone: fc.constantFrom(
    'Z',
    'Z',
    'Z',
    'z',
    '+00:00',
    '-00:00',
    '+01:00',
    '-01:00',
    '+14:00',
    '-14:00',
    '+2359',
    '-2359',
    '+24:00',
    '-99:99',
    '',
    '',
    ' UTC',
    'GMT',
    '+5',
  ),
});
const dates = fc.oneof(
  {
    weight: 4,
    arbitrary: dateParts.map(
      ({ y, mo, d, h, mi, s, frac, zone }) =>
        `${year(y)}-${pad(mo, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}${frac}${zone}`,
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .date({ min: new Date(-8.64e15), max: new Date(8.64e15), noInvalidDate: true })
      .map((d) => d.toISOString()),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '0000-01-01T00:00:00Z',
      '0001-01-01T00:00:00Z',
      '0001-01-01T00:00:00+01:00',
      '9999-12-31T23:59:59Z',
      '9999-12-31T23:59:59.999Z',
      '9999-12-31T23:00:00-14:00',
      '+275760-09-13T00:00:00Z',
      '+275760-09-13T00:00:00.001Z',
      '-271821-04-20T00:00:00Z',
      '2016-12-31T23:59:60Z',
      '2026-02-30T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:00:00',
      '2026-01-01',
      '2026-01-01T00:00Z',
      '2026-01-01 00:00:00Z',
      '2026-01-01T00:00:00.123456789Z',
      'now',
      'today',
      'yesterday',
      '1700000000',
      '1700000000000',
      'Thu, 01 Jan 1970 00:00:00 GMT',
      '2026-W01-1T00:00:00Z',
      '2026-001T00:00:00Z',
      'P1D',
      'Invalid Date',
      'epoch',
      'infinity',
      '-infinity',
      'allballs',
    ),
  },
);

/** bech32-like and random addresses: valid ones of other shapes, broken checksums, wrong case, wrong lengths. */
const addresses = addressesWith({
  known: [{ weight: 3, arbitrary: knownToken }],
  prefixes: ['native', 'cosmos', 'osmo', 'a', 'NATIVE', 'nAtive', '', 'x'.repeat(83)],
  lengths: [0, 1, 19, 20, 21, 31, 32, 33, 64],
  mangled: knownToken,
});

const unicode = unicodeWith(knownToken);

const sql = sqlWith(
  "'; DROP TABLE trades; --",
  "' UNION SELECT address, name FROM tokens --",
  '"; --',
  "1'::int",
  'candles_1m; --',
  "1h' OR timeframe='1m",
  "trade','token_launch",
);

const overlong = overlongFrom(10_000, ['9', 'a', 'q', '%41', ',', '%2C', 'é']);

const hostile = hostileFrom({
  numbers,
  addresses,
  own: [{ weight: 3, arbitrary: inUrl(dates) }],
  unicode,
  sql,
  protoKeys: protoKeysWith('isPrototypeOf', '__defineGetter__'),
  encodingMistakes: encodingMistakesWith('%C0%AF', '%ED%BF%BF', '%2525', '&&', '%5B%5D', '1%2C2', ',,,'),
  overlong,
});

const param = paramWith((name) => [`${name}[0]`, enc(name).replace(/./, (c) => `%${c.charCodeAt(0).toString(16)}`)]);
const junkParams = junkFrom(hostile);

// ---------------------------------------------------------------------------------------
// The property every answer must satisfy.

function expectSane(r: Request, a: Answer) {
  expectAnswer(r, a, {
    serverErrors,
    notJson: (a, what) => {
      if (a.contentType.startsWith('text/event-stream')) {
        assert.is(a.status, 200, `${what}: a stream is a 200`);
        return true;
      }
      // the dashboard's pages (`/`, `/tokens/…`, `/api/docs`: the URL parser may have normalized another path to one)
      if (a.status === 200 && a.contentType === 'text/html; charset=utf-8') {
        assert.match(a.text, /^<!doctype html>/, `${what}: a page of the dashboard`);
        return true;
      }
      // the Prometheus text of /metrics (the URL parser may have normalized another path to it)
      return a.status === 200 && a.contentType.startsWith('text/plain; version=0.0.4');
    },
  });
}

const check = checkWith(() => ctx.api.url, expectSane);

// ---------------------------------------------------------------------------------------

test('GET /api/health, /api/chain, /api/openapi.json and /api/sql/relations ignore any query', async () => {
  for (const [path, runs] of [
    ['/api/health', RUNS.health],
    ['/api/chain', RUNS.chain],
    ['/api/openapi.json', RUNS.describe],
    ['/api/sql/relations', RUNS.describe],
  ] as const) {
    await holds(
      fc.asyncProperty(junkParams, async (junk) => {
        const a = await check({ path: `${path}${query(junk)}` });
        assert.ok([200, 431].includes(a.status), `${path}${query(junk)} → ${a.status}`);
      }),
      runs,
    );
  }
});

test('GET /api/tokens/:address: any address is a 200, 400 or 404', async () => {
  await holds(
    fc.asyncProperty(hostile(inUrl(addresses)), junkParams, async (address, junk) => {
      const a = await check({ path: `/api/tokens/${address}${query(junk)}` });
      assert.ok([200, 400, 404, 431].includes(a.status), `${address} → ${a.status}`);
    }),
    RUNS.token,
  );
});

test('GET /api/trades/recent: token_address and limit', async () => {
  const limits = fc.integer({ min: 1, max: 100 }).map(String);
  await holds(
    fc.asyncProperty(
      param('token_address', hostile(inUrl(addresses))),
      param('limit', hostile(limits)),
      junkParams,
      async (token, limit, junk) => {
        const path = `/api/trades/recent${query([token, limit, ...junk])}`;
        const a = await check({ path });
        assert.ok([200, 400, 431].includes(a.status), `${path} → ${a.status}`);
      },
    ),
    RUNS.trades,
  );
});

test('GET /api/tokens: sort, order, graduated, q, limit and cursor', async () => {
  const sorts = fc.constantFrom('first_seen_at', 'volume_24h', 'market_cap', 'price_change_24h', 'trade_count_24h');
  // a cursor of a real page now and then, the rest hostile
  const page = await check({ path: '/api/tokens?sort=volume_24h&limit=1' });
  const realCursor = (JSON.parse(page.text) as { next_cursor?: string | null }).next_cursor ?? 'x';
  await holds(
    fc.asyncProperty(
      param('sort', hostile(sorts)),
      param('order', hostile(fc.constantFrom('asc', 'desc'))),
      param('graduated', hostile(fc.constantFrom('true', 'false'))),
      param('q', hostile(fc.string({ maxLength: 8 }))),
      param('limit', hostile(fc.integer({ min: 1, max: 1000 }).map(String))),
      param('cursor', hostile(fc.constantFrom(realCursor, Buffer.from('["1","a"]').toString('base64url')))),
      junkParams,
      async (sort, order, graduated, q, limit, cursor, junk) => {
        const path = `/api/tokens${query([sort, order, graduated, q, limit, cursor, ...junk])}`;
        const a = await check({ path });
        assert.ok([200, 400, 431].includes(a.status), `${path} → ${a.status}`);
      },
    ),
    RUNS.tokenList,
  );
});

test('GET /api/trades/recent: before, trader, action and min_volume', async () => {
  const positions = fc
    .tuple(
      fc.integer({ min: 0, max: 2 ** 32 }),
      fc.integer({ min: 0, max: 70_000 }),
      fc.integer({ min: 0, max: 70_000 }),
    )
    .map(([h, t, e]) => `${h}-${t}-${e}`);
  await holds(
    fc.asyncProperty(
      param('before', hostile(positions)),
      param('trader', hostile(inUrl(addresses))),
      param('action', hostile(fc.constantFrom('buy', 'sell,swap', 'buy_and_graduate,buy', 'sell,'))),
      param('min_volume', hostile(fc.bigInt({ min: 0n, max: 2n ** 300n }).map(String))),
      junkParams,
      async (before, trader, action, minVolume, junk) => {
        const path = `/api/trades/recent${query([before, trader, action, minVolume, ...junk])}`;
        const a = await check({ path });
        assert.ok([200, 400, 431].includes(a.status), `${path} → ${a.status}`);
      },
    ),
    RUNS.tradeFilters,
  );
});

test('GET /api/tokens/:address/holders and /traders: any address, limit and window', async () => {
  await holds(
    fc.asyncProperty(
      fc.constantFrom('holders', 'traders'),
      hostile(inUrl(addresses)),
      param('limit', hostile(fc.integer({ min: 1, max: 1000 }).map(String))),
      param('window', hostile(fc.constantFrom('5m', '1h', '6h', '24h', '7d'))),
      junkParams,
      async (what, address, limit, window, junk) => {
        const path = `/api/tokens/${address}/${what}${query([limit, window, ...junk])}`;
        const a = await check({ path });
        assert.ok([200, 400, 404, 431].includes(a.status), `${path} → ${a.status}`);
      },
    ),
    RUNS.holders,
  );
});

test('GET /api/candles/:tokenAddress: currency', async () => {
  const list = await check({ path: '/api/tokens' });
  const indexed = ((JSON.parse(list.text) as { tokens?: { address: string }[] }).tokens ?? []).map((t) => t.address);
  await holds(
    fc.asyncProperty(
      fc.oneof(fc.constantFrom(...indexed, 'native1x'), hostile(inUrl(addresses))),
      param('currency', hostile(fc.constantFrom('usd', 'native', 'USD'))),
      param('timeframe', hostile(fc.constantFrom('1m', '1d'))),
      async (address, currency, timeframe) => {
        const path = `/api/candles/${address}${query([currency, timeframe])}`;
        const a = await check({ path });
        assert.ok([200, 400, 404, 431].includes(a.status), `${path} → ${a.status}`);
      },
    ),
    RUNS.holders,
  );
});

interface CandleRequest {
  address: string;
  timeframe: Param;
  from: Param;
  to: Param;
  limit: Param;
  junk: Param[];
}

test('GET /api/candles/:tokenAddress: timeframe, from, to and limit', async () => {
  const timeframes = fc.constantFrom('1m', '5m', '1h', '1d');
  const validDates = fc
    .date({ min: new Date('2020-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true })
    .map((d) => d.toISOString());
  const limits = fc.integer({ min: 1, max: 1000 }).map(String);
  const request: fc.Arbitrary<CandleRequest> = fc.record({
    address: fc.oneof({ weight: 5, arbitrary: knownToken }, { weight: 2, arbitrary: hostile(inUrl(addresses)) }),
    timeframe: param('timeframe', hostile(timeframes)),
    from: param('from', hostile(inUrl(dates))),
    to: param('to', hostile(fc.oneof(validDates, inUrl(dates)))),
    limit: param('limit', hostile(limits)),
    junk: junkParams,
  });
  // the edges of the date range and prototype names, always tried
  const only = (timeframe: string[], from: string[], to: string[]): [CandleRequest] => [
    {
      address: ctx.tokens[0]!,
      timeframe: ['timeframe', timeframe],
      from: ['from', from],
      to: ['to', to],
      limit: ['limit', []],
      junk: [],
    },
  ];
  const edges = [
    '0000-01-01T00:00:00Z',
    '0001-01-01T00:00:00Z',
    '0001-01-01T00:00:00%2B01:00',
    '9999-12-31T23:59:59Z',
    '9999-12-31T23:00:00-14:00',
  ];
  const examples = [
    ...edges.flatMap((d) =>
      ['1m', '1d'].flatMap((tf) => [
        only([tf], [d], []),
        only([tf], [], [d]),
        only([tf], [d], ['9999-12-31T23:59:59.999Z']),
      ]),
    ),
    ...['constructor', '__proto__', 'toString'].map((tf) => only([tf], [], [])),
  ];
  await holds(
    fc.asyncProperty(request, async ({ address, timeframe, from, to, limit, junk }) => {
      const path = `/api/candles/${address}${query([timeframe, from, to, limit, ...junk])}`;
      const a = await check({ path });
      assert.ok([200, 400, 404, 431].includes(a.status), `${path} → ${a.status}`);
    }),
    RUNS.candles,
    examples,
  );
});

test('GET /api/sse/feed: token_address, events, last_event_id and the Last-Event-ID header', async () => {
  const eventLists = fc.subarray(['trade', 'token_launch', 'graduation']).map((xs) => xs.join(','));
  const ids = fc.oneof(fc.nat({ max: 5000 }).map(String), numbers);
  const headerValue = fc
    .oneof(
      ids,
      fc.string({
        unit: fc
          .integer({ min: 0x20, max: 0xff })
          .filter((c) => c !== 0x7f)
          .map((c) => String.fromCharCode(c)),
        maxLength: 40,
      }),
      fc.constantFrom('9'.repeat(9000), '-1', ' 5 ', '1, 2', '0x10', '1e3', ''),
    )
    .filter((v) => /^[\t\x20-\x7e\x80-\xff]*$/.test(v)); // what a header can carry
  await holds(
    fc.asyncProperty(
      param(
        'token_address',
        hostile(
          fc.oneof(
            knownToken,
            fc.array(knownToken, { minLength: 1, maxLength: 4 }).map((xs) => xs.join(',')),
          ),
        ),
      ),
      param(
        'events',
        hostile(
          fc.oneof(eventLists, fc.constantFrom('trade,,graduation', ' trade ', 'TRADE', 'gap', 'trade,__proto__')),
        ),
      ),
      param('last_event_id', hostile(ids)),
      fc.option(headerValue, { nil: undefined }),
      async (token, events, lastEventId, header) => {
        const r: Request = {
          path: `/api/sse/feed${query([token, events, lastEventId])}`,
          headers: header === undefined ? undefined : { 'Last-Event-ID': header },
        };
        const a = await check(r);
        assert.ok([200, 400, 431].includes(a.status), `${describe(r)} → ${a.status}`);
      },
    ),
    RUNS.sse,
  );
  // two hundred valid addresses in one filter (13 kB, within the server's URL limit)
  const many = Array.from({ length: 200 }, (_, i) => pick(ctx.tokens, i)).join(',');
  const a = await check({ path: `/api/sse/feed?token_address=${many}` });
  assert.is(a.status, 200);
});

test('GET /metrics ignores any query', async () => {
  await holds(
    fc.asyncProperty(junkParams, async (junk) => {
      const a = await check({ path: `/metrics${query(junk)}` });
      assert.ok([200, 431].includes(a.status), `/metrics${query(junk)} → ${a.status}`);
    }),
    RUNS.metrics,
  );
});

test('unknown paths are a 404 (or a route, when the path normalizes to one)', async () => {
  const names = [
    'api',
    'chain',
    'tokens',
    'candles',
    'trades',
    'recent',
    'sse',
    'feed',
    'health',
    'metrics',
    'API',
    'Health',
  ];
  await holds(
    fc.asyncProperty(unknownPaths(hostile, names, 5), async (path) => {
      await check({ path });
    }),
    RUNS.unknown,
  );
});

test('odd methods on every route: POST, PUT, DELETE, PATCH, OPTIONS, HEAD', async () => {
  const paths = fc.oneof(
    fc.constantFrom(
      '/api/health',
      '/api/chain',
      '/api/tokens',
      '/api/trades/recent',
      '/api/sse/feed',
      '/metrics',
      '/api/openapi.json',
      '/api/sql/relations',
      '/api/nothing',
      '/',
    ),
    knownToken.map((a) => `/api/tokens/${a}`),
    knownToken.map((a) => `/api/candles/${a}?timeframe=1m`),
  );
  const requests = oddMethodRequests({
    paths,
    bodies: fc.oneof(unicode, sql, overlong, fc.constantFrom('{', '{"limit":1e999}', 'null', '[]')),
    corsHeaders: ['Access-Control-Request-Headers', 'Access-Control-Request-Method', 'Origin'],
  });
  await holds(
    fc.asyncProperty(requests, async (r) => {
      const a = await check(r);
      if (r.method === 'OPTIONS') assert.is(a.status, 204, describe(r));
      else if (r.method !== 'HEAD') assert.is(a.status, 404, describe(r));
    }),
    RUNS.methods,
  );
});

test('URLs and headers past the server limits are refused with a JSON 4xx', async () => {
  await holds(
    fc.asyncProperty(
      fc.constantFrom('/api/health', '/api/chain', '/api/tokens', '/api/trades/recent', '/api/sse/feed', '/metrics'),
      fc.constantFrom('limit', 'token_address', 'from', 'x'),
      fc.integer({ min: 17_000, max: 40_000 }),
      fc.constantFrom('url', 'header'),
      async (path, name, n, where) => {
        const r: Request =
          where === 'url'
            ? { path: `${path}?${name}=${'9'.repeat(n)}` }
            : { path, headers: { 'Last-Event-ID': '1'.repeat(n) } };
        const a = await check(r);
        assert.ok(a.status >= 400, `${describe(r)} → ${a.status}`);
      },
    ),
    RUNS.long,
  );
});

test('request lines the HTTP parser refuses, and request targets fetch cannot send', async () => {
  await refusedRequestLines({
    base: ctx.api.url,
    plain: '/api/health',
    targets: ['/api/tokens/native1\u0000', '/api/candles/\u00ff?from=\u00e9', '/api/sse/feed?events=trade\u007f'],
    prefixes: ['/api/tokens/', '/api/candles/', '/api/trades/recent?limit=', '/api/sse/feed?last_event_id='],
    headers: ['Last-Event-ID: 1\r\n', 'Last-Event-ID: \u0000\r\n'],
    expectSane,
    runs: RUNS.raw,
  });
});

test('the process still serves: health answers, no stream is left open', async () => {
  const a = await check({ path: '/api/health' });
  assert.is(a.status, 200);
  assert.is(JSON.parse(a.text).status, 'ok');
  assert.ok(
    await waitFor(() => ctx.api.stats().subscribers === 0, 10_000),
    `every abandoned stream was closed within 10 s (${ctx.api.stats().subscribers} open)`,
  );
  assert.equal(serverErrors, [], 'the API logged no error');
});

test.run();
