-- Scheduled work, as TimescaleDB jobs: a server runs them in its background workers;
-- the embedded database has none, so the service calls run_job() on a schedule there.

-- Refresh policy. The stock policy refreshes a window relative to now(), which misses
-- trades the indexer writes late (catching up, backfill) and can move the watermark
-- past trades not yet indexed, hiding them from real-time aggregation. This job
-- refreshes each level up to the time the indexer has reached, from the beginning,
-- which also folds in every invalidated range (backfilled or late data).
CREATE PROCEDURE refresh_candles(job_id integer, config jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  indexed_until timestamptz := least(now(), coalesce((SELECT last_block_time FROM indexer_state), now()));
BEGIN
  CALL refresh_continuous_aggregate('candles_1m', NULL, time_bucket(INTERVAL '1 minute', indexed_until));
  COMMIT;
  CALL refresh_continuous_aggregate('candles_5m', NULL, time_bucket(INTERVAL '5 minutes', indexed_until));
  COMMIT;
  CALL refresh_continuous_aggregate('candles_1h', NULL, time_bucket(INTERVAL '1 hour', indexed_until));
  COMMIT;
  CALL refresh_continuous_aggregate('candles_1d', NULL, time_bucket(INTERVAL '1 day', indexed_until));
  COMMIT;
END
$$;

SELECT add_job('refresh_candles', INTERVAL '30 seconds');

-- The SSE replay window: outbox rows older than a day are not needed for Last-Event-ID resumes.
CREATE PROCEDURE prune_feed_events(job_id integer, config jsonb)
LANGUAGE sql AS $$
  DELETE FROM feed_events WHERE created_at < now() - coalesce((config->>'keep')::interval, INTERVAL '1 day');
$$;

SELECT add_job('prune_feed_events', INTERVAL '1 hour', config => '{"keep": "1 day"}');
