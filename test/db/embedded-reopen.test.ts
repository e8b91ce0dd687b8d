// The embedded database on disk: closed and reopened (a restart), TimescaleDB still works; a
// statement that makes its WebAssembly trap stops it (reported, never left half-working) and
// its directory opens again with its data; and an in-memory database started as a copy of
// another's snapshot (what the tests open).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createEmbeddedDatabase } from '../../src/db/embedded.ts';
import { runJobs } from '../../src/db/jobs.ts';
import { migrate } from '../../src/db/migrate.ts';
import type { Database } from '../../src/db/types.ts';
import type { Trade } from '../../src/domain/events.ts';
import { insertTrades } from '../../src/indexer/trades.ts';
import { expectedCandles, makeTrade } from '../helpers/trades.ts';
import { waitFor } from '../helpers/wait.ts';

/** After the refresh job, the token's hour candles are those of `trades`. */
async function assertHourCandles(db: Database, token: string, trades: Trade[]) {
  await runJobs(db, 'refresh');
  const rows = await db.query(
    `SELECT to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS bucket, open::text, high::text, low::text, close::text, volume::text, trade_count
     FROM candles_1h WHERE token_address = $1 ORDER BY bucket`,
    [token],
  );
  assert.equal(
    rows,
    expectedCandles(trades, '1h').map(({ token: _t, ...c }) => c),
  );
}

test('after a restart the data is there, and trades still flow into candles', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'reopen-test-'));
  try {
    const token = 'native1reopen';
    const before = makeTrade({ time: new Date(Date.now() - 3_600_000), blockHeight: 1, tokenAddress: token });
    const first = await createEmbeddedDatabase({ dataDir: dir });
    await migrate(first);
    await insertTrades(first, [before]);
    await runJobs(first, 'refresh');
    await first.close();

    const second = await createEmbeddedDatabase({ dataDir: dir });
    try {
      assert.equal(await migrate(second), [], 'schema already there');
      const late = makeTrade(
        { time: new Date(Date.now() - 3_000_000), blockHeight: 2, tokenAddress: token },
        5_000_000n,
      );
      const now = makeTrade({ time: new Date(), blockHeight: 3, tokenAddress: token }, 9_000_000n);
      assert.is(await insertTrades(second, [late, now]), 2);
      await assertHourCandles(second, token, [before, late, now]);
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a statement that overflows the WebAssembly's stack stops the database, reported, and its directory opens again with its data", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'reopen-trap-'));
  try {
    const crashes: Error[] = [];
    const first = await createEmbeddedDatabase({ dataDir: dir, onCrash: (e) => crashes.push(e) });
    await migrate(first);
    const trade = makeTrade({ time: new Date(Date.now() - 3_600_000), blockHeight: 1, tokenAddress: 'native1trap' });
    await insertTrades(first, [trade]);
    // a JSON literal nested 10,000 deep: PostgreSQL's recursive parser overflows the WebAssembly's
    // stack (from ~1,000 levels, depending on what the stack holds already: SQL over HTTP refuses
    // more than 100, src/api/launchpad/sql/check.ts)
    const nested = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const err = await first.readOnly((q) => q.query(`SELECT '${nested}'::jsonb AS j`)).catch((e: Error) => e);
    assert.instance(err, Error, 'the statement fails');
    assert.ok(await waitFor(() => crashes.length === 1, 5000), 'the database is reported stopped');
    assert.match(crashes[0]!.message, /WebAssembly trapped/);
    const after = await first.query('SELECT 1 AS one').catch((e: Error & { unavailable?: boolean }) => e);
    assert.instance(after, Error, 'no statement runs on what is left of it');
    assert.is((after as { unavailable?: boolean }).unavailable, true, 'unavailable: 503, not a wrong answer');
    await first.close().catch(() => {});

    const second = await createEmbeddedDatabase({ dataDir: dir });
    try {
      const [row] = await second.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM trades WHERE token_address = 'native1trap'`,
      );
      assert.is(row!.n, 1, 'the data is there');
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("an in-memory database started from another's snapshot has its rows and schema, and goes its own way", async () => {
  const token = 'native1snapshot';
  const first = makeTrade({ time: new Date(Date.now() - 3_600_000), blockHeight: 1, tokenAddress: token });
  const original = await createEmbeddedDatabase({ dataDir: 'memory://' });
  let snapshot: Uint8Array;
  try {
    await migrate(original);
    await insertTrades(original, [first]);
    snapshot = await original.snapshot();
    const copy = await createEmbeddedDatabase({ dataDir: 'memory://', initialData: snapshot });
    try {
      assert.equal(await migrate(copy), [], 'the schema came with it');
      const second = makeTrade({ time: new Date(), blockHeight: 2, tokenAddress: token }, 9_000_000n);
      assert.is(await insertTrades(copy, [second]), 1, 'a trade into its hypertable');
      await assertHourCandles(copy, token, [first, second]);
    } finally {
      await copy.close();
    }
    const [{ n }] = (await original.query<{ n: number }>('SELECT count(*)::int AS n FROM trades')) as [{ n: number }];
    assert.is(n, 1, "the copy's trade is not in the original");
  } finally {
    await original.close();
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'snapshot-test-'));
  try {
    const refused = await createEmbeddedDatabase({ dataDir: dir, initialData: snapshot }).then(
      async (db) => {
        await db.close();
        return undefined;
      },
      (error: Error) => error.message,
    );
    assert.match(refused ?? '', /in-memory database/, 'a snapshot is not laid over a data directory');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
