-- Trades a week old move to the columnstore (TimescaleDB compression): one segment per token
-- (segmentby), its trades in chain order, newest first, within it (orderby), so a token's
-- history reads only its own segments, in the order the API pages them. The chunks of the
-- last week stay in the rowstore, where the indexer writes. A backfill still writes older
-- trades: TimescaleDB inserts into a compressed chunk (and checks its unique index there).
-- A server's background workers run the policy; the embedded service runs it with its
-- hourly jobs (src/db/jobs.ts).
ALTER TABLE trades SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'token_address',
  timescaledb.compress_orderby = 'time DESC, seq DESC'
);

SELECT add_compression_policy('trades', compress_after => INTERVAL '7 days', schedule_interval => INTERVAL '1 hour');
