// Applies the ordered SQL files of sql/ once each, recording them in schema_migrations.
// Safe to run again and from several processes at once (an advisory lock serialises them).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Database } from './types.ts';

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../sql/', import.meta.url));
const MIGRATION_LOCK = 0x6d696772; // "migr"

export interface Migration {
  version: string;
  name: string;
  sql: string;
  checksum: string;
}

export function readMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[\w-]+\.sql$/.test(f))
    .sort()
    .map((file) => {
      const sql = readFileSync(new URL(file, `file://${dir.endsWith('/') ? dir : `${dir}/`}`), 'utf8');
      return {
        version: file.slice(0, 4),
        name: file.slice(5, -4),
        sql,
        checksum: createHash('sha256').update(sql).digest('hex'),
      };
    });
}

export class MigrationError extends Error {
  override name = 'MigrationError';
}

/** Applies pending migrations; returns the versions applied by this call. */
export async function migrate(db: Database, migrations = readMigrations()): Promise<string[]> {
  // Under the lock too: two processes creating the table at once can both pass
  // IF NOT EXISTS, and one then fails on the catalog's unique index.
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
    await tx.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version    text PRIMARY KEY,
      name       text        NOT NULL,
      checksum   text        NOT NULL,
      applied_at timestamptz NOT NULL DEFAULT now()
    )`);
  });
  const applied: string[] = [];
  for (const m of migrations) {
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
      const [row] = await tx.query<{ checksum: string }>('SELECT checksum FROM schema_migrations WHERE version = $1', [m.version]);
      if (row) {
        if (row.checksum !== m.checksum) {
          throw new MigrationError(
            `Migration ${m.version}_${m.name}.sql was changed after it was applied (checksum differs). Applied migrations are immutable: add a new migration instead.`,
          );
        }
        return false;
      }
      try {
        await tx.exec(m.sql);
      } catch (error) {
        throw new MigrationError(`Migration ${m.version}_${m.name}.sql failed: ${(error as Error).message}`, { cause: error });
      }
      await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [m.version, m.name, m.checksum]);
      return true;
    });
    if (done) applied.push(`${m.version}_${m.name}`);
  }
  return applied;
}
