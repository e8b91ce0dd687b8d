// One writer: a second indexer on the same database waits as a hot standby and takes
// over when the first one's session dies. Advisory locks belong to database sessions,
// and the embedded database has exactly one session, so this needs a TimescaleDB server
// (TEST_DATABASE_URL); without one it is skipped with the reason printed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { migrate } from '../../src/db/migrate.ts';
import { createServerDatabase } from '../../src/db/postgres.ts';
import type { Database } from '../../src/db/types.ts';
import type { Devnet } from '../../src/devnet/index.ts';
import { freshServerDatabase } from '../helpers/database.ts';
import { startDevnet } from '../helpers/devnet.ts';
import { assertTradesMatchLedger, produceTraffic, startIndexer } from '../helpers/indexing.ts';
import { waitFor } from '../helpers/wait.ts';

const test = suite('one writer');
const serverUrl = process.env.TEST_DATABASE_URL;

if (!serverUrl) {
  console.log(
    'Skipping the hot-standby test: advisory locks need a database server with many sessions; set TEST_DATABASE_URL to a TimescaleDB server to run it',
  );
  test.skip('a second indexer waits as a hot standby; after the lock session dies one writer goes on; a stopped writer hands over at once', () => {});
} else {
  test('a second indexer waits as a hot standby; after the lock session dies one writer goes on; a stopped writer hands over at once', async () => {
    const fresh = await freshServerDatabase(serverUrl);
    const dbs: Database[] = [createServerDatabase({ url: fresh.url }), createServerDatabase({ url: fresh.url })];
    let devnet: Devnet | undefined;
    const running: ReturnType<typeof startIndexer>[] = [];
    try {
      await migrate(dbs[0]!);
      devnet = await startDevnet();
      await produceTraffic(devnet, 10, 5);
      running.push(startIndexer(dbs[0]!, devnet));
      await running[0]!.indexer.waitForHeight(devnet.height(), 30_000);
      running.push(startIndexer(dbs[1]!, devnet));
      assert.ok(
        await waitFor(() => running[1]!.indexer.status().state !== 'starting', 10_000),
        'the second indexer tried the writer lock within 10 s',
      );
      assert.is(running[1]!.indexer.status().state, 'standby', 'the second indexer waits');
      assert.is(running[0]!.indexer.status().state, 'live', 'the first writes on');

      // the writer's lock session dies (terminated, as by an operator or a failover): the lock
      // is free, and exactly one of the two holds it afterwards
      await dbs[1]!.query(
        `SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      const states = () => running.map((r) => r.indexer.status().state);
      // (a writer notices a lost lock at its next turn, within its poll interval, and a
      // standby tries the lock once a second: settled means so for two seconds running)
      const settled = () => states().filter((x) => x === 'live').length === 1 && states().includes('standby');
      let since = 0;
      assert.ok(
        await waitFor(
          () => {
            if (!settled()) since = 0;
            else since ||= Date.now();
            return since > 0 && Date.now() - since > 2000;
          },
          30_000,
          50,
        ),
        'timed out waiting for one writer and one standby, settled',
      );
      await produceTraffic(devnet, 10, 5);
      const writer = running.find((r) => r.indexer.status().state === 'live')!;
      const standby = running.find((r) => r !== writer)!;
      await writer.indexer.waitForHeight(devnet.height(), 30_000);
      await assertTradesMatchLedger(dbs[0]!, devnet);
      assert.is(standby.indexer.status().state, 'standby', 'the other still waits');

      // a writer that stops releases the lock at once: the standby takes over
      await writer.stop();
      assert.ok(
        await waitFor(() => standby.indexer.status().state === 'live', 10_000, 50),
        'timed out waiting for the standby to take over',
      );
      await produceTraffic(devnet, 10, 5);
      await standby.indexer.waitForHeight(devnet.height(), 30_000);
      await assertTradesMatchLedger(dbs[0]!, devnet);
    } finally {
      for (const r of running) await r.stop().catch(() => {});
      await devnet?.close();
      for (const db of dbs) await db.close().catch(() => {});
      await fresh.dispose();
    }
  });
}

test.run();
