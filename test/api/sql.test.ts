// SQL over HTTP (docs/sql.md): what analysts may read and how, and everything else refused with
// 400 and a clear reason while the indexer keeps indexing and every API keeps answering. On a
// server, each allowed query's answer is compared with what psql prints for the same database.
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LaunchpadApi } from '../../src/api/launchpad/server.ts';
import {
  ALLOWED_FUNCTIONS,
  ALLOWED_RELATIONS,
  ALLOWED_TYPES,
  ANALYST_ROLE,
} from '../../src/api/launchpad/sql/allow-list.ts';
import { createSqlContext, DEFAULT_SQL_MAX_COST, type SqlOptions } from '../../src/api/launchpad/sql/options.ts';
import { SqlFailed } from '../../src/api/launchpad/sql/run.ts';
import { indexSource } from '../../src/indexer/indexer.ts';
import { openTestDatabase, whileReadsDeadlock } from '../helpers/database.ts';
import { startDevnet } from '../helpers/devnet.ts';
import { checkWith, expectAnswer, holds, recordErrors } from '../helpers/hostile.ts';
import { assertTradesMatchLedger, produceTraffic, startIndexer } from '../helpers/indexing.ts';
import { type ApiCtx, closeApi, get, startApi } from '../helpers/launchpad-api.ts';
import { psqlRows } from '../helpers/psql.ts';

const test = suite('SQL over HTTP');
const ctx = {} as ApiCtx;
const { serverErrors, logger } = recordErrors();

const MAX_ROWS = 20;
const sqlOptions = (embedded: boolean, more: Partial<SqlOptions> = {}): SqlOptions => ({
  mode: 'loopback',
  maxRows: MAX_ROWS,
  rateLimit: 100_000,
  timeoutMs: 1_000,
  maxCost: embedded ? DEFAULT_SQL_MAX_COST : undefined,
  ...more,
});

