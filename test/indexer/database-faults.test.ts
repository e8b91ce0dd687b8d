// The service survives its database server: the server restarted (`pg_ctl restart -m
// immediate`), stopped for a while, and every connection of the service terminated
// (`pg_terminate_backend`), while the indexer follows a chain under traffic and clients
// load the API. The process stays up, /api/health and the API answer 503 JSON within a
// bounded time naming no host, port or user, the indexer resumes alone, one log line says
// the database was lost and one that it is back, and afterwards every trade of the chain
// is stored once with no block missing. A server's case: skipped on the embedded database.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type LaunchpadApi, startLaunchpadApi } from '../../src/api/launchpad/server.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createServerDatabase } from '../../src/db/postgres.ts';
import type { Database } from '../../src/db/types.ts';
import type { Devnet } from '../../src/devnet/index.ts';
import { readCursor } from '../../src/indexer/cursor.ts';
import { freshServerDatabase } from '../helpers/database.ts';
import { startDevnet } from '../helpers/devnet.ts';
import { assertTradesMatchLedger, produceTraffic, startIndexer } from '../helpers/indexing.ts';
import { asServerUser, findPostgresBin, startThrowawayCluster } from '../helpers/postgres-server.ts';
import { sleep } from '../helpers/wait.ts';

// Restarting and stopping a server would break the test files running beside this one, so
// those faults hit a cluster of this file's own (made like the runner's, from the
// machine's binaries); without one, only the terminated connections are tried, on the
// run's server.
const runServer = process.env.TEST_DATABASE_URL;
const own = runServer ? await startThrowawayCluster() : undefined;
const ownCluster = own && !('skip' in own) && own.timescale && own.dataDir ? own : undefined;
if (own && !('skip' in own) && !ownCluster) await own.stop();
const serverUrl = ownCluster?.url ?? runServer;
const dataDir = ownCluster?.dataDir;
const test = suite('database faults');

