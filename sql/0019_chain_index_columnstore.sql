-- The chain index in the columnstore (README "The columnstore", docs/indexing.md "Chain
-- index"): txs and tx_attribute_refs become hypertables partitioned by height, and chunks well
-- behind the indexed tip move to the columnstore, as trades a week old do.
--
-- * Chunks are 50,000 heights (about 3.5 days of 6-second blocks); a chunk is compressed once
--   its last height is 100,000 behind the tip (about a week at 6 s), so the blocks the indexer
--   writes and the Chain API's hot answers stay in the rowstore. "The tip" is the indexer's
--   cursor (chain_index_tip() below), not the clock: a chain's heights do not follow it.
-- * txs: batches of 100 txs in chain order (orderby height, tx_index), so a block's txs and
--   a tx at its position are found by the batches' ranges of heights and tx indexes. A
--   compressed tx costs its bytes (protobuf, events already deflated, hash) and little more;
--   the rowstore's ~120 bytes of row header, columns and primary key per tx go. Reading one tx
--   decompresses its batch: 100 txs (~0.1 MB) instead of TimescaleDB's default 1,000, for ~3%
--   more bytes. The batch size is a setting of the compression run, not of the table, so txs
--   has its own job (compress_txs below) where trades have the stock policy.
-- * A tx is found by hash through tx_hashes, a plain table (hash → height, tx_index): a
--   compressed chunk has no b-tree on hash, and probing every chunk for one hash would cost a
--   look at every chunk. txs' own hash index goes: tx_hashes is the one way in by hash.
-- * tx_attribute_refs: one segment per attribute pair (segmentby attribute), its txs newest
--   first (orderby height DESC, tx_index DESC): an event search or a wallet's history reads the
--   pair's own segments, in the order it pages them.
-- A server's background workers run the policies; the embedded service runs them with its
-- hourly jobs (src/db/jobs.ts). A backfill still writes below the tip: TimescaleDB inserts
-- into a compressed chunk (and checks its primary key there).

-- No writer of the previous version may add a tx between the copy of the hashes below and
-- the conversion: it would have no row in tx_hashes, and never be found by hash.
LOCK TABLE txs, tx_attribute_refs IN EXCLUSIVE MODE;

CREATE TABLE tx_hashes (
  hash     bytea   NOT NULL,                          -- the tx's SHA-256, as in txs.hash
  height   bigint  NOT NULL,
  tx_index integer NOT NULL,
  -- the same bytes may be in two blocks (sql/0010_txs_by_position.sql): one row for each
  PRIMARY KEY (hash, height, tx_index)
);
INSERT INTO tx_hashes (hash, height, tx_index) SELECT hash, height, tx_index FROM txs;
DROP INDEX txs_hash;

-- The height the chain index has reached: the policies' "now". A job runs it with the job
-- runner's search_path, so it keeps the one it was made with.
CREATE FUNCTION chain_index_tip() RETURNS bigint
LANGUAGE sql STABLE SET search_path FROM CURRENT AS $$
  SELECT coalesce((SELECT last_height FROM indexer_state), 0)
$$;

SELECT create_hypertable('txs', by_range('height', 50000), migrate_data => true);
SELECT set_integer_now_func('txs', 'chain_index_tip');
ALTER TABLE txs SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = '',
  timescaledb.compress_orderby = 'height, tx_index'
);

-- The stock policy's work for txs, with batches of config.batch_size txs (100 when unset): each
-- chunk whose heights end config.compress_after (100,000 when unset) or more behind the cursor, compressed in a transaction of
-- its own (the batch size is set for that transaction alone: the embedded service runs every
-- job on its one session). A chunk a backfill wrote into is compressed again.
CREATE PROCEDURE compress_txs(job_id integer, config jsonb)
LANGUAGE plpgsql AS $$
DECLARE
  chunk regclass;
BEGIN
  FOR chunk IN
    SELECT c FROM show_chunks('txs', older_than => chain_index_tip() - coalesce((config->>'compress_after')::bigint, 100000)) c
  LOOP
    PERFORM set_config('timescaledb.compression_batch_size_limit', coalesce(config->>'batch_size', '100'), true);
    PERFORM compress_chunk(chunk, if_not_compressed => true);
    COMMIT;
  END LOOP;
END
$$;
SELECT add_job('compress_txs', INTERVAL '1 hour', config => '{"compress_after": 100000, "batch_size": 100}');

SELECT create_hypertable('tx_attribute_refs', by_range('height', 50000), migrate_data => true);
SELECT set_integer_now_func('tx_attribute_refs', 'chain_index_tip');
ALTER TABLE tx_attribute_refs SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = 'attribute',
  timescaledb.compress_orderby = 'height DESC, tx_index DESC'
);
SELECT add_compression_policy('tx_attribute_refs', compress_after => 100000, schedule_interval => INTERVAL '1 hour');

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'launchpad_analyst') THEN
    GRANT SELECT ON tx_hashes TO launchpad_analyst;
  END IF;
END $$;
