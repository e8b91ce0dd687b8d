// The attribute index's numbered pairs (sql/0017_attribute_values.sql): a pair is numbered
// once whoever writes it, and two writers numbering the same new pair at once agree.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { attributeIds } from '../../src/db/attribute-values.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { sleep } from '../helpers/wait.ts';

const test = suite<{ t: TestDatabase }>('attribute values', { t: undefined as never });

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
});
test.after(async (ctx) => {
  await ctx.t?.dispose();
});

test('a pair keeps its number across batches; repeats in one batch are one pair; U+0000 is stored as U+FFFD', async (ctx) => {
  const first = await ctx.t.db.transaction((tx) =>
    attributeIds(tx, [
      ['message.sender', 'native1carol'],
      ['message.sender', 'native1carol'],
      ['transfer.recipient', 'native1carol'],
      ['message.action', 'odd\0value'],
    ]),
  );
  const carol = first.get('message.sender')!.get('native1carol');
  assert.ok(carol !== undefined);
  assert.is.not(first.get('transfer.recipient')!.get('native1carol'), carol, 'another key is another pair');
  assert.ok(first.get('message.action')!.has('odd\uFFFDvalue'));
  const second = await ctx.t.db.transaction((tx) =>
    attributeIds(tx, [
      ['message.sender', 'native1carol'],
      ['message.sender', 'native1dave'],
    ]),
  );
  assert.is(second.get('message.sender')!.get('native1carol'), carol);
  const [count] = await ctx.t.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM attribute_values WHERE value IN ('native1carol', 'native1dave')`,
  );
  assert.is(count!.n, 3);
});

test('two writers numbering the same new pair at once get the same number (the second waits for the first)', async (ctx) => {
  const pair = ['message.sender', `native1race${Date.now()}`] as const;
  let numbered!: () => void;
  const aNumbered = new Promise<void>((resolve) => (numbered = resolve));
  let release!: () => void;
  const aMayCommit = new Promise<void>((resolve) => (release = resolve));
  const a = ctx.t.db.transaction(async (tx) => {
    const ids = await attributeIds(tx, [pair, ['message.sender', 'native1only-a']]);
    numbered();
    await aMayCommit;
    return ids;
  });
  await aNumbered;
  // on a server, b's insert waits on a's uncommitted row, and its own statement cannot see
  // it once a commits; on the embedded database b runs after a
  const b = ctx.t.db.transaction((tx) => attributeIds(tx, [['message.sender', 'native1only-b'], pair]));
  await sleep(200);
  release();
  const [idsA, idsB] = await Promise.all([a, b]);
  assert.is(idsB.get(pair[0])!.get(pair[1]), idsA.get(pair[0])!.get(pair[1]));
  assert.ok(idsB.get('message.sender')!.has('native1only-b'));
  const [row] = await ctx.t.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM attribute_values WHERE value = $1`,
    [pair[1]],
  );
  assert.is(row!.n, 1);
});

test.run();