// biome-ignore lint/suspicious/noExplicitAny: the tests read whatever fields they assert on
type Body = any;
async function post(api: LaunchpadApi, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${api.url}/api/sql`, {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...headers },
  });
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('application/json');
  return { status: res.status, headers: res.headers, text, body: (json ? JSON.parse(text) : undefined) as Body };
}
const query = (sql: string, params?: unknown[]) => post(ctx.api, params ? { sql, params } : { sql });

test.before(async () => {
  ctx.t = await openTestDatabase();
  ctx.devnet = await startDevnet();
  ctx.running = startIndexer(ctx.t.db, ctx.devnet, { pollIntervalMs: 100 });
  await produceTraffic(ctx.devnet, 6, 5);
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
  ctx.api = await startApi(ctx.t.db, {
    logger,
    index: indexSource(ctx.t.db, ctx.running.indexer),
    sql: sqlOptions(ctx.t.db.kind === 'embedded'),
  });
});
test.after(() => closeApi(ctx));

test('a SELECT over the trades: every value as PostgreSQL prints it, columns named and typed', async () => {
  const a = await query(
    `SELECT token_address, count(*) AS n, sum(volume_unative) AS volume, bool_and(volume_unative > 0) AS positive,
            NULL::text AS nothing, 0.1::float8 + 0.2::float8 AS f
     FROM trades GROUP BY token_address ORDER BY token_address`,
  );
  assert.is(a.status, 200, a.text);
  assert.equal(a.body.columns, [
    { name: 'token_address', type: 'text' },
    { name: 'n', type: 'bigint' },
    { name: 'volume', type: 'numeric' },
    { name: 'positive', type: 'boolean' },
    { name: 'nothing', type: 'text' },
    { name: 'f', type: 'double precision' },
  ]);
  // the oracle: the devnet's own ledger of what it executed
  const byToken = new Map<string, { n: number; volume: bigint }>();
  for (const t of ctx.devnet.ledger.trades) {
    const e = byToken.get(t.token) ?? { n: 0, volume: 0n };
    e.n++;
    e.volume += BigInt(t.volumeUnative);
    byToken.set(t.token, e);
  }
  const expected = [...byToken.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([token, e]) => [token, String(e.n), String(e.volume), 't', null, '0.30000000000000004']);
  assert.equal(a.body.rows, expected);
  assert.is(a.body.truncated, false);
  assert.is(a.headers.get('x-truncated'), 'false');
});

test('parameters are bound, not spliced: $1 is a value', async () => {
  const [token] = [...new Set(ctx.devnet.ledger.trades.map((t) => t.token))];
  const a = await query('SELECT count(*) FROM trades WHERE token_address = $1', [token]);
  assert.is(a.status, 200, a.text);
  assert.equal(a.body.rows, [[String(ctx.devnet.ledger.trades.filter((t) => t.token === token).length)]]);
  const b = await query('SELECT count(*) FROM trades WHERE token_address = $1', ["x' OR '1'='1"]);
  assert.equal(b.body.rows, [['0']]);
  const c = await query('SELECT $1::int + 1 AS n, $2::text AS s, $3::boolean AS b, $4::text AS z', [
    41,
    'é',
    true,
    null,
  ]);
  assert.equal(c.body.rows, [['42', 'é', 't', null]]);
});

test(`at most SQL_MAX_ROWS rows, and truncated says so`, async () => {
  const total = ctx.devnet.ledger.trades.length;
  assert.ok(total > MAX_ROWS, `the devnet made more than ${MAX_ROWS} trades (${total})`);
  const a = await query('SELECT seq FROM trades ORDER BY seq');
  assert.is(a.status, 200, a.text);
  assert.is(a.body.rows.length, MAX_ROWS);
  assert.is(a.body.truncated, true);
  assert.is(a.headers.get('x-truncated'), 'true');
  // the first rows in the query's own order
  const all = ctx.devnet.ledger.trades
    .map((t) => (BigInt(t.height) << 32n) | (BigInt(t.txIndex) << 16n) | BigInt(t.eventIndex))
    .sort((x, y) => (x < y ? -1 : 1));
  assert.equal(
    a.body.rows.map((r: string[]) => r[0]),
    all.slice(0, MAX_ROWS).map(String),
  );
  const exact = await query(`SELECT seq FROM trades ORDER BY seq LIMIT ${MAX_ROWS}`);
  assert.is(exact.body.truncated, false, 'exactly the cap is not truncated');
});

test('CSV by Accept: a header row, then the rows; NULL as an empty field', async () => {
  const a = await post(
    ctx.api,
    { sql: `SELECT 'a,b' AS "x,y", 'say "hi"' AS q, NULL::text AS n, '' AS e, 1 AS one` },
    { Accept: 'text/csv' },
  );
  assert.is(a.status, 200, a.text);
  assert.match(a.headers.get('content-type') ?? '', /^text\/csv/);
  assert.is(a.text, '"x,y",q,n,e,one\n"a,b","say ""hi""",,"",1\n', 'NULL an empty field, an empty text ""');
  const json = await post(ctx.api, { sql: 'SELECT 1' }, { Accept: 'application/json, text/csv;q=0.5' });
  assert.match(json.headers.get('content-type') ?? '', /^application\/json/);
});

test('CSV: a text cell a spreadsheet would run as a formula is sent after a quote; numbers and the JSON answer as they are', async () => {
  const sql = `SELECT '=HYPERLINK("http://x")' AS name, '@SUM(A1)' AS b, '-2+3' AS c, '＝1' AS d, 'a=b' AS plain,
                      -5 AS n, -1.5::numeric AS x, '{"=": 1}'::jsonb AS j, 1 AS "=cmd"`;
  const csv = await post(ctx.api, { sql }, { Accept: 'text/csv' });
  assert.is(csv.status, 200, csv.text);
  assert.is(
    csv.text,
    `name,b,c,d,plain,n,x,j,'=cmd\n"'=HYPERLINK(""http://x"")",'@SUM(A1),'-2+3,'＝1,a=b,-5,-1.5,"{""="": 1}",1\n`,
  );
  const json = await post(ctx.api, { sql });
  assert.equal(json.body.rows, [
    ['=HYPERLINK("http://x")', '@SUM(A1)', '-2+3', '＝1', 'a=b', '-5', '-1.5', '{"=": 1}', '1'],
  ]);
});

test('the query alone as application/sql', async () => {
  const a = await post(ctx.api, 'SELECT 2 + 2 AS four', { 'Content-Type': 'application/sql' });
  assert.is(a.status, 200, a.text);
  assert.equal(a.body.rows, [['4']]);
});

