// Migrations: applied once, recorded, safe to run twice; an edited applied file is refused.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { createServerDatabase } from '../../src/db/postgres.ts';
import { freshServerDatabase, holdCompressionJobs, openTestDatabase } from '../helpers/database.ts';
import { sleep } from '../helpers/wait.ts';

/** The migrations up to and including `version`: a database of that day, to upgrade from. */
const upTo = (version: string) => readMigrations().filter((m) => m.version <= version);

test('npm run migrate applies every migration, and a second run applies none', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'migrate-test-'));
  try {
    const env = { ...process.env, DATA_DIR: dir, DATABASE_URL: '' };
    const first = spawnSync('npm', ['run', '-s', 'migrate'], { env, encoding: 'utf8', timeout: 120_000 });
    assert.is(first.status, 0, first.stderr);
    assert.match(first.stdout, new RegExp(`Applied ${readMigrations().length} migration\\(s\\)`));
    const second = spawnSync('npm', ['run', '-s', 'migrate'], { env, encoding: 'utf8', timeout: 120_000 });
    assert.is(second.status, 0, second.stderr);
    assert.match(second.stdout, /Schema is up to date/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('applied migrations are recorded with their checksums, and re-running changes nothing', async () => {
  const { db, dispose } = await openTestDatabase();
  try {
    const rows = await db.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version');
    assert.equal(
      rows.map((r) => r.version),
      readMigrations().map((m) => m.version),
    );
    assert.equal(await migrate(db), []);
    const jobs = await db.query<{ proc_name: string }>(
      `SELECT proc_name FROM timescaledb_information.jobs WHERE proc_schema = 'public' ORDER BY proc_name`,
    );
    assert.equal(
      jobs.map((j) => j.proc_name),
      ['compress_trades', 'compress_txs', 'prune_candles', 'prune_feed_events', 'refresh_candles'],
    );
  } finally {
    await dispose();
  }
});

test('a migration edited after it was applied is refused with a message saying what to do', async () => {
  const { db, dispose } = await openTestDatabase();
  try {
    const edited = readMigrations().map((m, i) => (i === 1 ? { ...m, checksum: 'different' } : m));
    const err = await migrate(db, edited).catch((e) => e);
    assert.is(err.name, 'MigrationError');
    assert.match(err.message, /0002_trades\.sql was changed after it was applied.*add a new migration/);
  } finally {
    await dispose();
  }
});

test('a migration the server aborts for a deadlock is applied again, once', async () => {
  const { db, dispose } = await openTestDatabase();
  try {
    // a sequence is not transactional: it counts the attempts across the rollback
    await db.exec('CREATE SEQUENCE migration_attempts');
    const flaky = {
      version: '9998',
      name: 'deadlocks_once',
      checksum: 'y',
      sql: `CREATE TABLE once_applied (x int);
            DO $$ BEGIN IF nextval('migration_attempts') = 1 THEN RAISE EXCEPTION 'deadlock detected' USING ERRCODE = '40P01'; END IF; END $$;`,
    };
    assert.equal(await migrate(db, [...readMigrations(), flaky]), ['9998_deadlocks_once']);
    const [{ attempts }] = (await db.query<{ attempts: number }>(
      `SELECT last_value::int AS attempts FROM migration_attempts`,
    )) as [{ attempts: number }];
    assert.is(attempts, 2, 'rolled back once, then applied');
    assert.is((await db.query(`SELECT 1 FROM pg_tables WHERE tablename = 'once_applied'`)).length, 1);
  } finally {
    await dispose();
  }
});

test('a failing migration leaves nothing half-applied', async () => {
  const { db, dispose } = await openTestDatabase();
  try {
    const broken = {
      version: '9999',
      name: 'broken',
      checksum: 'x',
      sql: 'CREATE TABLE half_done (x int); SELECT no_such_function();',
    };
    const err = await migrate(db, [...readMigrations(), broken]).catch((e) => e);
    assert.match(err.message, /9999_broken\.sql failed/);
    assert.is((await db.query(`SELECT 1 FROM pg_tables WHERE tablename = 'half_done'`)).length, 0);
    assert.is((await db.query(`SELECT 1 FROM schema_migrations WHERE version = '9999'`)).length, 0);
  } finally {
    await dispose();
  }
});

// The embedded database belongs to one process (its data directory is locked): this is a server's case.
const serverUrl = process.env.TEST_DATABASE_URL;
if (!serverUrl)
  console.log('Skipping the concurrent migration test: it needs a TimescaleDB server (TEST_DATABASE_URL)');
(serverUrl ? test : test.skip)(
  'processes migrating one empty server database at once apply each migration exactly once',
  async () => {
    const fresh = await freshServerDatabase(serverUrl!);
    const dbs = [0, 1, 2].map(() => createServerDatabase({ url: fresh.url, max: 2 }));
    try {
      const applied = await Promise.all(dbs.map((db) => migrate(db)));
      assert.equal(
        applied.flat().sort(),
        readMigrations().map((m) => `${m.version}_${m.name}`),
        'each applied by one process',
      );
      const rows = await dbs[0]!.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
      assert.is(rows[0]!.n, readMigrations().length);
      const jobs = await dbs[0]!.query<{ proc_name: string }>(
        `SELECT proc_name FROM timescaledb_information.jobs WHERE proc_schema = 'public' ORDER BY proc_name`,
      );
      assert.equal(
        jobs.map((j) => j.proc_name),
        ['compress_trades', 'compress_txs', 'prune_candles', 'prune_feed_events', 'refresh_candles'],
        'each job scheduled once',
      );
    } finally {
      for (const db of dbs) await db.close();
      await fresh.dispose();
    }
  },
);

test('upgrading a database whose trades are in the columnstore keeps every trade and its tx hash (0016: hashes as bytes, one batch per token run)', async () => {
  const { db, dispose } = await openTestDatabase({ migrated: false });
  try {
    const before = upTo('0015');
    await migrate(db, before);
    // the week-old chunks compressed as the policy does; a server's own workers may run the
    // policy meanwhile, and a chunk they compress between the check and the compression is
    // skipped on the next try
    const compressOld = async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await db.query(
            `SELECT count(compress_chunk(c, if_not_compressed => true)) FROM show_chunks('trades', older_than => INTERVAL '7 days') c`,
          );
        } catch (error) {
          if (attempt > 300 || !/already compressed/.test((error as Error).message)) throw error;
          await sleep(100); // the workers compress chunk after chunk meanwhile
        }
      }
    };
    // the old layout: tx_hash as upper-case hex text, written as 0015's indexer wrote it
    const hashes = Array.from({ length: 40 }, () => randomBytes(32).toString('hex').toUpperCase());
    await db.query(
      `INSERT INTO trades (time, block_height, tx_index, event_index, msg_index, tx_hash, source, action, direction, token_address,
         price_unative, volume_unative, volume_token, fee_unative, trader, input_amount, output_amount, native_reserves)
       SELECT now() - (i || ' days')::interval, i, 0, 0, 0, h, 'launchpad', 'buy', 'native_to_token', 'native1token' || (i % 3),
         1, 2, 3, 4, 'native1trader', 5, 6, 7
       FROM unnest($1::text[]) WITH ORDINALITY AS u(h, i)`,
      [hashes],
    );
    await compressOld();
    const compressed = `SELECT count(*)::int AS n FROM chunk_compression_stats('trades') WHERE compression_status = 'Compressed'`;
    assert.ok(
      Number((await db.query<{ n: number }>(compressed))[0]!.n) >= 30,
      'the old chunks were in the columnstore',
    );

    assert.equal(await migrate(db, upTo('0016')), ['0016_trades_columnstore_layout']);
    const rows = await db.query<{ hex: string; bytes: number }>(
      `SELECT upper(encode(tx_hash, 'hex')) AS hex, octet_length(tx_hash) AS bytes FROM trades ORDER BY block_height`,
    );
    assert.equal(
      rows.map((r) => r.hex),
      hashes,
    );
    assert.ok(rows.every((r) => Number(r.bytes) === 32));
    const settings = await db.query<{ attname: string; segmentby: number | null; orderby: number | null }>(
      `SELECT attname, segmentby_column_index AS segmentby, orderby_column_index AS orderby
       FROM timescaledb_information.compression_settings WHERE hypertable_name = 'trades' ORDER BY orderby_column_index`,
    );
    assert.equal(
      settings.map((s) => [s.attname, s.segmentby, Number(s.orderby)]),
      [
        ['token_address', null, 1],
        ['time', null, 2],
        ['seq', null, 3],
      ],
    );
    // the chunks go back to the columnstore in the new layout, and read the same
    await compressOld();
    assert.ok(Number((await db.query<{ n: number }>(compressed))[0]!.n) >= 30, 'compressed again');
    const again = await db.query<{ hex: string }>(
      `SELECT upper(encode(tx_hash, 'hex')) AS hex FROM trades ORDER BY block_height`,
    );
    assert.equal(
      again.map((r) => r.hex),
      hashes,
    );
  } finally {
    await dispose();
  }
});

