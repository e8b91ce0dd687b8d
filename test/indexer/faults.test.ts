// The indexer under faults: crashes in the middle of a batch, kill -9 of the process (with
// its embedded database in the process, or its connection to the server cut mid-batch on
// the server run), the node going away, another chain behind the same URL. Nothing is ever
// half-written, duplicated or skipped.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openDatabase } from '../../src/db/index.ts';
import type { Database } from '../../src/db/types.ts';
import type { Devnet } from '../../src/devnet/index.ts';
import { childDatabase, openTestDatabase } from '../helpers/database.ts';
import { startDevnet } from '../helpers/devnet.ts';
import { assertTradesMatchLedger, produceTraffic, setOraclePrice, startIndexer } from '../helpers/indexing.ts';
import { rng } from '../helpers/trades.ts';
import { sleep, waitFor } from '../helpers/wait.ts';

async function assertCompleteIndex(db: Database, devnet: Devnet) {
  await assertTradesMatchLedger(db, devnet);
  const [blocks] = await db.query<{ n: number; lo: number; hi: number }>(
    `SELECT count(*)::int AS n, min(height) AS lo, max(height) AS hi FROM blocks`,
  );
  assert.equal(blocks, { n: devnet.height(), lo: 1, hi: devnet.height() }, 'every block once, no gap');
  const [feed] = await db.query<{ trades: number; keys: number; n: number }>(
    `SELECT count(*) FILTER (WHERE event = 'trade')::int AS trades, count(DISTINCT event_key)::int AS keys, count(*)::int AS n FROM feed_events`,
  );
  assert.is(feed!.trades, devnet.ledger.trades.length, 'one trade event per trade');
  assert.is(feed!.keys, feed!.n, 'no duplicate feed event');
  const [{ n: txs }] = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM txs`)) as [{ n: number }];
  const [{ n: expected }] = (await db.query<{ n: number }>(`SELECT sum(tx_count)::int AS n FROM blocks`)) as [
    { n: number },
  ];
  assert.is(txs, expected, 'every tx once');
}

test('a crash at any step of a batch leaves none of it; the indexer resumes with no duplicate and no gap', async () => {
  const t = await openTestDatabase();
  const devnet = await startDevnet();
  try {
    await setOraclePrice(devnet, 5_000_000n);
    await produceTraffic(devnet, 40, 10);
    const chance = rng(42);
    const crashes: string[] = [];
    const running = startIndexer(t.db, devnet, {
      maxTxsPerBatch: 15,
      retryMs: { min: 5, max: 20 },
      subscribe: false,
      faultPoint: (step) => {
        if (chance.next() < 0.25 && crashes.length < 25) {
          crashes.push(step);
          throw new Error(`injected crash after ${step}`);
        }
      },
    });
    await running.indexer.waitForHeight(devnet.height(), 60_000);
    await running.stop();
    assert.ok(crashes.length >= 12, `crashed ${crashes.length} times`);
    assert.ok(new Set(crashes).size >= 5, `crashed after several different steps: ${[...new Set(crashes)].join(', ')}`);
    await assertCompleteIndex(t.db, devnet);
  } finally {
    await devnet.close();
    await t.dispose();
  }
});

// The kill times are random; FAULT_SEED=<n> replays a run (the seed is printed).
const killSeed = process.env.FAULT_SEED ? Number(process.env.FAULT_SEED) : Math.floor(Math.random() * 2 ** 32);
if (!Number.isSafeInteger(killSeed)) throw new Error(`FAULT_SEED must be an integer (got ${process.env.FAULT_SEED})`);

test('kill -9 of the indexing process, many times, leaves a consistent index that resumes exactly', async () => {
  console.log(`kill -9 times from seed ${killSeed} (FAULT_SEED=${killSeed} replays them)`);
  const killAfter = rng(killSeed);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'kill-test-'));
  const database = await childDatabase();
  const devnet = await startDevnet();
  let child: ChildProcess | undefined;
  try {
    await setOraclePrice(devnet, 5_000_000n);
    await produceTraffic(devnet, 150, 12);
    const env = {
      ...process.env,
      DATA_DIR: dataDir,
      ...database.env,
      CHAIN_RPC_URL: devnet.rpcUrl,
      CONTRACTS: JSON.stringify(devnet.contracts),
      MAX_TXS: '150',
    };
    let kills = 0;
    let lastSeen = 0;
    for (let round = 0; round < 8 && lastSeen < devnet.height(); round++) {
      const current = spawn(process.execPath, ['--import', 'tsx', 'test/indexer/fixtures/index-chain.ts'], {
        env,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      child = current;
      let out = '';
      current.stdout.on('data', (d) => (out += d));
      const exited = new Promise((r) => current.on('exit', r));
      // let it commit two batches (or reach the tip), then kill it wherever it is
      const heights = () => [...out.matchAll(/committed (\d+)/g)].map((m) => Number(m[1]));
      assert.ok(
        await waitFor(
          () => heights().length >= 2 || Math.max(0, ...heights()) >= devnet.height() || current.exitCode !== null,
          60_000,
          20,
        ),
        `round ${round}: two batches committed within 60 s (${heights().length} so far)`,
      );
      assert.is(current.exitCode, null, `round ${round}: the indexing process is still running`);
      await sleep(killAfter.int(30, 230)); // a random point in the following batches
      current.kill('SIGKILL');
      await exited;
      kills++;
      lastSeen = Math.max(lastSeen, ...heights(), 0);
    }
    assert.ok(kills >= 3, `killed ${kills} times (seed ${killSeed})`);
    // a last run to the tip, then check everything
    const db = await openDatabase({ databaseUrl: database.url, dataDir });
    try {
      const running = startIndexer(db, devnet, { subscribe: false });
      await running.indexer.waitForHeight(devnet.height(), 60_000);
      await running.stop();
      await assertCompleteIndex(db, devnet);
    } finally {
      await db.close();
    }
  } finally {
    if (child?.exitCode === null) child.kill('SIGKILL'); // a failed assertion must not leave it running
    await devnet.close();
    await database.dispose();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('the node going away and coming back: the indexer says so, then catches up and loses nothing', async () => {
  const t = await openTestDatabase();
  const devnet = await startDevnet();
  try {
    await produceTraffic(devnet, 10, 5);
    const running = startIndexer(t.db, devnet, { retryMs: { min: 20, max: 100 }, pollIntervalMs: 50 });
    const waitForState = async (state: string) => {
      await waitFor(() => running.indexer.status().state === state, 10_000, 20);
      assert.is(running.indexer.status().state, state);
    };
    try {
      await running.indexer.waitForHeight(devnet.height(), 30_000);
      const heightBeforeOutage = devnet.height();
      await devnet.pause();
      await produceTraffic(devnet, 15, 5);
      await waitForState('node_unreachable');
      assert.is(running.indexer.status().indexedHeight, heightBeforeOutage);
      assert.match(running.indexer.status().error ?? '', /ECONNREFUSED|fetch failed/);
      await devnet.resume();
      await running.indexer.waitForHeight(devnet.height(), 30_000);
      await waitForState('live');
    } finally {
      await running.stop();
    }
    await assertCompleteIndex(t.db, devnet);
  } finally {
    await devnet.close();
    await t.dispose();
  }
});

test('pointing the index at another chain is refused, saying what it found and what to do', async () => {
  const t = await openTestDatabase();
  const first = await startDevnet();
  let indexedBlocks = 0;
  try {
    await produceTraffic(first, 8, 3);
    const running = startIndexer(t.db, first);
    await running.indexer.waitForHeight(first.height(), 30_000);
    await running.stop();
    indexedBlocks = first.height();
  } finally {
    await first.close();
  }

  const expectRefusal = async (other: Devnet, pattern: RegExp) => {
    const running = startIndexer(t.db, other, { retryMs: { min: 5, max: 10 } });
    await waitFor(() => running.indexer.status().state === 'failed', 15_000, 20);
    const status = running.indexer.status();
    await running.stop();
    assert.is(status.state, 'failed');
    assert.match(status.error ?? '', pattern);
    assert.match(
      status.error ?? '',
      /Point CHAIN_RPC_URL at the chain this database indexes, or index the new chain into an empty database/,
    );
  };

  // the same devnet restarted from genesis: same chain id, fewer blocks, another block at a
  // height both hold (a shorter chain that agrees would be a lagging node, not a refusal)
  const restarted = await startDevnet();
  try {
    await expectRefusal(restarted, /block 1 has hash .* instead of/);
    // grown past the indexed height: block hashes differ
    await produceTraffic(restarted, 12, 1);
    await expectRefusal(restarted, /block \d+ has hash .* instead of/);
  } finally {
    await restarted.close();
  }
  const renamed = await startDevnet({ chainId: 'other-chain-7' });
  try {
    await produceTraffic(renamed, 10, 0);
    await expectRefusal(renamed, /but the node serves chain other-chain-7/);
  } finally {
    await renamed.close();
  }
  // nothing of the other chains was written
  const [{ n }] = (await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM blocks`)) as [{ n: number }];
  assert.is(n, indexedBlocks);
  await t.dispose();
});

test.run();
