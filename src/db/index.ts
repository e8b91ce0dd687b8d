// Opens the database the configuration names: a TimescaleDB server when DATABASE_URL
// is set, otherwise the embedded TimescaleDB in DATA_DIR.
import { createEmbeddedDatabase } from './embedded.ts';
import { createServerDatabase } from './postgres.ts';
import type { Database } from './types.ts';

export * from './types.ts';

export interface OpenOptions {
  databaseUrl?: string;
  dataDir: string;
  onCrash?: (error: Error) => void;
}

export async function openDatabase({ databaseUrl, dataDir, onCrash }: OpenOptions): Promise<Database> {
  if (databaseUrl) {
    const db = createServerDatabase({ url: databaseUrl });
    await db.query('SELECT 1'); // fail fast with a clear error when the server is unreachable
    return db;
  }
  return createEmbeddedDatabase({ dataDir, onCrash });
}

/** Where a database lives, for log lines (credentials removed). */
export function describeDatabase({ databaseUrl, dataDir }: OpenOptions): string {
  if (!databaseUrl)
    return dataDir.startsWith('memory://') ? 'embedded TimescaleDB (in memory)' : `embedded TimescaleDB in ${dataDir}`;
  const u = new URL(databaseUrl);
  u.password = '';
  u.username = u.username ? u.username : '';
  return `TimescaleDB server ${u.host}${u.pathname}`;
}
