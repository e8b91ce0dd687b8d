// Property: whatever a client sends, the Launchpad API answers with a 2xx or 4xx (never a
// 5xx), every answer but an SSE stream and the Prometheus text is JSON, and the process
// keeps serving. Generated hostile input goes to every route and every parameter: bad
// numbers, dates at and past the edges of what can be stored, bech32-like and random
// addresses, unicode (lone surrogates and NUL bytes percent-encoded), SQL fragments,
// overlong values, repeated parameters, percent-encoding mistakes, prototype property
// names, odd methods and request lines the HTTP parser refuses.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { Writable } from 'node:stream';
import { toBech32 } from '@cosmjs/encoding';
import fc from 'fast-check';
import { pino } from 'pino';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type LaunchpadApi, startLaunchpadApi } from '../../src/api/launchpad/server.ts';
import type { Devnet } from '../../src/devnet/index.ts';
import { indexSource } from '../../src/indexer/indexer.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { randomAddress, startDevnet } from '../helpers/devnet.ts';
import { produceTraffic, startIndexer } from '../helpers/indexing.ts';
import { waitFor } from '../helpers/wait.ts';

interface Ctx {
  t: TestDatabase;
  devnet: Devnet;
  running: ReturnType<typeof startIndexer>;
  api: LaunchpadApi;
  /** tokens the index knows, so requests also reach the database with hostile parameters */
  tokens: string[];
}
const test = suite('hostile input');
const ctx = {} as Ctx;

/** What the API logged as errors (the cause of a 5xx), shown when the property fails. */
const serverErrors: string[] = [];
const errorLog = pino(
  { level: 'error', base: undefined },
  new Writable({
    write(chunk, _encoding, done) {
      serverErrors.push(String(chunk));
      done();
    },
  }),
);

// Each property's share of the run (about 500 requests in all, with the examples always tried).
const RUNS = {
  health: 15,
  tokens: 15,
  token: 50,
  trades: 60,
  candles: 120,
  sse: 50,
  metrics: 10,
  unknown: 40,
  methods: 40,
  long: 16,
  raw: 30,
};

/**
 * Runs a property `runs` times (plus `examples`, always tried) and fails with a short
 * report: long generated values are cut so the counterexample stays readable.
 * HOSTILE_SEED=n replays a run; HOSTILE_SCALE=k runs every property k times as often.
 */
async function holds<Ts extends [unknown, ...unknown[]]>(
  property: fc.IAsyncPropertyWithHooks<Ts>,
  runs: number,
  examples: Ts[] = [],
) {
  const scale = Number(process.env.HOSTILE_SCALE ?? 1);
  const out = await fc.check(property, {
    numRuns: Math.round(runs * scale),
    examples,
    seed: process.env.HOSTILE_SEED ? Number(process.env.HOSTILE_SEED) : undefined,
  });
  if (!out.failed) return;
  const cut = (_key: string, v: unknown) =>
    typeof v === 'string' && v.length > 200 ? `${v.slice(0, 120)}… (${v.length} chars)` : v;
  const cause = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
  assert.unreachable(
    `failed after ${out.numRuns} runs (HOSTILE_SEED=${out.seed}, path ${out.counterexamplePath}): ${JSON.stringify(out.counterexample, cut)}\n${cause}`,
  );
}

test.before(async () => {
  // uvu swallows an error thrown by a before hook: say it, then fail every test
  await setUp().catch((error) => {
    console.error('Setting up the hostile-input tests failed:', error);
    throw error;
  });
});

async function setUp() {
  ctx.t = await openTestDatabase();
  ctx.devnet = await startDevnet();
  ctx.running = startIndexer(ctx.t.db, ctx.devnet, { pollIntervalMs: 100 });
  await produceTraffic(ctx.devnet, 8, 6);
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
  ctx.tokens = ctx.devnet.ledger.launches.map((l) => l.token);
  assert.ok(ctx.tokens.length > 0, 'the devnet launched tokens');
  ctx.api = await startLaunchpadApi({
    db: ctx.t.db,
    logger: errorLog,
    host: '127.0.0.1',
    port: 0,
    rateLimit: { points: 100_000, windowSeconds: 60, trustedHops: 0 },
    index: indexSource(ctx.t.db, ctx.running.indexer),
    keepaliveMs: 250,
  });
}

