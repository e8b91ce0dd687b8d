// Reads of the chain index while TimescaleDB moves its chunks into the columnstore and back, on
// a server (its jobs run beside the API's reads; the embedded database runs them on its one
// session, between reads). A search page kept as final (src/api/chain/routes/txs.ts) is
// served for good, so a page read while its chunk is compressed must hold every match; and a
// read the server gives up for a deadlock with the compression (it happens: a few in a minute
// of back-to-back compression, none in some runs) is sent again by the server adapter rather
// than failing. test/db/seam-server.test.ts makes such a deadlock happen every time.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { searchTxs } from '../../src/api/chain/tx-search.ts';
import { createServerDatabase } from '../../src/db/postgres.ts';
import { holdCompressionJobs, openTestDatabase, type TestDatabase } from '../helpers/database.ts';

const test = suite<{ t: TestDatabase }>('reading while compressing', { t: undefined as never });

/** A sender's txs: one every STEP heights up to TOP, four chunks of 50,000 heights. */
const STEP = 7;
const TOP = 200_000;
const SENDER = { key: 'message.sender', value: 'wasm1sender' };

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
  if (!ctx.t.url) return;
  await holdCompressionJobs(ctx.t);
  await ctx.t.db.exec(`
    INSERT INTO attribute_values (key, value) VALUES ('${SENDER.key}', '${SENDER.value}');
    INSERT INTO txs (hash, height, tx_index, time, code, raw_log, gas_wanted, gas_used, tx_bytes, events)
      SELECT sha256(int8send(h)), h, (h % 3)::int, now(), 0, '', 1, 1, '\\x00', '\\x00'
      FROM generate_series(${STEP}, ${TOP}, ${STEP}) h;
    INSERT INTO tx_hashes (hash, height, tx_index)
      SELECT sha256(int8send(h)), h, (h % 3)::int FROM generate_series(${STEP}, ${TOP}, ${STEP}) h;
    INSERT INTO tx_attribute_refs (attribute, height, tx_index)
      SELECT (SELECT id FROM attribute_values), h, (h % 3)::int FROM generate_series(${STEP}, ${TOP}, ${STEP}) h;
  `);
});

test.after(async (ctx) => {
  await ctx.t?.dispose();
});

/** The heights of the page of `limit` from `from` and of the match after it, as the data has them. */
function expectedPage(from: number, descending: boolean, limit: number): number[] {
  const heights: number[] = [];
  let h = descending ? Math.floor(from / STEP) * STEP : Math.ceil(from / STEP) * STEP;
  while (heights.length < limit + 1 && h >= STEP && h <= TOP) {
    heights.push(h);
    h += descending ? -STEP : STEP;
  }
  return heights;
}

test('search pages read while every chunk is compressed and decompressed again and again hold every match, and none fails', async (ctx) => {
  if (!ctx.t.url) {
    console.log('Skipping: compression beside concurrent reads needs a TimescaleDB server (TEST_DATABASE_URL)');
    return;
  }
  const admin = createServerDatabase({ url: ctx.t.url, max: 1 });
  // a deadlock's victim is the reader (its backend looks for the cycle first), not the compression
  await admin.exec(`SET deadlock_timeout = '10s'`);
  let stop = false;
  let cycles = 0;
  const flipping = (async () => {
    while (!stop) {
      for (const step of ['compress_chunk(c, if_not_compressed => true)', 'decompress_chunk(c, if_compressed => true)'])
        for (const table of ['tx_attribute_refs', 'txs'])
          await admin.exec(`SELECT count(${step}) FROM show_chunks('${table}') c`);
      cycles++;
    }
  })();
  const wrong: string[] = [];
  const failed: string[] = [];
  let pages = 0;
  const read = async () => {
    while (!stop) {
      const descending = Math.random() < 0.5;
      const from = 1 + Math.floor(Math.random() * TOP);
      try {
        const page = await searchTxs(ctx.t.db, {
          conditions: [SENDER],
          descending,
          cursor: { height: from, txIndex: descending ? 65_535 : 0 },
          offset: 0,
          limit: 100,
          countTotal: false,
        });
        const heights = [...page.rows.map((r) => Number(r.height)), ...(page.next ? [page.next.height] : [])];
        const expected = expectedPage(from, descending, 100);
        if (heights.join() !== expected.join())
          wrong.push(`${descending ? 'newest' : 'oldest'} first from ${from}: ${heights.length} of ${expected.length}`);
        pages++;
      } catch (error) {
        failed.push(`${(error as { code?: string }).code}: ${(error as Error).message}`);
      }
    }
  };
  const readers = Array.from({ length: 6 }, read);
  // until enough of both have overlapped (~4 s here), however slow the machine (two minutes at most)
  const until = Date.now() + 120_000;
  while ((cycles < 10 || pages < 1_000) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 100));
  stop = true;
  await Promise.all([flipping, ...readers]);
  await admin.close();
  assert.ok(cycles >= 10, `${cycles} rounds of compression`);
  assert.ok(pages >= 1_000, `${pages} pages read`);
  assert.equal(wrong, [], 'pages missing or holding other matches');
  assert.equal(failed, [], 'reads that failed');
});

test.run();
