// Databases for tests: the embedded TimescaleDB in memory by default, or a fresh
// database on the TEST_DATABASE_URL server, migrated either way.
import { createEmbeddedDatabase } from '../../src/db/embedded.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createServerDatabase } from '../../src/db/postgres.ts';
import type { Database } from '../../src/db/types.ts';

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
  const db = await createEmbeddedDatabase({ dataDir: 'memory://' });
  if (migrated) await migrate(db);
  return { db, description: 'embedded TimescaleDB', dispose: () => db.close() };
}
