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
  // week old, the chain index behind the tip (txs; both compressed whole by
  // sql/0023_columnstore_whole_recompression.sql; its attribute index by TimescaleDB's policy, 0019)
  retention: ['prune_candles', 'prune_feed_events', 'compress_trades', 'policy_compression', 'compress_txs'],
};

/**
 * Runs every job of the group now, in job id order (with `skipPaused`, those not paused);
 * returns how long each took. A job that
 * fails does not keep the others from running: once all have run, the failures are thrown
 * together (`JobsFailedError`, naming each job).
 */
export async function runJobs(
  db: Database,
  group: JobGroup,
  { skipPaused = false }: { skipPaused?: boolean } = {},
): Promise<{ job: string; ms: number }[]> {
  const jobs = await db.query<{ job_id: number; proc_name: string; hypertable_name: string | null }>(
    `SELECT job_id, proc_name, hypertable_name FROM timescaledb_information.jobs
     WHERE proc_name = ANY($1::text[]) AND (scheduled OR NOT $2) ORDER BY job_id`,
    [GROUP_PROCS[group], skipPaused],
  );
  const timings: { job: string; ms: number }[] = [];
  const failures: { job: string; error: unknown }[] = [];
  // On one session: a candle job holds a session lock (sql/0007_candle_job_lock.sql) that
  // a failed run leaves behind, and only that session can release it.
  await db.session(async (session) => {
    for (const job of jobs) {
      const name = job.hypertable_name ? `${job.proc_name}(${job.hypertable_name})` : job.proc_name;
      const started = performance.now();
      try {
        await session.exec(`CALL run_job(${Number(job.job_id)})`);
        timings.push({ job: name, ms: performance.now() - started });
      } catch (error) {
        await session.query('SELECT release_candle_jobs()').catch(() => {});
        failures.push({ job: name, error });
      }
    }
  });
  if (failures.length > 0) throw new JobsFailedError(failures);
  return timings;
}

/** The jobs of a group that failed, each with its error; the group's other jobs ran. */
export class JobsFailedError extends Error {
  constructor(readonly failures: readonly { job: string; error: unknown }[]) {
    super(
      failures
        .map(({ job, error }) => `${job} failed: ${error instanceof Error ? error.message : String(error)}`)
        .join('; '),
      { cause: failures[0]?.error },
    );
    this.name = 'JobsFailedError';
  }
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
        // a job an operator paused (alter_job(…, scheduled => false)) waits, as a server's scheduler leaves it
        const run = runJobs(db, group, { skipPaused: true })
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
