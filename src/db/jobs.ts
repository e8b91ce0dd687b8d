// Scheduled database work. Every periodic task is a TimescaleDB job (see sql/0005_jobs.sql):
// a server runs them in its background workers; the embedded database has none, so in
// embedded mode the service runs them itself on node-cron schedules.
import cron from 'node-cron';
import type { Logger } from '../internal/logger.ts';
import type { Database } from './types.ts';

export type JobGroup = 'refresh' | 'retention';

const GROUP_PROCS: Record<JobGroup, string[]> = {
  refresh: ['refresh_candles'],
  // the hourly upkeep: what is past keeping, and the chunks moved to the columnstore: trades a
  // week old (sql/0022_trades_columnstore_lz4.sql), the chain index behind the tip (txs:
  // sql/0021_txs_columnstore_lz4.sql; its attribute index by TimescaleDB's policy, 0019)
  retention: ['prune_candles', 'prune_feed_events', 'compress_trades', 'policy_compression', 'compress_txs'],
};

/** Runs every job of the group now, in job id order; returns how long each took. */
export async function runJobs(db: Database, group: JobGroup): Promise<{ job: string; ms: number }[]> {
  const jobs = await db.query<{ job_id: number; proc_name: string; hypertable_name: string | null }>(
    `SELECT job_id, proc_name, hypertable_name FROM timescaledb_information.jobs WHERE proc_name = ANY($1::text[]) ORDER BY job_id`,
    [GROUP_PROCS[group]],
  );
  const timings: { job: string; ms: number }[] = [];
  // On one session: a candle job holds a session lock (sql/0007_candle_job_lock.sql) that
  // a failed run leaves behind, and only that session can release it.
  await db.session(async (session) => {
    for (const job of jobs) {
      const started = performance.now();
      try {
        await session.exec(`CALL run_job(${Number(job.job_id)})`);
      } catch (error) {
        await session.query('SELECT release_candle_jobs()').catch(() => {});
        throw error;
      }
      timings.push({
        job: job.hypertable_name ? `${job.proc_name}(${job.hypertable_name})` : job.proc_name,
        ms: performance.now() - started,
      });
    }
  });
  return timings;
}

export interface EmbeddedJobsOptions {
  refreshCron: string;
  retentionCron: string;
  logger: Logger;
}

/** Schedules the job groups; a run still going when its next tick comes is skipped (noOverlap). */
export function scheduleEmbeddedJobs(
  db: Database,
  { refreshCron, retentionCron, logger }: EmbeddedJobsOptions,
): { stop(): Promise<void> } {
  const inFlight = new Set<Promise<unknown>>();
  const schedule = (group: JobGroup, expression: string) =>
    cron.schedule(
      expression,
      () => {
        const run = runJobs(db, group)
          .then((timings) => {
            const ms = timings.reduce((n, t) => n + t.ms, 0);
            logger.debug({ group, jobs: timings.length, duration_ms: Math.round(ms) }, 'Ran scheduled jobs');
          })
          .catch((err) => logger.warn({ err, group }, 'Scheduled jobs failed'))
          .finally(() => inFlight.delete(run));
        inFlight.add(run);
        return run;
      },
      { name: `db-${group}`, noOverlap: true, suppressMissedWarning: true },
    );
  const tasks = [schedule('refresh', refreshCron), schedule('retention', retentionCron)];
  return {
    async stop() {
      for (const task of tasks) await task.destroy();
      await Promise.allSettled([...inFlight]);
    },
  };
}