test('the views made for analysts answer, and daily_volume agrees with the ledger', async () => {
  for (const view of [
    'daily_volume',
    'ohlcv_1m',
    'ohlcv_5m',
    'ohlcv_1h',
    'ohlcv_1d',
    'graduations',
    'token_holders',
    'trader_daily_volume',
    'top_traders_24h',
  ]) {
    const a = await query(`SELECT * FROM ${view} LIMIT 5`);
    assert.is(a.status, 200, `${view}: ${a.text}`);
  }
  const a = await query('SELECT sum(volume_unative)::text, sum(trade_count)::text FROM daily_volume');
  const volume = ctx.devnet.ledger.trades.reduce((s, t) => s + BigInt(t.volumeUnative), 0n);
  assert.equal(a.body.rows, [[String(volume), String(ctx.devnet.ledger.trades.length)]]);
  const traders = await query('SELECT sum(trades)::text FROM top_traders_24h');
  assert.equal(traders.body.rows, [[String(ctx.devnet.ledger.trades.length)]]);
});

test('GET /api/sql/relations lists the allow-list with each relation’s columns', async () => {
  const a = await get(ctx.api, '/api/sql/relations');
  assert.is(a.status, 200);
  assert.equal(a.body.relations.map((r: Body) => r.name).sort(), Object.keys(ALLOWED_RELATIONS).sort());
  const trades = a.body.relations.find((r: Body) => r.name === 'trades');
  assert.is(trades.kind, 'table');
  assert.ok(trades.columns.some((c: Body) => c.name === 'volume_unative' && c.type === 'amount'));
  assert.is(a.body.relations.find((r: Body) => r.name === 'candles_1h').kind, 'continuous aggregate');
  assert.is(a.body.relations.find((r: Body) => r.name === 'daily_volume').kind, 'view');
});

test('the analyst role may read exactly the allow-list, and queries run as it', async () => {
  const grants = await ctx.t.db.query<{ name: string }>(
    `SELECT DISTINCT table_name AS name FROM information_schema.role_table_grants
     WHERE grantee = $1 AND table_schema = current_schema() AND privilege_type = 'SELECT' ORDER BY 1`,
    [ANALYST_ROLE],
  );
  assert.equal(
    grants.map((g) => g.name),
    Object.keys(ALLOWED_RELATIONS).sort(),
  );
  // past the allow-list, the role alone still refuses a relation it was not granted
  const sql = createSqlContext(ctx.t.db, sqlOptions(ctx.t.db.kind === 'embedded'), {
    host: '127.0.0.1',
    windowSeconds: 60,
    trustedHops: 0,
  });
  assert.ok(await sql.runner.usesRole(), 'the service acts as the analyst role');
  try {
    await sql.runner.run({ statement: 'SELECT * FROM feed_events', offset: 0 }, []);
    assert.unreachable('feed_events was read');
  } catch (error) {
    assert.instance(error, SqlFailed);
    assert.is((error as SqlFailed).code, '42501', (error as Error).message);
  }
});

// ---------------------------------------------------------------------------------------
// Refused: each with 400 and its reason.

