// `npm run migrate`: applies pending schema migrations to the configured database and exits.
import { ConfigError, loadConfig } from '../src/config.ts';
import { describeDatabase, openDatabase } from '../src/db/index.ts';
import { migrate } from '../src/db/migrate.ts';

try {
  const config = loadConfig();
  const where = { databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR };
  const db = await openDatabase(where);
  try {
    const applied = await migrate(db);
    console.log(
      applied.length
        ? `Applied ${applied.length} migration(s) to ${describeDatabase(where)}: ${applied.join(', ')}`
        : `Schema is up to date (${describeDatabase(where)}).`,
    );
  } finally {
    await db.close();
  }
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : `Migration failed: ${(error as Error).message}`);
  process.exit(1);
}
