// Every token's facts kept for the token list (src/api/launchpad/token-facts.ts): read once,
// then only the tokens a change names, and everything again after `anything` or `vouched`; the same rows,
// in the same order, as reading the tokens table.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTokenFacts } from '../../src/api/launchpad/token-facts.ts';
import { tokenFacts } from '../../src/db/tokens.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { randomAddress } from '../helpers/devnet.ts';

const test = suite<{ t: TestDatabase; tokens: string[] }>('token facts', { t: undefined as never, tokens: [] });

const addTokens = (t: TestDatabase, tokens: readonly string[]) =>
  t.db.query(
    `INSERT INTO tokens (address, name, symbol, source, first_seen_at, native_reserves, current_price, metadata_fetched)
     SELECT a, 'F', 'F', 'launchpad', now() - (i || ' minutes')::interval, 1000, 1000, true FROM unnest($1::text[]) WITH ORDINALITY u(a, i)`,
    [tokens],
  );

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
  ctx.tokens = Array.from({ length: 5 }, () => randomAddress());
  await addTokens(ctx.t, ctx.tokens);
});

test.after(async (ctx) => {
  await ctx.t.dispose();
});

test('the tokens table, newest first; a change re-reads the tokens it names, anything re-reads all', async (ctx) => {
  const facts = createTokenFacts(ctx.t.db);
  assert.equal(await facts.all(), await tokenFacts(ctx.t.db), 'as the tokens table says, in its order');
  const [a, b] = ctx.tokens as [string, string];
  await ctx.t.db.query(`UPDATE tokens SET current_price = 2000, native_reserves = 5 WHERE address = ANY($1::text[])`, [
    [a, b],
  ]);
  const unannounced = await facts.all();
  assert.is(unannounced.find((t) => t.address === a)!.current_price, '1000', 'kept until a change names it');
  facts.apply({ kind: 'trades', tokens: [a] });
  const announced = await facts.all();
  assert.is(announced.find((t) => t.address === a)!.current_price, '2000', 'the token a trade named');
  assert.is(announced.find((t) => t.address === b)!.current_price, '1000', 'no other');
  facts.apply({ kind: 'balances', holders: [randomAddress()], tokens: [b] });
  assert.is((await facts.all()).find((t) => t.address === b)!.native_reserves, '5', 'the token a balance named');

  // a token first seen: named by the change that stored it; a backfill's: by anything
  const [named, backfilled] = [randomAddress(), randomAddress()];
  await addTokens(ctx.t, [named]);
  facts.apply({ kind: 'trades', tokens: [named] });
  assert.equal(await facts.all(), await tokenFacts(ctx.t.db), 'a new token in its place');
  await addTokens(ctx.t, [backfilled]);
  assert.ok(!(await facts.all()).some((t) => t.address === backfilled), 'not before it is announced');
  facts.apply({ kind: 'anything' });
  assert.equal(await facts.all(), await tokenFacts(ctx.t.db), 'everything read again');
  // the vouched set moved (no names): every token is read again
  await ctx.t.db.query(`UPDATE tokens SET native_reserves = 7 WHERE address = $1`, [b]);
  facts.apply({ kind: 'vouched' });
  assert.is((await facts.all()).find((t) => t.address === b)!.native_reserves, '7', 'after vouched');
  // a batch that made tokens known names them: those only
  await ctx.t.db.query(`UPDATE tokens SET native_reserves = 8 WHERE address IN ($1, $2)`, [a, b]);
  facts.apply({ kind: 'vouched', tokens: [a] });
  const after = await facts.all();
  assert.is(after.find((t) => t.address === a)!.native_reserves, '8', 'the token it named');
  assert.is(after.find((t) => t.address === b)!.native_reserves, '7', 'no other');
});

test.run();