const REFUSED: [what: string, sql: string, reason: RegExp][] = [
  ['INSERT', `INSERT INTO tokens (address, source) VALUES ('x', 'amm')`, /only SELECT is allowed, not INSERT/],
  ['UPDATE', `UPDATE tokens SET name = 'x'`, /not UPDATE/],
  ['DELETE', 'DELETE FROM trades', /not DELETE/],
  [
    'a write inside WITH',
    'WITH gone AS (DELETE FROM trades RETURNING *) SELECT count(*) FROM gone',
    /in WITH, not DELETE/,
  ],
  ['SELECT INTO', 'SELECT * INTO stolen FROM trades', /SELECT INTO writes a table/],
  ['CREATE TABLE', 'CREATE TABLE x (a int)', /not CreateStmt|not Create/],
  ['DROP TABLE', 'DROP TABLE trades', /only SELECT is allowed/],
  ['TRUNCATE', 'TRUNCATE trades', /only SELECT is allowed/],
  ['ALTER', 'ALTER TABLE trades ADD COLUMN x int', /only SELECT is allowed/],
  ['SET', 'SET search_path = nowhere', /not SET\/RESET/],
  ['RESET ALL', 'RESET ALL', /not SET\/RESET/],
  ['set_config', `SELECT set_config('search_path', 'nowhere', false)`, /function set_config is not allowed/],
  ['COPY out', 'COPY trades TO STDOUT', /not COPY/],
  ['COPY in', 'COPY trades FROM STDIN', /not COPY/],
  ['two statements', 'SELECT 1; DROP TABLE trades', /one statement only/],
  ['an advisory lock', 'SELECT pg_advisory_lock(1)', /function pg_advisory_lock is not allowed/],
  ['a transaction-scoped lock', 'SELECT pg_try_advisory_xact_lock(1)', /function pg_try_advisory_xact_lock/],
  ['FOR UPDATE', 'SELECT * FROM tokens FOR UPDATE', /FOR UPDATE\/SHARE locks rows/],
  ['LOCK', 'LOCK TABLE trades', /not LOCK/],
  ['pg_sleep', 'SELECT pg_sleep(60)', /function pg_sleep is not allowed/],
  [
    'generate_series of a billion rows in FROM',
    'SELECT count(*) FROM generate_series(1, 1000000000)',
    /function generate_series is not allowed in FROM/,
  ],
  ['generate_series in the select list', 'SELECT generate_series(1, 1000000000)', /function generate_series/],
  [
    'a recursive CTE',
    'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r',
    /WITH RECURSIVE is not allowed/,
  ],
  ['pg_roles', 'SELECT rolname FROM pg_roles', /relation pg_roles is not allowed/],
  ['pg_catalog.pg_authid', 'SELECT * FROM pg_catalog.pg_authid', /relation pg_catalog.pg_authid is not allowed/],
  ['information_schema', 'SELECT * FROM information_schema.tables', /relation information_schema.tables/],
  ['a table off the list', 'SELECT * FROM feed_events', /relation feed_events is not allowed/],
  ['TimescaleDB’s catalog', 'SELECT * FROM _timescaledb_catalog.hypertable', /relation _timescaledb_catalog/],
  [
    'a catalog past a WITH of its name',
    'SELECT * FROM (WITH pg_class AS (SELECT 1) SELECT * FROM pg_class) a, pg_class',
    /relation pg_class is not allowed/,
  ],
  ['a cast that reads the catalog', `SELECT 'pg_authid'::regclass`, /type regclass is not allowed/],
  ['current_setting', `SELECT current_setting('data_directory')`, /function current_setting is not allowed/],
  ['pg_read_file', `SELECT pg_read_file('/etc/passwd')`, /function pg_read_file is not allowed/],
  ['version()', 'SELECT version()', /function version is not allowed/],
  ['repeat', `SELECT repeat('x', 1000000000)`, /function repeat is not allowed/],
  ['a regular expression', `SELECT count(*) FROM tokens WHERE name ~ '(a+)+$'`, /operator ~ is not allowed/],
  ['CURRENT_USER', 'SELECT CURRENT_USER', /CURRENT_USER is not allowed/],
  ['NOTIFY', `NOTIFY feed_events, 'anything'`, /not NOTIFY/],
  ['LISTEN', 'LISTEN feed_events', /not LISTEN/],
  ['EXPLAIN ANALYZE', 'EXPLAIN ANALYZE DELETE FROM trades', /not EXPLAIN/],
  ['DO', `DO $$ BEGIN DELETE FROM trades; END $$`, /not DO/],
  ['BEGIN', 'BEGIN', /not a transaction statement/],
  [
    'a function off the list written as a field of a row (t.f is f(t))',
    'SELECT t.pg_column_size FROM tokens t',
    /function or type pg_column_size is not allowed \(written as a field/,
  ],
  ['the same through a row in brackets', 'SELECT (t).record_send FROM tokens t', /function or type record_send/],
  ['on a row column of a subquery', 'SELECT (s.r).pg_typeof FROM (SELECT t AS r FROM tokens t) s', /pg_typeof/],
  ['pg_sleep as a field of a number', 'SELECT (0.01).pg_sleep', /function or type pg_sleep is not allowed/],
  ['pg_sleep on a scalar function in FROM', 'SELECT u.pg_sleep FROM unnest(ARRAY[5]) u', /pg_sleep is not allowed/],
  ['a setting read as a field', `SELECT ('server_version').current_setting`, /current_setting is not allowed/],
  ['an advisory lock as a field', 'SELECT (1::int8).pg_advisory_lock', /pg_advisory_lock is not allowed/],
  ['a cast that reads the catalog, as a field', `SELECT ('pg_class').regclass`, /type regclass is not allowed/],
  [
    'a field named as the query named a column elsewhere',
    'SELECT u."PG_SLEEP", u.pg_sleep FROM unnest(ARRAY[5]) u, (SELECT 1 AS pg_sleep) x',
    /pg_sleep is not allowed/,
  ],
  ['a parse error', 'SELEC 1', /^syntax error: syntax error at or near "SELEC"$/],
  ['nothing', '   -- only a comment', /the query is empty/],
];

for (const [what, sql, reason] of REFUSED) {
  test(`refused: ${what}`, async () => {
    const a = await query(sql);
    assert.is(a.status, 400, `${sql} → ${a.status} ${a.text}`);
    assert.is(a.body.error, 'Query refused');
    assert.match(a.body.details[0].message, reason);
  });
}

test('a field names a column: of the allow-listed relations, or one the query made, unless it is a function or type off the list; allowed functions answer written as fields', async () => {
  const named = await query(
    `WITH d AS (SELECT t.name, t.symbol AS ticker FROM tokens t) SELECT d.name, d.ticker FROM d`,
  );
  assert.is(named.status, 200, named.text);
  const a = await query(
    `SELECT x.n, (x.v).round, (x.r).to_jsonb FROM (SELECT 1 AS n, 1.5 AS v, r FROM (SELECT 7 AS q) r) x`,
  );
  assert.is(a.status, 200, a.text);
  assert.equal(a.body.rows, [['1', '2', '{"q": 7}']], '(1.5).round is round(1.5), (r).to_jsonb is to_jsonb(r)');
  // a column of the allow-listed relations named as a function or type of the catalog (read
  // as that column where it is one): each is one whose call or cast reads nothing and costs nothing
  const columns = await ctx.t.db.query<{ name: string }>(
    `SELECT DISTINCT a.attname::text AS name FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
     WHERE c.relname = ANY($1::text[]) AND c.relnamespace = to_regnamespace(current_schema())::oid AND a.attnum > 0
       AND (a.attname IN (SELECT proname FROM pg_proc WHERE pronamespace IN ('pg_catalog'::regnamespace, to_regnamespace(current_schema()))
                          AND pronargs >= 1 AND pronargs - pronargdefaults <= 1)
         OR a.attname IN (SELECT typname FROM pg_type WHERE typnamespace IN ('pg_catalog'::regnamespace, to_regnamespace(current_schema()))))
     ORDER BY 1`,
    [Object.keys(ALLOWED_RELATIONS)],
  );
  assert.equal(
    columns.map((c) => c.name).filter((name) => !ALLOWED_FUNCTIONS.has(name) && !ALLOWED_TYPES.has(name)),
    ['height', 'name', 'tokens', 'trades'],
    'height(box) is geometry, name(text) and a cast to name or to a row of tokens or trades read nothing',
  );
});

test('a parse error says where: the position PostgreSQL gives, in characters from 1', async () => {
  const a = await query('SELECT é FRM trades');
  assert.is(a.status, 400);
  assert.match(a.body.details[0].message, /syntax error at or near "trades"/);
  assert.is(a.body.details[0].position, 14);
});

test('a query the database refuses: 400 with its SQLSTATE and where in the query', async () => {
  const a = await query('  SELECT nosuch FROM trades');
  assert.is(a.status, 400);
  assert.equal(a.body, {
    error: 'Query failed',
    details: [{ message: 'column "nosuch" does not exist', position: 10, code: '42703' }],
  });
  const b = await query('SELECT 1 / 0');
  assert.is(b.body.details[0].code, '22012');
});

test("a query the database gives up for a conflict (a deadlock with a compression job) is the database's failure: 503 with Retry-After, not 400", async () => {
  await whileReadsDeadlock(
    ctx.t.db,
    'native_usd_prices',
    async () => {
      const a = await query('SELECT * FROM native_usd_prices');
      assert.is(a.status, 503, a.text);
      assert.is(a.headers.get('retry-after'), '1');
      assert.match(a.body.error, /busy, retry/);
    },
    { counted: false },
  );
});

test('a query too heavy for the time limit is refused (cost cap embedded, statement_timeout on a server)', async () => {
  const a = await query('SELECT count(*) FROM trades a, trades b, trades c, trades d, trades e, trades f, trades g');
  assert.is(a.status, 400, a.text);
  if (ctx.t.db.kind === 'embedded') {
    assert.is(a.body.error, 'Query refused');
    assert.match(
      a.body.details[0].message,
      /estimated cost \d+ is over this server's limit of 250000 \(SQL_MAX_COST\)/,
    );
  } else {
    assert.is(a.body.error, 'Query failed');
    assert.is(a.body.details[0].code, '57014');
    assert.match(a.body.details[0].message, /longer than this server's limit of 1000 ms/);
  }
});

test('bad bodies: 400 saying what is wrong; a query past 64 KiB: 413', async () => {
  for (const [body, message] of [
    ['{', /must be JSON/],
    ['[]', /expected object/],
    ['{"sql": 1}', /expected string/],
    ['{"sql": "SELECT 1", "params": [{"a": 1}]}', /Invalid input|expected/],
    ['{"sql": "SELECT 1", "extra": true}', /Unrecognized key/],
  ] as const) {
    const a = await post(ctx.api, body);
    assert.is(a.status, 400, `${body} → ${a.status} ${a.text}`);
    assert.match(a.body.details[0].message, message);
  }
  const big = await query(`SELECT '${'x'.repeat(70_000)}'`);
  assert.is(big.status, 413);
});

test('off (SQL_API=off, or loopback on an API that is not): 403 saying how to turn it on', async () => {
  const off = await startApi(ctx.t.db, { sql: sqlOptions(true, { mode: 'off' }) });
  try {
    const a = await post(off, { sql: 'SELECT 1' });
    assert.is(a.status, 403);
    assert.equal(a.body, { error: 'SQL over HTTP is off on this server', details: [{ message: 'SQL_API=off' }] });
  } finally {
    await off.close();
  }
  const api = { windowSeconds: 60, trustedHops: 0 };
  const options = sqlOptions(true);
  assert.match(createSqlContext(ctx.t.db, options, { ...api, host: '0.0.0.0' }).off ?? '', /set SQL_API=on/);
  assert.is(createSqlContext(ctx.t.db, options, { ...api, host: '::1' }).off, undefined);
  assert.is(createSqlContext(ctx.t.db, { ...options, mode: 'on' }, { ...api, host: '0.0.0.0' }).off, undefined);
});

test('its own rate limit: SQL_RATE_LIMIT queries per client per window, then 429', async () => {
  const limited = await startApi(ctx.t.db, { sql: sqlOptions(true, { rateLimit: 2 }) });
  try {
    assert.is((await post(limited, { sql: 'SELECT 1' })).status, 200);
    assert.is((await post(limited, { sql: 'SELECT 1' })).status, 200);
    const a = await post(limited, { sql: 'SELECT 1' });
    assert.is(a.status, 429);
    assert.ok(a.headers.get('retry-after'));
    assert.is((await get(limited, '/api/health')).status, 200, 'the other routes are not limited by it');
  } finally {
    await limited.close();
  }
});

test('while every refused query is tried, the indexer keeps indexing and the APIs keep answering', async () => {
  const before = ctx.devnet.height();
  const traffic = produceTraffic(ctx.devnet, 8, 4);
  const answers: number[] = [];
  for (let round = 0; round < 3; round++) {
    const tried = await Promise.all([
      ...REFUSED.map(([, sql]) => query(sql).then((a) => a.status)),
      query('SELECT count(*) FROM trades').then((a) => a.status),
      get(ctx.api, '/api/tokens').then((a) => a.status),
    ]);
    answers.push(...tried);
  }
  await traffic;
  assert.ok(
    answers.every((s) => s === 200 || s === 400),
    `only 200 and 400: ${[...new Set(answers)]}`,
  );
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
  assert.ok(ctx.devnet.height() >= before + 8);
  await assertTradesMatchLedger(ctx.t.db, ctx.devnet);
  // the service's session is as it was: its own queries still find its tables
  const a = await get(ctx.api, '/api/tokens');
  assert.is(a.status, 200);
  const c = await query('SELECT count(*) FROM trades');
  assert.equal(c.body.rows, [[String(ctx.devnet.ledger.trades.length)]]);
});

test('generated SQL text: only 2xx or 4xx with a JSON body, and the process stays up', async () => {
  const words = [
    'SELECT',
    '*',
    'FROM',
    'WHERE',
    'trades',
    'tokens',
    'pg_class',
    'candles_1m',
    'daily_volume',
    'GROUP BY',
    'ORDER BY',
    'LIMIT',
    'WITH',
    'RECURSIVE',
    'AS',
    '(',
    ')',
    ',',
    ';',
    '$1',
    "'x'",
    '1',
    '-1',
    '1e308',
    'NULL',
    'count(*)',
    'sum(volume_unative)',
    'pg_sleep(1)',
    'generate_series(1,10)',
    '::int',
    '::regclass',
    '=',
    '~',
    '||',
    'UNION',
    'JOIN',
    'ON',
    'DELETE',
    'INSERT INTO',
    'VALUES',
    'SET',
    'COPY',
    '"quoted"',
    '--',
    '/*',
    '*/',
    '\\',
    'é',
    '\u0000',
    '\ud800',
  ];
  const text = fc.oneof(
    fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 14 }).map((w) => w.join(' ')),
    fc.string({ maxLength: 80 }),
    fc
      .tuple(
        fc.constantFrom(...REFUSED.map(([, sql]) => sql), 'SELECT * FROM trades'),
        fc.nat(),
        fc.string({ maxLength: 6 }),
      )
      .map(([sql, at, s]) => sql.slice(0, at % (sql.length + 1)) + s + sql.slice(at % (sql.length + 1))),
  );
  const params = fc.option(
    fc.array(fc.oneof(fc.string(), fc.double(), fc.boolean(), fc.constant(null)), { maxLength: 3 }),
    {
      nil: undefined,
    },
  );
  const check = checkWith(
    () => ctx.api.url,
    (r, a) => expectAnswer(r, a, { serverErrors }),
  );
  await holds(
    fc.asyncProperty(text, params, async (sql, p) => {
      await check({
        method: 'POST',
        path: '/api/sql',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(p === undefined ? { sql } : { sql, params: p }),
      });
    }),
    150,
  );
  assert.is((await get(ctx.api, '/api/health')).status, 200);
  assert.equal(serverErrors, [], 'the API logged no error');
});

