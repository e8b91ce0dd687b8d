-- A chunk of trades or txs written into after it was compressed (a backfill below the index,
-- a catch-up of days older than a week, a late block) is compressed again by its job. By
-- default TimescaleDB recompresses only the segments such writes touched, and neither table
-- has a segmentby column: its one segment's late rows could then be stored as a batch of
-- their own, out of the compression order, in a chunk still marked as ordered. A query that
-- relies on that order (an analyst's `GROUP BY token_address`, an `ORDER BY` in it) then saw
-- one token twice, or rows out of order. The API's own reads sort for themselves and were
-- not affected.
--
-- compress_chunk_in_order compresses a chunk whole, with the settings its table's job chose
-- (a batch size; LZ4 for the batches' values where the server has it: 0021, 0022), for the
-- transaction it runs in. Both jobs use it, and every chunk compressed before this version
-- is decompressed and compressed whole again here (minutes on a large index; nothing to do on
-- a new one).
CREATE FUNCTION compress_chunk_in_order(chunk regclass, batch_size integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('timescaledb.enable_segmentwise_recompression', 'off', true);
  PERFORM set_config('timescaledb.compression_batch_size_limit', batch_size::text, true);
  IF EXISTS (SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)) THEN
    PERFORM set_config('default_toast_compression', 'lz4', true);
  END IF;
  PERFORM compress_chunk(chunk, if_not_compressed => true);
END
$$;

-- trades: TimescaleDB's default batch of 1,000 (0016)
CREATE OR REPLACE PROCEDURE compress_trades(job_id integer, config jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  chunk regclass;
BEGIN
  FOR chunk IN
    SELECT c FROM show_chunks('trades', older_than => now() - coalesce((config->>'compress_after')::interval, INTERVAL '7 days')) c
  LOOP
    PERFORM compress_chunk_in_order(chunk, 1000);
    COMMIT;
  END LOOP;
END
$$;

-- txs: batches of config.batch_size (100 when unset: 0019)
CREATE OR REPLACE PROCEDURE compress_txs(job_id integer, config jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  chunk regclass;
BEGIN
  FOR chunk IN
    SELECT c FROM show_chunks('txs', older_than => chain_index_tip() - coalesce((config->>'compress_after')::bigint, 100000)) c
  LOOP
    PERFORM compress_chunk_in_order(chunk, coalesce((config->>'batch_size')::integer, 100));
    COMMIT;
  END LOOP;
END
$$;

DO $$
DECLARE
  chunk record;
  txs_batch integer := coalesce(
    (SELECT (config->>'batch_size')::integer FROM timescaledb_information.jobs WHERE proc_name = 'compress_txs' LIMIT 1),
    100
  );
BEGIN
  FOR chunk IN
    SELECT format('%I.%I', chunk_schema, chunk_name)::regclass AS id, hypertable_name AS tab
    FROM timescaledb_information.chunks
    WHERE hypertable_schema = current_schema() AND hypertable_name IN ('trades', 'txs') AND is_compressed
    ORDER BY hypertable_name, range_start_integer, range_start
  LOOP
    PERFORM decompress_chunk(chunk.id);
    PERFORM compress_chunk_in_order(chunk.id, CASE WHEN chunk.tab = 'txs' THEN txs_batch ELSE 1000 END);
  END LOOP;
END
$$;
