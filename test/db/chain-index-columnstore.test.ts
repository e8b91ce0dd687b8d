// The chain index's columnstore policy (sql/0019_chain_index_columnstore.sql), run by the hourly
// upkeep as the embedded service and a server's workers run it: chunks of txs and of the
// attribute index whose heights end 100,000 or more behind the indexer's cursor are
// compressed, newer ones stay in the rowstore, txs in batches of at most 100 (what reading one
// decompresses), and a backfill writes into a compressed chunk without duplicates, its txs
// found by hash and by attribute.
import { randomBytes } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runJobs } from '../../src/db/jobs.ts';
import { holdCompressionJobs, openTestDatabase, type TestDatabase } from '../helpers/database.ts';

const test = suite<{ t: TestDatabase }>('chain index columnstore', { t: undefined as never });

const TIP = 260_000;

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
  await holdCompressionJobs(ctx.t);
  await ctx.t.db.query(
    `INSERT INTO indexer_state (chain_id, first_height, first_block_hash, last_height, last_block_hash, last_block_time)
     VALUES ('test', 1, 'A', $1, 'B', now())`,
    [TIP],
  );
});

test.after(async (ctx) => {
  await ctx.t?.dispose();
});

const TX_COLUMNS = [
  'hash',
  'height',
  'tx_index',
  'time',
  'code',
  'raw_log',
  'gas_wanted',
  'gas_used',
  'tx_bytes',
  'events',
];
/** A row of txs (columns TX_COLUMNS) with random bytes. */
const txRow = (hash: Uint8Array, height: number, txIndex: number) => [
  hash,
  height,
  txIndex,
  new Date(),
  0,
  '',
  '1',
  '1',
  randomBytes(40),
  randomBytes(20),
];

/** A tx at a height, as the indexer writes it: its row, its hash and one indexed pair. */
async function writeTx(ctx: { t: TestDatabase }, height: number, txIndex: number, attribute: number) {
  const hash = randomBytes(32);
  const options = { ignoreDuplicates: true };
  await ctx.t.db.copyIn('txs', TX_COLUMNS, [txRow(hash, height, txIndex)], options);
  await ctx.t.db.copyIn('tx_hashes', ['hash', 'height', 'tx_index'], [[hash, height, txIndex]], options);
  await ctx.t.db.copyIn(
    'tx_attribute_refs',
    ['attribute', 'height', 'tx_index'],
    [[attribute, height, txIndex]],
    options,
  );
  return hash;
}

const chunks = async (ctx: { t: TestDatabase }, table: string) =>
  (
    await ctx.t.db.query<{ start: string; compressed: boolean }>(
      `SELECT range_start_integer::text AS start, is_compressed AS compressed
       FROM timescaledb_information.chunks WHERE hypertable_name = $1 ORDER BY range_start_integer`,
      [table],
    )
  ).map((c) => [Number(c.start), c.compressed]);

test('the hourly upkeep compresses the chunks 100,000 heights behind the cursor, and only those; txs in batches of 100', async (ctx) => {
  for (const height of [10, 120_000, 159_999, 200_000, TIP]) await writeTx(ctx, height, 0, 7);
  // a busy block: 250 txs at one height
  for (let i = 1; i <= 250; i++) await writeTx(ctx, 20, i, 8);
  await runJobs(ctx.t.db, 'retention');
  // 50,000 heights a chunk: [100000, 150000) ends 110,000 behind the cursor, [150000, 200000) 60,000
  const expected = [
    [0, true],
    [100_000, true],
    [150_000, false],
    [200_000, false],
    [250_000, false],
  ];
  assert.equal(await chunks(ctx, 'txs'), expected);
  assert.equal(await chunks(ctx, 'tx_attribute_refs'), expected);
  // the first chunk's 251 txs: three batches, none over 100 (TimescaleDB's default is 1,000)
  const [compressed] = await ctx.t.db.query<{ name: string }>(
    `SELECT format('%I.%I', c.schema_name, c.table_name) AS name
     FROM _timescaledb_catalog.chunk h JOIN _timescaledb_catalog.chunk c ON c.id = h.compressed_chunk_id
     JOIN timescaledb_information.chunks i ON i.chunk_name = h.table_name
     WHERE i.hypertable_name = 'txs' AND i.range_start_integer = 0`,
  );
  const batches = await ctx.t.db.query<{ n: number }>(
    `SELECT _ts_meta_count AS n FROM ${compressed!.name} ORDER BY _ts_meta_min_1, _ts_meta_min_2`,
  );
  assert.equal(
    batches.map((b) => Number(b.n)),
    [100, 100, 51],
  );
});

test('a backfill writes into a compressed chunk: no duplicate, each tx found by hash and by its pair', async (ctx) => {
  const [old] = await ctx.t.db.query<{ hash: Uint8Array }>(`SELECT hash FROM txs WHERE height = 10`);
  // the same tx again (a backfill over indexed heights), and one more in the compressed chunk
  await ctx.t.db.copyIn('txs', TX_COLUMNS, [txRow(old!.hash, 10, 0)], { ignoreDuplicates: true });
  const added = await writeTx(ctx, 11, 3, 7);
  const [counts] = await ctx.t.db.query<{ at10: number; txs: number }>(
    `SELECT count(*) FILTER (WHERE height = 10)::int AS at10, count(*)::int AS txs FROM txs`,
  );
  assert.equal(counts, { at10: 1, txs: 256 });
  const [byHash] = await ctx.t.db.query<{ height: number; tx_index: number }>(
    `SELECT t.height, t.tx_index FROM tx_hashes h
     CROSS JOIN LATERAL (SELECT * FROM txs WHERE height = h.height AND tx_index = h.tx_index OFFSET 0) t
     WHERE h.hash = $1`,
    [added],
  );
  assert.equal([Number(byHash!.height), byHash!.tx_index], [11, 3]);
  const byPair = await ctx.t.db.query<{ height: number }>(
    `SELECT height FROM tx_attribute_refs WHERE attribute = 7 ORDER BY height DESC, tx_index DESC`,
  );
  assert.equal(
    byPair.map((r) => Number(r.height)),
    [TIP, 200_000, 159_999, 120_000, 11, 10],
  );
});

test('a compressed chunk written into is compressed again whole: its txs read in chain order', async (ctx) => {
  // txs of heights 120,001 to 120,150 (the compressed chunk [100000, 150000)), written and compressed
  for (let h = 120_001; h <= 120_150; h++) await writeTx(ctx, h, 0, 9);
  await runJobs(ctx.t.db, 'retention');
  // a late tx inside an existing batch's range of heights (a backfill), then the upkeep again
  await writeTx(ctx, 120_050, 5, 9);
  await runJobs(ctx.t.db, 'retention');
  assert.equal(
    (await chunks(ctx, 'txs')).find(([start]) => start === 100_000),
    [100_000, true],
  );
  const rows = await ctx.t.db.query<{ height: number; tx_index: number }>(
    `SELECT height, tx_index FROM txs WHERE height BETWEEN 120001 AND 120200 ORDER BY height, tx_index`,
  );
  const expected: [number, number][] = [];
  for (let h = 120_001; h <= 120_150; h++) {
    expected.push([h, 0]);
    if (h === 120_050) expected.push([h, 5]);
  }
  assert.equal(
    rows.map((r) => [Number(r.height), r.tx_index]),
    expected,
    'in chain order',
  );
});

test.run();