test('on a server, allowed queries answer exactly what psql prints', async () => {
  if (!ctx.t.url) return; // the embedded run has no psql to compare with (npm run db:shell is tested on its own)
  const queries = [
    'SELECT * FROM trades ORDER BY seq',
    'SELECT * FROM tokens ORDER BY address',
    'SELECT * FROM daily_volume ORDER BY day, token_address',
    `SELECT token_address, time_bucket('1 hour', bucket) AS hour, sum(volume) AS volume, max(high) AS high FROM candles_1m GROUP BY 1, 2 ORDER BY 1, 2`,
    'SELECT height, hash, time, block FROM blocks ORDER BY height LIMIT 20',
    'SELECT hash, tx_bytes, events FROM txs ORDER BY height, tx_index LIMIT 10',
    `SELECT 1.0 / 3 AS third, 0.1::float8 + 0.2::float8 AS f, interval '1 day 2 hours' AS i, ARRAY[1, 2] AS a, true AS t, NULL::text AS n, 'x"y,z' AS q, '{"a": [1, 2.50]}'::jsonb AS j`,
  ];
  for (const sql of queries) {
    const a = await query(sql);
    assert.is(a.status, 200, `${sql}: ${a.text}`);
    const rows = await psqlRows(ctx.t.url, `SELECT * FROM (${sql}) q LIMIT ${MAX_ROWS}`);
    assert.ok(rows.length > 0, `${sql}: psql printed rows`);
    assert.equal(a.body.rows, rows, sql);
  }
});

test.run();
