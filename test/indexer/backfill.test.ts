// Backfill: history indexed without feeding SSE, on an empty index or below a live one.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createChainClient } from '../../src/chain/client.ts';
import { openDatabase } from '../../src/db/index.ts';
import { backfill } from '../../src/indexer/backfill.ts';
import { silentLogger } from '../../src/internal/logger.ts';
import { childDatabase, openTestDatabase } from '../helpers/database.ts';
import { startDevnet } from '../helpers/devnet.ts';
import { assertTradesMatchLedger, produceTraffic, setOraclePrice, startIndexer } from '../helpers/indexing.ts';

test('npm run backfill on an empty database indexes the chain without SSE events; the live indexer goes on from there', async () => {
  // the embedded database in a directory, or a new database on the server of the server run
  const dir = mkdtempSync(path.join(tmpdir(), 'backfill-test-'));
  const database = await childDatabase();
  const devnet = await startDevnet();
  try {
    await produceTraffic(devnet, 30, 6);
    const tip = devnet.height();
    // asynchronously: the devnet lives in this process and must keep answering
    const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn('npm', ['run', '-s', 'backfill', '--', '--from', '1', '--to', String(tip)], {
        env: {
          ...process.env,
          DATA_DIR: dir,
          ...database.env,
          CHAIN_RPC_URL: devnet.rpcUrl,
          LAUNCHPAD_CONTRACT: devnet.contracts.launchpad,
          AMM_CONTRACT: devnet.contracts.amm,
          LOG_FORMAT: 'json',
        },
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => (stderr += d));
      child.on('exit', (status) => resolve({ status, stdout, stderr }));
    });
    assert.is(run.status, 0, run.stdout + run.stderr);
    const finished = run.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; from?: number; to?: number })
      .find((line) => line.msg === 'Finished the backfill');
    assert.equal([finished?.from, finished?.to], [1, tip], 'the summary line names the backfilled heights');
    assert.match(run.stdout, /"trades_per_s":\d+/);

    const db = await openDatabase({ databaseUrl: database.url, dataDir: dir });
    try {
      await assertTradesMatchLedger(db, devnet);
      assert.is((await db.query(`SELECT 1 FROM feed_events`)).length, 0, 'history is not news');
      assert.equal(await db.query(`SELECT first_height, last_height FROM indexer_state`), [
        { first_height: 1, last_height: tip },
      ]);
      // the live indexer continues at tip + 1 and feeds only what is new
      await produceTraffic(devnet, 5, 4);
      const live = startIndexer(db, devnet);
      await live.indexer.waitForHeight(devnet.height(), 30_000);
      await live.stop();
      await assertTradesMatchLedger(db, devnet);
      const [{ n }] = (await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM feed_events WHERE event = 'trade'`,
      )) as [{ n: number }];
      assert.is(n, devnet.ledger.trades.filter((t) => t.height > tip).length);
    } finally {
      await db.close();
    }
  } finally {
    await devnet.close();
    await database.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an index started mid-chain gets its history from a backfill, without rolling any token back', async () => {
  const t = await openTestDatabase();
  const devnet = await startDevnet();
  const chain = createChainClient(devnet.rpcUrl);
  try {
    await setOraclePrice(devnet, 5_000_000n);
    await produceTraffic(devnet, 40, 10);
    const liveStart = devnet.height() + 1;
    await produceTraffic(devnet, 20, 10);
    const live = startIndexer(t.db, devnet, { startHeight: liveStart });
    await live.indexer.waitForHeight(devnet.height(), 30_000);
    await live.stop();
    const stateBefore = await t.db.query(
      `SELECT address, native_reserves::text, current_price::text FROM tokens ORDER BY address`,
    );

    const plan = await backfill({ db: t.db, chain, contracts: devnet.contracts, logger: silentLogger });
    assert.equal(plan, { from: 1, to: liveStart - 1, movesCursor: false });
    await assertTradesMatchLedger(t.db, devnet);
    const stateAfter = await t.db.query(
      `SELECT address, native_reserves::text, current_price::text FROM tokens WHERE address = ANY($1::text[]) ORDER BY address`,
      [stateBefore.map((r) => r.address)],
    );
    assert.equal(stateAfter, stateBefore, 'the newer reserves and prices the live indexer saw are kept');
    // tokens first seen through trades now carry their launch
    for (const launch of devnet.ledger.launches.filter((l) => l.source === 'launchpad')) {
      const [row] = await t.db.query<{ source: string; creator: string; created_height: number }>(
        `SELECT source, creator, created_height FROM tokens WHERE address = $1`,
        [launch.token],
      );
      assert.equal(row, { source: 'launchpad', creator: launch.creator, created_height: launch.height });
    }
    // graduations before the live start were unknown to the live indexer: history brings them
    const graduated = await t.db.query<{ address: string }>(
      `SELECT address FROM tokens WHERE graduated ORDER BY address`,
    );
    assert.equal(
      graduated.map((g) => g.address),
      [...new Set(devnet.ledger.graduations.map((g) => g.token))].sort(),
    );
    const [blocks] = await t.db.query(`SELECT count(*)::int AS n, min(height) AS lo FROM blocks`);
    assert.equal(blocks, { n: devnet.height(), lo: 1 });
    assert.is(
      (await t.db.query(`SELECT 1 FROM feed_events WHERE block_height < $1`, [liveStart])).length,
      0,
      'no SSE for history',
    );
  } finally {
    chain.disconnect();
    await devnet.close();
    await t.dispose();
  }
});

test('bad backfill flags are refused with a message and exit code 2', () => {
  const run = spawnSync('npm', ['run', '-s', 'backfill', '--', '--from', '0'], {
    env: { ...process.env, DATA_DIR: 'memory://' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.is(run.status, 2);
  assert.match(run.stderr, /--from must be a block height \(a whole number of 1 or more\), got "0"/);
  const unknown = spawnSync('npm', ['run', '-s', 'backfill', '--', '--form', '3'], {
    env: { ...process.env, DATA_DIR: 'memory://' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.is(unknown.status, 2);
  assert.match(unknown.stderr, /Unknown option '--form'/);
});

test('a range past the chain tip is refused', async () => {
  const t = await openTestDatabase();
  const devnet = await startDevnet();
  const chain = createChainClient(devnet.rpcUrl);
  try {
    const err = await backfill({
      db: t.db,
      chain,
      contracts: devnet.contracts,
      logger: silentLogger,
      from: 1,
      to: devnet.height() + 50,
    }).catch((e) => e);
    assert.match(err.message, /--to \d+ is above the node's tip \d+/);
  } finally {
    chain.disconnect();
    await devnet.close();
    await t.dispose();
  }
});

test.run();