test.after(async () => {
  for (const step of [
    () => ctx.api?.close(),
    () => ctx.running?.stop(),
    () => ctx.devnet?.close(),
    () => ctx.t?.dispose(),
  ])
    await step()?.catch(() => {});
});

// ---------------------------------------------------------------------------------------
// Encoding: every generator yields text as it goes into the URL (already percent-encoded,
// or deliberately raw), so malformed encodings reach the server as they are.

/** Percent-encodes every UTF-16 unit; a lone surrogate as its 3-byte (WTF-8) form, which is not UTF-8. */
function enc(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const pair =
      c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff;
    if (pair) {
      out += encodeURIComponent(s.slice(i, i + 2));
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else out += encodeURIComponent(s[i]!);
  }
  return out;
}

/** A plain string either percent-encoded or left raw (the URL parser then encodes what it must; `&`, `=`, `#` stay syntax). */
const inUrl = (text: fc.Arbitrary<string>) =>
  fc.oneof({ weight: 4, arbitrary: text.map(enc) }, { weight: 1, arbitrary: text });

const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
const pick = <T>(xs: ArrayLike<T>, i: number): T => xs[i % xs.length]!;
const knownToken = fc.nat().map((i) => pick(ctx.tokens, i));

const numbers = fc.oneof(
  fc.constantFrom(
    '0',
    '-0',
    '-1',
    '1.5',
    '.5',
    '5.',
    '1e2',
    '1E2',
    '1e-7',
    '1e308',
    '1e309',
    'NaN',
    'Infinity',
    '-Infinity',
    '0x10',
    '0X1F',
    '0b101',
    '0o17',
    '1_000',
    '+5',
    ' 5',
    '5 ',
    '00050',
    '٥٠',
    '５０',
    '9007199254740993',
    '18446744073709551616',
    '99999999999999999999999999',
    '-9223372036854775809',
    'null',
    'undefined',
    'true',
    '[]',
    '{}',
  ),
  fc.integer({ min: -(2 ** 53), max: 2 ** 53 }).map(String),
  fc.double().map(String),
  fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }).map(String),
  fc.nat().map((n) => `0x${n.toString(16)}`),
  fc.tuple(fc.integer({ min: -50, max: 50 }), fc.integer({ min: -400, max: 400 })).map(([m, e]) => `${m}e${e}`),
);

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
const addresses = fc.oneof(
  { weight: 3, arbitrary: knownToken },
  { weight: 1, arbitrary: fc.constant(null).map(() => randomAddress()) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('native', 'cosmos', 'osmo', 'a', 'NATIVE', 'nAtive', '', 'x'.repeat(83)),
        fc.constantFrom(0, 1, 19, 20, 21, 31, 32, 33, 64),
      )
      .map(([prefix, n]) => {
        try {
          return toBech32(prefix, randomBytes(n), 1023);
        } catch {
          return `${prefix}1${randomBytes(n).toString('hex')}`;
        }
      }),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(
        knownToken,
        fc.nat(),
        fc.constantFrom('flip', 'upper', 'truncate', 'append', 'no-separator', 'double', 'space'),
      )
      .map(([a, i, how]) => {
        const at = 7 + (i % (a.length - 7));
        switch (how) {
          case 'flip':
            return a.slice(0, at) + pick(BECH32, BECH32.indexOf(a[at]!) + 1 + (i % 31)) + a.slice(at + 1);
          case 'upper':
            return a.toUpperCase();
          case 'truncate':
            return a.slice(0, at);
          case 'append':
            return a + pick(BECH32, i);
          case 'no-separator':
            return a.replace('1', '');
          case 'double':
            return `${a},${a}`;
          default:
            return ` ${a} `;
        }
      }),
  },
  {
    weight: 1,
    arbitrary: fc.string({ unit: fc.constantFrom(...BECH32), minLength: 0, maxLength: 120 }).map((s) => `native1${s}`),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 80 }) },
);

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const unicode = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({
    unit: fc.oneof(
      loneSurrogate,
      fc.constantFrom('\0', '\uFFFF', '\uFEFF', '\u202E', 'é', '😀', '\u0301', '\n', '\r\n', '\t'),
    ),
    maxLength: 12,
  }),
  fc.tuple(knownToken, fc.constantFrom('\0', '\uD800', '\uDFFF', '\u200B', 'ı')).map(([a, c]) => a + c),
);

