-- Trades a week old move to the columnstore (0015, 0016) with the batches' values compressed
-- again by PostgreSQL's TOAST with LZ4 where the server has it, as the chain index's are
-- (0021): on a server, 138 instead of 151 bytes a trade, compressing a chunk ~25% faster, and
-- a trader's newest trades over a compressed day 1.4 instead of 2.1 ms (README "Storage").
-- TimescaleDB's stock policy cannot choose the TOAST method (it runs in a background worker
-- with the database's settings), so trades get a job of their own, as txs have: each chunk
-- whose time range ended config.compress_after (7 days when unset) or more ago, compressed in
-- a transaction of its own with default_toast_compression = lz4 for that transaction where
-- the server was built with LZ4 (the embedded database's PostgreSQL has pglz only: there it
-- keeps the default). A chunk a backfill wrote into is compressed again. Chunks compressed
-- before keep pglz until compressed again (decompress_chunk, then the job).
SELECT remove_compression_policy('trades', if_exists => true);

CREATE PROCEDURE compress_trades(job_id integer, config jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  chunk regclass;
  has_lz4 boolean := EXISTS (
    SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)
  );
BEGIN
  FOR chunk IN
    SELECT c FROM show_chunks('trades', older_than => now() - coalesce((config->>'compress_after')::interval, INTERVAL '7 days')) c
  LOOP
    IF has_lz4 THEN
      PERFORM set_config('default_toast_compression', 'lz4', true);
    END IF;
    PERFORM compress_chunk(chunk, if_not_compressed => true);
    COMMIT;
  END LOOP;
END
$$;
SELECT add_job('compress_trades', INTERVAL '1 hour', config => '{"compress_after": "7 days"}');
