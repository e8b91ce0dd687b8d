// SQL over HTTP's bounds on what one query may cost the service (docs/sql.md "Limits"): an
// answer's bytes (not only its rows), no regular expression through `substring`'s pattern
// forms, and no brackets nested deeper than the embedded database's WebAssembly stack can
// parse (in the text, its strings or its parameters). On a database of its own.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LaunchpadApi } from '../../src/api/launchpad/server.ts';
import { DEFAULT_SQL_MAX_COST } from '../../src/api/launchpad/sql/options.ts';
import { MAX_ANSWER_BYTES } from '../../src/api/launchpad/sql/run.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startApi } from '../helpers/launchpad-api.ts';

const test = suite<{ t: TestDatabase; api: LaunchpadApi }>('SQL over HTTP: limits', {
  t: undefined as never,
  api: undefined as never,
});

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
  ctx.api = await startApi(ctx.t.db, {
    sql: {
      mode: 'loopback',
      maxRows: 10_000,
      rateLimit: 100_000,
      timeoutMs: 5_000,
      maxCost: ctx.t.db.kind === 'embedded' ? DEFAULT_SQL_MAX_COST : undefined,
    },
  });
});

test.after(async (ctx) => {
  await ctx.api?.close();
  await ctx.t?.dispose();
});

async function post(
  api: LaunchpadApi,
  sql: string,
  params?: readonly string[],
  // biome-ignore lint/suspicious/noExplicitAny: the tests read whatever fields they assert on
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${api.url}/api/sql`, {
    method: 'POST',
    body: JSON.stringify({ sql, params }),
    headers: { 'Content-Type': 'application/json' },
  });
  return { status: res.status, body: JSON.parse(await res.text()) };
}

/** A value of `size` characters made in the database from a short text (`replace` of a literal). */
const madeValue = (size: number) => `replace('${'a'.repeat(1000)}', 'a', '${'b'.repeat(size / 1000)}')`;

test('an answer over its bytes is refused with the reason, whether one value or many rows make it', async ({ api }) => {
  const one = await post(api, `SELECT ${madeValue(20_000_000)} AS v`);
  assert.is(one.status, 400, JSON.stringify(one.body).slice(0, 300));
  assert.match(one.body.details[0].message, `the answer is over ${MAX_ANSWER_BYTES} bytes`);
  const rows = Array.from({ length: 12 }, (_, i) => i + 1).join(', ');
  const many = await post(api, `SELECT ${madeValue(2_000_000)} AS v, n FROM unnest(ARRAY[${rows}]) AS n`);
  assert.is(many.status, 400, JSON.stringify(many.body).slice(0, 300));
  assert.match(many.body.details[0].message, `the answer is over ${MAX_ANSWER_BYTES} bytes`);
  // under it, the whole answer
  const fits = await post(api, `SELECT length(${madeValue(2_000_000)}) AS n, ${madeValue(1_000_000)} AS v`);
  assert.is(fits.status, 200);
  assert.equal(fits.body.rows[0][0], '2000000');
  assert.is(fits.body.rows[0][1].length, 1_000_000);
});

test('substring is refused (its pattern forms run regular expressions); substr answers', async ({ api }) => {
  for (const sql of [
    `SELECT substring('aaac' from '(a*)*c') AS s`,
    `SELECT substring('abc', 'b') AS s`,
    `SELECT substring('abc' similar 'a#"b#"c' escape '#') AS s`,
    `SELECT substring('abc' from 1 for 2) AS s`,
  ]) {
    const refused = await post(api, sql);
    assert.is(refused.status, 400, sql);
    assert.match(JSON.stringify(refused.body), /substring/, sql);
  }
  const ok = await post(api, `SELECT substr('abc', 2, 1) AS s`);
  assert.is(ok.status, 200);
  assert.equal(ok.body.rows, [['b']]);
});

test('brackets nested past 100 levels are refused before the database parses them, in the text, a string or a parameter; 100 levels answer', async ({
  api,
}) => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
  for (const [sql, params] of [
    [`SELECT jsonb_typeof('${nested(1000)}'::jsonb) AS t`, []],
    [`SELECT ${'('.repeat(900)}1${')'.repeat(900)} AS n`, []],
    // closers in another string do not hide the opening run
    [`SELECT '${']'.repeat(500)}' AS a, jsonb_typeof('${nested(101)}'::jsonb) AS t`, []],
  ] as const) {
    const res = await post(api, sql, params);
    assert.is(res.status, 400, JSON.stringify(res.body).slice(0, 200));
    assert.match(res.body.details[0].message, /nested too deeply: at most 100 levels/);
  }
  const param = await post(api, 'SELECT jsonb_typeof($1::jsonb) AS t', [nested(1000)]);
  assert.is(param.status, 400, JSON.stringify(param.body).slice(0, 200));
  assert.match(JSON.stringify(param.body), /at most 100 deep/);
  // the call's bracket and 99 of the JSON's: 100 levels
  const fits = await post(api, `SELECT jsonb_typeof('${nested(99)}'::jsonb) AS t`);
  assert.is(fits.status, 200, JSON.stringify(fits.body).slice(0, 200));
  assert.equal(fits.body.rows, [['array']]);
  const after = await post(api, 'SELECT 1 AS one');
  assert.is(after.status, 200, 'the database answers on');
});

test.run();