const sql = fc.constantFrom(
  "' OR '1'='1",
  "'; DROP TABLE trades; --",
  '1; SELECT pg_sleep(10)',
  '1) OR (1=1',
  '$1',
  '$2::text',
  "\\'",
  '\\',
  "' UNION SELECT address, name FROM tokens --",
  "%' --",
  '"; --',
  "1'::int",
  "E'\\x00'",
  "'||(SELECT version())||'",
  'candles_1m; --',
  "1h' OR timeframe='1m",
  "trade','token_launch",
);

const protoKeys = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  '__defineGetter__',
  'then',
  'length',
);

/** Raw URL text that is not a correct percent-encoding, or is URL syntax inside a value. */
const encodingMistakes = fc.constantFrom(
  '%',
  '%%',
  '%G1',
  '%2',
  '%E0%A4',
  '%C0%80',
  '%C0%AF',
  '%ED%A0%80',
  '%ED%BF%BF',
  '%F4%90%80%80',
  '%FF%FE',
  '%u0041',
  '%25%',
  '%2525',
  '%00',
  '%0A',
  '%0D%0A',
  '+',
  '%2B',
  '%20',
  '&',
  '=',
  '==',
  '&&',
  '?',
  '#',
  '%23',
  '%26',
  '%3D',
  ';',
  '..',
  '%2e%2e',
  '%2F',
  '/',
  '\\',
  '[]',
  '%5B%5D',
  '1%2C2',
  ',',
  ',,,',
);

const overlong = fc
  .tuple(fc.integer({ min: 10_000, max: 14_000 }), fc.constantFrom('9', 'a', 'q', '%41', ',', '%2C', 'é'))
  .map(([n, unit]) => unit.repeat(unit.startsWith('%') ? Math.ceil(n / 3) : n));

/** Anything hostile, for any parameter; `valid` adds good values of that parameter so the others are reached too. */
const hostile = (valid?: fc.Arbitrary<string>) =>
  fc.oneof(
    ...(valid ? [{ weight: 6, arbitrary: valid }] : []),
    { weight: 3, arbitrary: inUrl(numbers) },
    { weight: 3, arbitrary: inUrl(dates) },
    { weight: 3, arbitrary: inUrl(addresses) },
    { weight: 2, arbitrary: unicode.map(enc) },
    { weight: 1, arbitrary: inUrl(sql) },
    { weight: 1, arbitrary: protoKeys },
    { weight: 2, arbitrary: encodingMistakes },
    { weight: 1, arbitrary: overlong },
    { weight: 1, arbitrary: fc.constant('') },
  );

type Param = [name: string, values: string[]];
/** A parameter's occurrences in the query: absent, once, or repeated; sometimes as a bare key or with a mangled name. */
const param = (name: string, value: fc.Arbitrary<string>): fc.Arbitrary<Param> =>
  fc
    .tuple(
      fc.oneof(
        { weight: 3, arbitrary: fc.constant(0) },
        { weight: 8, arbitrary: fc.constant(1) },
        { weight: 1, arbitrary: fc.integer({ min: 2, max: 3 }) },
      ),
      fc.array(value, { minLength: 3, maxLength: 3 }),
      fc.oneof(
        { weight: 12, arbitrary: fc.constant(name) },
        {
          weight: 1,
          arbitrary: fc.constantFrom(
            `${name}[]`,
            `${name}[0]`,
            name.toUpperCase(),
            enc(name).replace(/./, (c) => `%${c.charCodeAt(0).toString(16)}`),
            `${name}%00`,
            ` ${name}`,
          ),
        },
      ),
      fc.boolean(),
    )
    .map(([count, values, key, bare]) => [key, bare && count === 1 ? ['\u0000bare'] : values.slice(0, count)]);

const junkParams = fc
  .array(fc.tuple(hostile(), hostile()), { maxLength: 2 })
  .map((pairs) => pairs.map(([k, v]): Param => [k, [v]]));

function query(params: Param[]): string {
  const parts = params.flatMap(([name, values]) => values.map((v) => (v === '\u0000bare' ? name : `${name}=${v}`)));
  return parts.length ? `?${parts.join('&')}` : '';
}

// ---------------------------------------------------------------------------------------
// Requests and the property every answer must satisfy.

