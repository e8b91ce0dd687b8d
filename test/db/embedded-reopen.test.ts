// The embedded database on disk: closed and reopened (a restart), TimescaleDB still works.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createEmbeddedDatabase } from '../../src/db/embedded.ts';
import { runJobs } from '../../src/db/jobs.ts';
import { migrate } from '../../src/db/migrate.ts';
import { insertTrades } from '../../src/indexer/trades.ts';
import { expectedCandles, makeTrade } from '../helpers/trades.ts';

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
      await runJobs(second, 'refresh');
      const rows = await second.query(
        `SELECT to_char(bucket AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS bucket, open::text, high::text, low::text, close::text, volume::text, trade_count
         FROM candles_1h WHERE token_address = $1 ORDER BY bucket`,
        [token],
      );
      assert.equal(
        rows,
        expectedCandles([before, late, now], '1h').map(({ token: _t, ...c }) => c),
      );
    } finally {
      await second.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
