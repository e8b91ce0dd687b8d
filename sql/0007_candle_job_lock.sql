-- The candle jobs never overlap. A server runs refresh_candles on its own schedule, and
-- an operator (or the embedded service's scheduler) may CALL run_job() at any time; two
-- refreshes of one continuous aggregate over overlapping windows at once can return
-- before the other has committed ("already up-to-date") or leave gaps. Each candle job
-- holds a session advisory lock for its whole run, so a second run waits for the first,
-- then refreshes whatever was committed before it started.
--
-- refresh_continuous_aggregate commits inside, so a transaction-scoped lock would not
-- last the run. A run that fails leaves the lock with its session: a background worker's
-- session ends with the job, and the service's runJobs() releases it (release_candle_jobs()).

CREATE FUNCTION candle_jobs_lock_key() RETURNS bigint LANGUAGE sql IMMUTABLE AS $$ SELECT 1667329636::bigint $$; -- "cand"

CREATE FUNCTION release_candle_jobs() RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  -- a session lock is re-entrant: release every hold this session has
  WHILE EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
                  AND objid = (candle_jobs_lock_key() & 4294967295)::oid AND classid = (candle_jobs_lock_key() >> 32)::oid) LOOP
    PERFORM pg_advisory_unlock(candle_jobs_lock_key());
  END LOOP;
END
$$;

CREATE OR REPLACE PROCEDURE refresh_candles(job_id integer, config jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  indexed_until timestamptz;
BEGIN
  PERFORM pg_advisory_lock(candle_jobs_lock_key());
  -- read after the lock: a run that waited refreshes up to what the indexer has reached now
  indexed_until := least(now(), coalesce((SELECT last_block_time FROM indexer_state), now()));
  COMMIT;
  CALL refresh_continuous_aggregate('candles_1m', NULL, time_bucket(INTERVAL '1 minute', indexed_until));
  COMMIT;
  CALL refresh_continuous_aggregate('candles_5m', NULL, time_bucket(INTERVAL '5 minutes', indexed_until));
  COMMIT;
  CALL refresh_continuous_aggregate('candles_1h', NULL, time_bucket(INTERVAL '1 hour', indexed_until));
  COMMIT;
  CALL refresh_continuous_aggregate('candles_1d', NULL, time_bucket(INTERVAL '1 day', indexed_until));
  COMMIT;
  PERFORM release_candle_jobs();
END
$$;

CREATE OR REPLACE PROCEDURE prune_candles(job_id integer, config jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  keep   interval := coalesce((config->>'keep')::interval, INTERVAL '90 days');
  cutoff timestamptz := now() - keep;
  agg    record;
BEGIN
  PERFORM pg_advisory_lock(candle_jobs_lock_key());
  FOR agg IN
    SELECT view_name, materialization_hypertable_schema AS s, materialization_hypertable_name AS t
    FROM timescaledb_information.continuous_aggregates
    WHERE view_name IN ('candles_1m', 'candles_5m', 'candles_1h', 'candles_1d')
  LOOP
    PERFORM drop_chunks(agg.view_name::regclass, older_than => cutoff);
    EXECUTE format('DELETE FROM %I.%I WHERE bucket < $1', agg.s, agg.t) USING cutoff;
  END LOOP;
  PERFORM release_candle_jobs();
END
$$;