interface Request {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}
interface Answer {
  status: number;
  contentType: string;
  text: string;
}

const describe = (r: Request) =>
  `${r.method ?? 'GET'} ${r.path.length > 300 ? `${r.path.slice(0, 300)}… (${r.path.length} chars)` : r.path}${r.headers ? ` ${JSON.stringify(r.headers).slice(0, 200)}` : ''}`;

/** Sends a request; an event stream is read up to its headers and then abandoned. */
async function send(r: Request): Promise<Answer> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new Error(`no answer within 10 s to ${describe(r)}`)), 10_000);
  try {
    return await answer(r, abort);
  } catch (error) {
    const cause = (error as Error & { cause?: Error & { code?: string } }).cause;
    throw new Error(
      `${describe(r)}: ${(error as Error).message}${cause ? ` (${cause.code ?? ''} ${cause.message})` : ''}`,
    );
  } finally {
    clearTimeout(timer);
  }
}

async function answer(r: Request, abort: AbortController): Promise<Answer> {
  const res = await fetch(`${ctx.api.url}${r.path}`, {
    method: r.method ?? 'GET',
    headers: r.headers,
    body: r.body,
    signal: abort.signal,
    redirect: 'manual',
  });
  const contentType = res.headers.get('content-type') ?? '';
  if (contentType.startsWith('text/event-stream')) {
    abort.abort();
    return { status: res.status, contentType, text: '' };
  }
  return { status: res.status, contentType, text: await res.text() };
}

function expectSane(r: Request, a: Answer) {
  const what = describe(r);
  const logged = serverErrors.length ? `\nserver log: ${serverErrors.at(-1)!.slice(0, 2000)}` : '';
  assert.ok(a.status >= 200 && a.status < 500, `${what} answered ${a.status} ${a.text.slice(0, 300)}${logged}`);
  const method = r.method ?? 'GET';
  const bodiless = method === 'HEAD' || a.status === 204;
  const eventStream = a.contentType.startsWith('text/event-stream');
  // the Prometheus text of /metrics (the URL parser may have normalized another path to it)
  const metrics = a.status === 200 && a.contentType.startsWith('text/plain; version=0.0.4');
  if (bodiless) {
    assert.is(a.text, '', `${what}: no body`);
    return;
  }
  if (eventStream) {
    assert.is(a.status, 200, `${what}: a stream is a 200`);
    return;
  }
  if (metrics) return;
  assert.is(
    a.contentType,
    'application/json; charset=utf-8',
    `${what} answered ${a.status} as ${a.contentType}: ${a.text.slice(0, 300)}`,
  );
  try {
    JSON.parse(a.text);
  } catch {
    assert.unreachable(`${what} answered ${a.status} with a body that is not JSON: ${a.text.slice(0, 300)}`);
  }
}

async function check(r: Request): Promise<Answer> {
  const a = await send(r);
  expectSane(r, a);
  return a;
}

// ---------------------------------------------------------------------------------------

