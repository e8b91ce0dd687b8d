// SQL over HTTP's bounds on what one query may cost the service (docs/sql.md "Limits"): an
// answer's bytes (not only its rows), no regular expression through `substring`'s pattern
// forms, and a statement that makes the embedded database's WebAssembly trap answered 503
// with the database reported stopped, never a wrong answer or a half-working session. On a
// database of its own: the last test stops the embedded one.
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

// biome-ignore lint/suspicious/noExplicitAny: the tests read whatever fields they assert on
async function post(api: LaunchpadApi, sql: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${api.url}/api/sql`, {
    method: 'POST',
    body: JSON.stringify({ sql }),
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

test('a JSON literal nested 1,000 deep: answered by a server; on the embedded database 503, and it is reported stopped', async ({
  t,
  api,
}) => {
  const nested = `${'['.repeat(1000)}${']'.repeat(1000)}`;
  const res = await post(api, `SELECT jsonb_typeof('${nested}'::jsonb) AS t`);
  if (t.db.kind === 'server') {
    assert.is(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.rows, [['array']]);
    return;
  }
  assert.is(res.status, 503, JSON.stringify(res.body));
  const after = await post(api, 'SELECT 1 AS one');
  assert.is(after.status, 503, 'no statement runs on what is left of it');
});

test.run();