/** Log lines as the operator reads them. */
function recordingLogger() {
  const lines: { msg: string; level: number; time: number; err?: string | { message?: string } }[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

/** The test's steps as they happened (told when the story of the outage is not what it should be). */
const stepTimes: [string, string][] = [];
const step = (what: string) => {
  const at = new Date().toISOString();
  stepTimes.push([at, what]);
  if (process.env.TEST_VERBOSE) console.error(`${at} ${what}`);
};
const ADDRESS = /\b\d{1,3}(\.\d{1,3}){3}\b|:\d{4,5}\b|localhost|postgres:\/\/|\buser\b/i;

/** GETs a path and says how it went, within a bound: a hung request fails the test. */
async function probe(api: LaunchpadApi, route: string) {
  const started = Date.now();
  try {
    const res = await fetch(`${api.url}${route}`, { signal: AbortSignal.timeout(15_000) });
    const text = await res.text();
    return {
      route,
      status: res.status,
      ms: Date.now() - started,
      body: JSON.parse(text) as Record<string, unknown>,
      text,
    };
  } catch (error) {
    return { route, status: 0, ms: Date.now() - started, body: {}, text: `no answer: ${(error as Error).message}` };
  }
}

/** pg_ctl on the cluster this run started; the server it starts logs beside its data directory. */
function pgCtl(args: string[]) {
  const bin = findPostgresBin()!;
  const log = path.join(path.dirname(dataDir!), 'server.log');
  const [cmd, cmdArgs] = asServerUser(path.join(bin, 'pg_ctl'), [...args, '-D', dataDir!, '-l', log, '-w', '-t', '30']);
  // no pipes: a server pg_ctl starts would hold them open after pg_ctl exits
  const r = spawnSync(cmd, cmdArgs, { stdio: 'ignore', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`pg_ctl ${args.join(' ')} failed (exit ${r.status}); see ${log}`);
}

/** The server's options as it was last started (postmaster.opts), for `pg_ctl start -o`. */
function serverOptions(): string {
  const line = readFileSync(path.join(dataDir!, 'postmaster.opts'), 'utf8').trim();
  const args = [...line.matchAll(/"([^"]*)"/g)].map((m) => m[1]!);
  const withoutDir = args.filter((a, i) => a !== '-D' && args[i - 1] !== '-D');
  return withoutDir.map((a) => `'${a}'`).join(' ');
}
let options: string | undefined;
const stopServer = () => {
  options = serverOptions();
  pgCtl(['stop', '-m', 'immediate']);
};
const startServer = () => pgCtl(['start', '-o', options!]);

if (!serverUrl) {
  console.log('Skipping the database fault tests: they need a TimescaleDB server (TEST_DATABASE_URL)');
  test.skip('the service survives a restarted, stopped and disconnected database', () => {});
} else {
  test('the service survives a restarted, stopped and disconnected database', async () => {
    const fresh = await freshServerDatabase(serverUrl);
    const db: Database = createServerDatabase({ url: fresh.url });
    const admin: Database = createServerDatabase({ url: serverUrl, max: 1 });
    const { logger, lines } = recordingLogger();
    let devnet: Devnet | undefined;
    let running: ReturnType<typeof startIndexer> | undefined;
    let api: LaunchpadApi | undefined;
    let load = true;
    let stopped = false;
    const answers: Awaited<ReturnType<typeof probe>>[] = [];
    try {
      await migrate(db);
      devnet = await startDevnet();
      await produceTraffic(devnet, 10, 6);
      running = startIndexer(db, devnet, { pollIntervalMs: 100, retryMs: { min: 100, max: 1000 }, logger });
      api = await startLaunchpadApi({
        db,
        logger,
        host: '127.0.0.1',
        port: 0,
        rateLimit: { points: 1_000_000, windowSeconds: 60, trustedHops: 0 },
        index: { position: () => readCursor(db), live: () => running!.indexer.status() },
        native: { denom: 'unative', display: 'NATIVE', decimals: 6 },
      });
      await running.indexer.waitForHeight(devnet.height(), 30_000);
      step('indexed');

      // traffic on the chain and clients on the API, all through the faults
      const chainTraffic = (async () => {
        while (load) await produceTraffic(devnet!, 1, 4).then(() => sleep(50));
      })();
      const apiLoad = (async () => {
        const routes = ['/api/tokens', '/api/trades/recent?limit=20', '/api/health'];
        for (let i = 0; load; i++) {
          const r = await probe(api!, routes[i % routes.length]!);
          answers.push(r);
          await sleep(20);
        }
      })();

      // 1. every connection of the service's database terminated
      await sleep(500);
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
        [new URL(fresh.url).pathname.slice(1)],
      );
      await sleep(1500);
      step('terminated');

      if (dataDir) {
        // 2. the server restarted without a clean shutdown
        pgCtl(['restart', '-m', 'immediate']);
        step('restarted');
        await sleep(1500);

        // 3. the server down for a while: health and the API say 503, promptly, naming nothing
        stopServer();
        stopped = true;
        step('stopped');
        await sleep(300);
        const health = await probe(api, '/api/health');
        step(`health ${health.status} in ${health.ms} ms`);
        assert.is(health.status, 503, 'health while the database is down');
        assert.is(health.body.status, 'error');
        assert.not.match(health.text, ADDRESS, `health names no address: ${health.text}`);
        const tokens = await probe(api, '/api/tokens?fresh=1');
        step(`tokens ${tokens.status} in ${tokens.ms} ms`);
        assert.ok([200, 503].includes(tokens.status), `tokens while down: ${tokens.status}`); // a cached list may still be served
        const trades = await probe(api, `/api/trades/recent?limit=3&token_address=${devnet.ledger.trades[0]!.token}`);
        step(`trades ${trades.status} in ${trades.ms} ms`);
        assert.is(trades.status, 503, 'an uncached read while the database is down');
        assert.type(trades.body.error, 'string');
        assert.not.match(trades.text, ADDRESS, `503 body names no address: ${trades.text}`);
        await sleep(3000); // the indexer retries meanwhile: it must not claim to have recovered
        startServer();
        stopped = false;
        step('started');
      } else {
        console.log(
          `Skipping the restart and stop faults: no cluster of this test's own (${own && 'skip' in own ? own.skip : 'no TimescaleDB extension'})`,
        );
      }

      // the indexer resumes alone
      const deadline = Date.now() + 60_000;
      while (
        running.indexer.status().state !== 'live' ||
        (running.indexer.status().indexedHeight ?? 0) < devnet.height() - 1
      ) {
        if (Date.now() > deadline) {
          step(`indexer did not resume: ${JSON.stringify(running.indexer.status())}`);
          throw new Error(`indexer did not resume: ${JSON.stringify(running.indexer.status())}`);
        }
        await sleep(100);
      }
      load = false;
      step('resumed');
      await Promise.all([chainTraffic, apiLoad]);
      await running.indexer.waitForHeight(devnet.height(), 30_000);

      // every trade once, no block missing
      await assertTradesMatchLedger(db, devnet);
      const [blocks] = await db.query<{ n: number; lo: number; hi: number }>(
        'SELECT count(*)::int AS n, min(height)::int AS lo, max(height)::int AS hi FROM blocks',
      );
      assert.equal(blocks, { n: devnet.height(), lo: 1, hi: devnet.height() }, 'every block indexed once');

      // the API answered everything, 2xx or 503 JSON, within the bound, and is healthy again
      step(
        `slowest answers: ${JSON.stringify(
          answers
            .sort((a, b) => b.ms - a.ms)
            .slice(0, 5)
            .map((a) => [a.route, a.status, a.ms]),
        )}`,
      );
      assert.ok(answers.length > 20, `clients were served throughout (${answers.length} answers)`);
      for (const a of answers) {
        assert.ok(
          (a.status >= 200 && a.status < 300) || a.status === 503,
          `${a.route}: status ${a.status} after ${a.ms} ms: ${a.text.slice(0, 200)}`,
        );
        assert.not.match(a.text, ADDRESS, `no address in ${a.text.slice(0, 200)}`);
      }
      assert.is((await probe(api, '/api/health')).status, 200, 'healthy again');

      // one line when the database was lost, one when it came back: never a recovery claimed while it is down
      const story = lines
        .map((l) => l.msg)
        .filter((m) => m.startsWith('Lost the database') || m.startsWith('Recovered'));
      assert.ok(story.length >= (dataDir ? 2 : 0), `the outage was logged: ${JSON.stringify(story)}`);
      for (let i = 0; i < story.length; i++)
        assert.ok(
          story[i]!.startsWith(i % 2 === 0 ? 'Lost the database' : 'Recovered'),
          `alternating lost/recovered: ${JSON.stringify(story)}`,
        );
      // when, and from what error: a second pair for one fault is told apart from one per fault
      const told = lines
        .filter((l) => l.msg.startsWith('Lost the database') || l.msg.startsWith('Recovered'))
        .map((l) => {
          const err = typeof l.err === 'string' ? l.err : l.err?.message;
          return `${new Date(l.time).toISOString()} ${l.msg}${err ? ` (${err})` : ''}`;
        });
      const steps = stepTimes.map(([at, what]) => `${at} ${what}`);
      if (dataDir)
        assert.ok(
          story.length <= 2 * 3,
          `at most one pair per fault: ${JSON.stringify(story)}; told: ${JSON.stringify(told)}; steps: ${JSON.stringify(steps)}`,
        );
    } finally {
      step('cleaning up');
      load = false;
      if (stopped) startServer(); // the next test files need it
      await api?.close().catch(() => {});
      await running?.stop().catch(() => {});
      await devnet?.close();
      await db.close().catch(() => {});
      await admin.close().catch(() => {});
      await fresh.dispose().catch(() => {});
    }
  });
}

test.after(async () => {
  await ownCluster?.stop();
});

test.run();