test('GET /api/health and /api/tokens ignore any query', async () => {
  for (const [path, runs] of [
    ['/api/health', RUNS.health],
    ['/api/tokens', RUNS.tokens],
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
  const segment = hostile(
    fc.constantFrom(
      'api',
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
      '.',
      '..',
      '',
      '%2e',
      '%2F',
    ),
  );
  await holds(
    fc.asyncProperty(fc.array(segment, { minLength: 1, maxLength: 5 }), fc.boolean(), async (segments, trailing) => {
      const path = `/${segments.join('/')}${trailing ? '/' : ''}`;
      await check({ path: path.startsWith('//') ? `/x${path}` : path });
    }),
    RUNS.unknown,
  );
});

test('odd methods on every route: POST, PUT, DELETE, PATCH, OPTIONS, HEAD', async () => {
  const paths = fc.oneof(
    fc.constantFrom(
      '/api/health',
      '/api/tokens',
      '/api/trades/recent',
      '/api/sse/feed',
      '/metrics',
      '/api/nothing',
      '/',
    ),
    knownToken.map((a) => `/api/tokens/${a}`),
    knownToken.map((a) => `/api/candles/${a}?timeframe=1m`),
  );
  const headerText = fc.string({
    unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
    maxLength: 200,
  });
  await holds(
    fc.asyncProperty(
      fc.constantFrom('POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
      paths,
      fc.option(fc.oneof(unicode, sql, overlong, fc.constantFrom('{', '{"limit":1e999}', 'null', '[]')), {
        nil: undefined,
      }),
      fc.option(headerText, { nil: undefined }),
      async (method, path, body, header) => {
        const headers: Record<string, string> = { 'Content-Type': 'application/json' };
        if (header !== undefined)
          Object.assign(headers, {
            'Access-Control-Request-Headers': header,
            'Access-Control-Request-Method': header,
            Origin: header,
          });
        const r: Request = { method, path, headers, body: method === 'HEAD' ? undefined : body };
        const a = await check(r);
        if (method === 'OPTIONS') assert.is(a.status, 204, describe(r));
        else if (method !== 'HEAD') assert.is(a.status, 404, describe(r));
      },
    ),
    RUNS.methods,
  );
});

test('URLs and headers past the server limits are refused with a JSON 4xx', async () => {
  await holds(
    fc.asyncProperty(
      fc.constantFrom('/api/health', '/api/tokens', '/api/trades/recent', '/api/sse/feed', '/metrics'),
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

/** One request written as raw bytes; resolves with the answer's status, content type and body. */
function rawRequest(bytes: Buffer): Promise<Answer> {
  const { hostname, port } = new URL(ctx.api.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(bytes));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within 5 s to ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`));
    }, 5000);
    socket.on('data', (c) => {
      chunks.push(c);
      // an event stream does not end: its head is all there is to read
      const seen = Buffer.concat(chunks).toString('latin1');
      if (seen.includes('\r\n\r\n') && /^content-type:\s*text\/event-stream/im.test(seen.split('\r\n\r\n')[0]!))
        socket.destroy();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
      const contentType = /^content-type:\s*(.*)$/im.exec(head)?.[1]?.trim() ?? '';
      let body = rest.join('\r\n\r\n');
      if (/^transfer-encoding:\s*chunked/im.test(head))
        body = body.replace(/(?:^|\r\n)[0-9a-f]+\r\n/gi, '').replace(/\r\n$/, '');
      resolve({ status, contentType, text: body });
    });
  });
}

test('request lines the HTTP parser refuses, and request targets fetch cannot send', async () => {
  const target = fc.oneof(
    fc.constantFrom(
      '*',
      'http://127.0.0.1/api/health',
      '/api/health?x=\u0000',
      '/api/tokens/native1\u0000',
      '/api/health\u0001',
      '/api/health x',
      '',
      '/api/candles/\u00ff?from=\u00e9',
      '//api/health',
      '/api/sse/feed?events=trade\u007f',
    ),
    fc
      .tuple(
        fc.constantFrom('/api/tokens/', '/api/candles/', '/api/trades/recent?limit=', '/api/sse/feed?last_event_id='),
        fc.string({ unit: 'binary', maxLength: 20 }),
      )
      .map(([p, s]) => p + s),
  );
  const method = fc.constantFrom('GET', 'GET', 'HEAD', 'FOO', 'get', 'G\u0000T', 'CONNECT', 'TRACE', '');
  const version = fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/9.9', 'HTTP/1', '');
  const extraHeader = fc.constantFrom(
    '',
    'Last-Event-ID: 1\r\n',
    'Last-Event-ID: \u0000\r\n',
    'Bad Header\r\n',
    'Content-Length: -1\r\n',
    'Content-Length: 1\r\nContent-Length: 2\r\n',
    'Transfer-Encoding: chunked\r\n',
    ' folded: x\r\n',
    'X: \u00ff\r\n',
  );
  await holds(
    fc.asyncProperty(method, target, version, extraHeader, async (m, t, v, h) => {
      const line = `${m} ${t}${v ? ` ${v}` : ''}`;
      const a = await rawRequest(Buffer.from(`${line}\r\nHost: 127.0.0.1\r\nConnection: close\r\n${h}\r\n`, 'utf8'));
      // a request the parser refused is answered like a GET (its method is not known)
      const r: Request = { method: m === 'HEAD' && a.text === '' ? 'HEAD' : 'GET', path: JSON.stringify(line + h) };
      assert.ok(a.status !== 0, `${describe(r)}: the connection closed without an answer`);
      expectSane(r, a);
    }),
    RUNS.raw,
  );
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
