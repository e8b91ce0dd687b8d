-- A tx's events are stored LZ4-packed since this version (src/chain/stored-events.ts), which
-- leaves what repeats from tx to tx (contracts, addresses, denoms) for the columnstore to
-- find: a compressed batch of 100 txs keeps its events column as one value, compressed again
-- by PostgreSQL's TOAST. With pglz (PostgreSQL's default) that costs ~0.3 ms to decompress
-- for each cold tx read; with LZ4 a tenth of that, and the batch is smaller too
-- (README "Storage": 500 instead of 681 bytes a tx on the server).
--
-- compress_txs (0019) now compresses each chunk with default_toast_compression = lz4 for its
-- transaction, where the server was built with LZ4 (Debian's and TimescaleDB's packages are);
-- elsewhere (the embedded database's PostgreSQL has pglz only) it keeps the default. Chunks
-- compressed before keep pglz until compressed again (decompress_chunk, then the job).
CREATE OR REPLACE PROCEDURE compress_txs(job_id integer, config jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  chunk regclass;
  has_lz4 boolean := EXISTS (
    SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)
  );
BEGIN
  FOR chunk IN
    SELECT c FROM show_chunks('txs', older_than => chain_index_tip() - coalesce((config->>'compress_after')::bigint, 100000)) c
  LOOP
    PERFORM set_config('timescaledb.compression_batch_size_limit', coalesce(config->>'batch_size', '100'), true);
    IF has_lz4 THEN
      PERFORM set_config('default_toast_compression', 'lz4', true);
    END IF;
    PERFORM compress_chunk(chunk, if_not_compressed => true);
    COMMIT;
  END LOOP;
END
$$;
