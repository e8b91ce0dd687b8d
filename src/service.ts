// Assembles the service from its parts: database (+ migrations and, when embedded, the
// scheduled jobs), then the chain, the indexer and the HTTP servers as they are enabled.
import type { Config } from './config.ts';
import { describeDatabase, openDatabase, type Database } from './db/index.ts';
import { scheduleEmbeddedJobs } from './db/jobs.ts';
import { migrate } from './db/migrate.ts';
import type { Logger } from './internal/logger.ts';
import type { Shutdown } from './internal/shutdown.ts';

export interface ServiceContext {
  config: Config;
  logger: Logger;
  shutdown: Shutdown;
}

export interface Service {
  db: Database;
  /** Lines describing where everything is, printed at start. */
  endpoints: { name: string; where: string }[];
}

export async function startService({ config, logger, shutdown }: ServiceContext): Promise<Service> {
  const where = { databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR };
  const started = performance.now();
  const db = await openDatabase({
    ...where,
    onCrash: (error) => {
      logger.fatal({ err: error }, 'Embedded database stopped');
      void shutdown.run('database crashed').then(() => process.exit(1));
    },
  });
  shutdown.add('database', () => db.close());
  const applied = await migrate(db);
  logger.info(
    { database: describeDatabase(where), migrations_applied: applied.length, duration_ms: Math.round(performance.now() - started) },
    applied.length ? `Opened database and applied ${applied.length} migration(s)` : 'Opened database',
  );

  if (db.kind === 'embedded') {
    const jobs = scheduleEmbeddedJobs(db, { refreshCron: config.CANDLE_REFRESH_CRON, retentionCron: config.RETENTION_CRON, logger });
    shutdown.add('scheduled jobs', () => jobs.stop());
  }

  return { db, endpoints: [{ name: 'database', where: describeDatabase(where) }] };
}
