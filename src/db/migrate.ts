// Applies the ordered SQL files of sql/ once each, recording them in schema_migrations.
// Safe to run again and from several processes at once (an advisory lock serialises them).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ServiceError } from '../internal/errors.ts';
import { type Database, isConflictCode } from './types.ts';

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

export class MigrationError extends ServiceError {
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
    const done = await retryConflicts(() => applyOne(db, m));
    if (done) applied.push(`${m.version}_${m.name}`);
  }
  return applied;
}

/**
 * A migration the server aborted for a conflict (`isConflictCode`: a server's job scheduler
 * starts a job the moment a migration schedules it, and its refresh can deadlock with the next
 * migration's DDL) was rolled back whole, so it is applied again.
 */
const CONFLICT_RETRIES = 5;

async function retryConflicts<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      const code = ((error as Error).cause as { code?: string } | undefined)?.code ?? (error as { code?: string }).code;
      if (!isConflictCode(code) || attempt >= CONFLICT_RETRIES) throw error;
      await new Promise((r) => setTimeout(r, 100 * attempt + Math.random() * 100));
    }
  }
}

/** Applies one migration in a transaction of its own; false when it was applied already. */
function applyOne(db: Database, m: Migration): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK]);
    const [row] = await tx.query<{ checksum: string }>('SELECT checksum FROM schema_migrations WHERE version = $1', [
      m.version,
    ]);
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
      throw new MigrationError(`Migration ${m.version}_${m.name}.sql failed: ${(error as Error).message}`, {
        cause: error,
      });
    }
    await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
      m.version,
      m.name,
      m.checksum,
    ]);
    return true;
  });
}
