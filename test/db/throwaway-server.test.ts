// The tests' throwaway PostgreSQL cluster (test/helpers/postgres-server.ts) tells what crashed
// in it: a server process killed by a signal fails every test on the server at that moment,
// and the runner (scripts/test.ts) prints these lines, with the statement the process ran,
// instead of leaving the run's lost connections unexplained.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServerDatabase } from '../../src/db/postgres.ts';
import { startThrowawayCluster } from '../helpers/postgres-server.ts';
import { sleep } from '../helpers/wait.ts';

const test = suite('throwaway server');
const cluster = await startThrowawayCluster();

if ('skip' in cluster) {
  console.log(`Skipping the throwaway cluster's test: ${cluster.skip}`);
  test.skip('a server process killed by a signal is reported with the statement it ran', () => {});
} else {
  test('a server process killed by a signal is reported with the statement it ran', async () => {
    const db = createServerDatabase({ url: cluster.url, max: 2 });
    try {
      assert.equal(cluster.crashes!(), [], 'nothing crashed yet');
      const sleeping = db.query('SELECT pg_sleep(30) /* the statement of the crash */').catch((e: Error) => e);
      await sleep(300);
      const [other] = await db.query<{ pid: number }>(
        "SELECT pid FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(30)%' AND pid <> pg_backend_pid()",
      );
      assert.ok(other, 'the sleeping backend');
      process.kill(other.pid, 'SIGKILL');
      assert.instance(await sleeping, Error, 'its statement failed');
      let crashes: string[] = [];
      for (let i = 0; i < 50 && crashes.length < 2; i++, await sleep(100)) crashes = cluster.crashes!();
      const said = crashes.join('\n');
      assert.match(said, new RegExp(`\\(PID ${other.pid}\\) was terminated by signal 9`));
      assert.match(said, /Failed process was running: SELECT pg_sleep\(30\) \/\* the statement of the crash \*\//);
    } finally {
      await db.close().catch(() => {});
      await cluster.stop();
    }
  });
}

test.run();
