-- Fewer, larger chunks for the candle aggregates, and exact 90-day retention.
--
-- With a chunk per day, a query over 90 days of candles plans 90 chunks per aggregate,
-- and planning cost, not reading, dominated a request for 1000 candles. Chunks sized to
-- each timeframe's density keep a 90-day query to a handful of chunks: 1m 7 days, 5m 30
-- days, 1h and 1d 90 days. (Chunks that already exist keep their size.)
--
-- The stock retention policy drops only whole chunks, which with large chunks would keep
-- candles long past 90 days. prune_candles drops the whole chunks and deletes the rest
-- of what is older than 90 days from the boundary chunk, so no timeframe ever serves a
-- candle older than its retention.
SELECT set_chunk_time_interval(format('%I.%I', c.materialization_hypertable_schema, c.materialization_hypertable_name)::regclass, v.width)
FROM timescaledb_information.continuous_aggregates c
JOIN (VALUES ('candles_1m', INTERVAL '7 days'), ('candles_5m', INTERVAL '30 days'), ('candles_1h', INTERVAL '90 days'), ('candles_1d', INTERVAL '90 days')) AS v(view_name, width)
  ON v.view_name = c.view_name;

SELECT remove_retention_policy(view_name::regclass)
FROM (VALUES ('candles_1m'), ('candles_5m'), ('candles_1h'), ('candles_1d')) AS v(view_name);

CREATE PROCEDURE prune_candles(job_id integer, config jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  keep   interval := coalesce((config->>'keep')::interval, INTERVAL '90 days');
  cutoff timestamptz := now() - keep;
  agg    record;
BEGIN
  FOR agg IN
    SELECT view_name, materialization_hypertable_schema AS s, materialization_hypertable_name AS t
    FROM timescaledb_information.continuous_aggregates
    WHERE view_name IN ('candles_1m', 'candles_5m', 'candles_1h', 'candles_1d')
  LOOP
    PERFORM drop_chunks(agg.view_name::regclass, older_than => cutoff);
    EXECUTE format('DELETE FROM %I.%I WHERE bucket < $1', agg.s, agg.t) USING cutoff;
  END LOOP;
END
$$;

SELECT add_job('prune_candles', INTERVAL '1 hour', config => '{"keep": "90 days"}');