test('upgrading keeps every indexed attribute of every tx (each pair numbered once, the view shows the rows as before: 0017), every tx hash (as its bytes: 0018), and finds each tx by its hash (tx_hashes, txs partitioned by height: 0019), written through their primary keys alone (0020), its compression job redefined (0021)', async () => {
  const { db, dispose } = await openTestDatabase({ migrated: false });
  try {
    await migrate(db, upTo('0016'));
    const rows = [
      ['message.sender', 'native1alice', 1, 0],
      ['message.sender', 'native1alice', 2, 3],
      ['transfer.recipient', 'native1alice', 2, 3],
      ['message.sender', 'native1bob', 2, 4],
      ['message.action', '/cosmwasm.wasm.v1.MsgExecuteContract', 2, 4],
    ] as const;
    await db.query(
      `INSERT INTO tx_attributes (key, value, height, tx_index) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::int[])`,
      [rows.map((r) => r[0]), rows.map((r) => r[1]), rows.map((r) => r[2]), rows.map((r) => r[3])],
    );
    const hash = randomBytes(32).toString('hex').toUpperCase();
    await db.query(
      `INSERT INTO txs (hash, height, tx_index, time, code, raw_log, gas_wanted, gas_used, tx_bytes, events)
       VALUES ($1, 2, 3, now(), 0, '', 1, 1, '\\x00', '\\x00')`,
      [hash],
    );
    assert.equal(await migrate(db), [
      '0017_attribute_values',
      '0018_txs_hash_bytes',
      '0019_chain_index_columnstore',
      '0020_chain_index_height_indexes',
      '0021_txs_columnstore_lz4',
      '0022_trades_columnstore_lz4',
      '0023_columnstore_whole_recompression',
      '0024_sql_answer_guard',
      '0025_feed_outbox_pruned_through',
    ]);
    const [tx] = await db.query<{ hex: string; bytes: number }>(
      `SELECT upper(encode(hash, 'hex')) AS hex, octet_length(hash) AS bytes FROM txs`,
    );
    assert.equal(tx, { hex: hash, bytes: 32 });
    const found = await db.query<{ height: number; tx_index: number }>(
      `SELECT height, tx_index FROM tx_hashes WHERE hash = decode($1, 'hex')`,
      [hash],
    );
    assert.equal(
      found.map((r) => [Number(r.height), r.tx_index]),
      [[2, 3]],
    );
    const hypertables = await db.query<{ name: string }>(
      `SELECT hypertable_name AS name FROM timescaledb_information.hypertables
       WHERE hypertable_name IN ('txs', 'tx_attribute_refs') ORDER BY 1`,
    );
    assert.equal(
      hypertables.map((r) => r.name),
      ['tx_attribute_refs', 'txs'],
    );
    // each is written through its primary key alone, which every read by height uses (0020)
    const indexes = await db.query<{ name: string }>(
      `SELECT indexname AS name FROM pg_indexes WHERE schemaname = 'public' AND tablename IN ('txs', 'tx_attribute_refs') ORDER BY 1`,
    );
    assert.equal(
      indexes.map((r) => r.name),
      ['tx_attribute_refs_pkey', 'txs_pkey'],
    );
    const after = await db.query<{ key: string; value: string; height: number; tx_index: number }>(
      `SELECT key, value, height, tx_index FROM tx_attributes ORDER BY height, tx_index, key`,
    );
    assert.equal(
      after.map((r) => [r.key, r.value, Number(r.height), r.tx_index]),
      [...rows].sort((a, b) => a[2] - b[2] || a[3] - b[3] || a[0].localeCompare(b[0])),
    );
    const [pairs] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM attribute_values`);
    assert.is(pairs!.n, 4, 'alice as a sender is one pair for her two txs');
  } finally {
    await dispose();
  }
});

test('upgrading compresses whole again the chunks compressed before, so a chunk written into after its compression reads in its order (0023)', async () => {
  const t = await openTestDatabase({ migrated: false });
  const { db } = t;
  try {
    await migrate(db, upTo('0022'));
    await holdCompressionJobs(t);
    const [{ job }] = (await db.query<{ job: number }>(
      `SELECT job_id AS job FROM timescaledb_information.jobs WHERE proc_name = 'compress_trades'`,
    )) as [{ job: number }];
    const insert = (rows: string) =>
      db.exec(`INSERT INTO trades (time, block_height, tx_index, event_index, msg_index, tx_hash, source, action, direction,
         token_address, price_unative, volume_unative, volume_token, fee_unative, trader, input_amount, output_amount, native_reserves)
       ${rows}`);
    // a day 10 days old of 3,000 trades of 40 tokens, compressed by the job as 0022 defined it
    await insert(`SELECT date_trunc('day', now() - interval '10 days') + g * interval '8 seconds', g, 0, 0, 0,
         sha256(int8send(g)), 'launchpad', 'buy', 'native_to_token', 'native1token' || (g * 7919 % 40), 1, 1, 1, 1,
         'native1trader', 1, 1, 1
       FROM generate_series(1, 3000) g`);
    await db.exec(`CALL run_job(${Number(job)})`);
    // a late trade of one of those tokens, and the job again
    await insert(`VALUES (date_trunc('day', now() - interval '10 days') + interval '3 hours 1 second', 5000, 1, 0, 0,
         sha256('late'), 'launchpad', 'buy', 'native_to_token', 'native1token5', 1, 1, 1, 1, 'native1trader', 1, 1, 1)`);
    await db.exec(`CALL run_job(${Number(job)})`);
    assert.equal(await migrate(db, upTo('0023')), ['0023_columnstore_whole_recompression']);
    const groups = await db.query<{ token: string; n: number }>(
      `SELECT token_address AS token, count(*)::int AS n FROM trades GROUP BY token_address`,
    );
    assert.is(groups.length, 40, 'each token one group');
    assert.is(groups.find((g) => g.token === 'native1token5')?.n, 76, 'with its late trade');
    const [chunk] = await db.query<{ compressed: boolean }>(
      `SELECT bool_and(is_compressed) AS compressed FROM timescaledb_information.chunks WHERE hypertable_name = 'trades'`,
    );
    assert.ok(chunk?.compressed, 'in the columnstore again');
  } finally {
    await t.dispose();
  }
});

test('upgrading records what the outbox may have pruned: below its oldest row, or every id given out when it is empty (0025)', async () => {
  for (const kept of [true, false]) {
    const { db, dispose } = await openTestDatabase({ migrated: false });
    try {
      await migrate(db, upTo('0024'));
      const ids = await db.query<{ id: number }>(
        `INSERT INTO feed_events (event, token_address, data, event_key, block_height)
         SELECT 'trade', 'native1token', '{}', 'upgrade:' || g, 1 FROM generate_series(1, 9) g RETURNING id`,
      );
      // the first five pruned, or all of them
      await db.query(`DELETE FROM feed_events WHERE id <= $1`, [kept ? Number(ids[4]!.id) : Number(ids[8]!.id)]);
      assert.equal(await migrate(db, upTo('0025')), ['0025_feed_outbox_pruned_through']);
      const [row] = await db.query<{ through: number }>(`SELECT through_id AS through FROM feed_events_pruned`);
      assert.is(
        Number(row!.through),
        kept ? Number(ids[4]!.id) : Number(ids[8]!.id),
        kept ? 'below the oldest row' : 'the last id given out',
      );
    } finally {
      await dispose();
    }
  }
});

test.run();
