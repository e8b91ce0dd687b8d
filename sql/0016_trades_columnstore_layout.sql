-- What a trade costs on disk (README "The columnstore", `npm run bench:storage`):
--
-- * tx_hash is kept as its 32 bytes, not as 64 characters of hex: half the bytes in the rowstore
--   and in the event key's index, and hex of random bytes is what the columnstore's compression
--   cannot shrink. Readers print it as the API does: upper(encode(tx_hash, 'hex')).
-- * The columnstore no longer makes one segment per token. With thousands of tokens a day's
--   chunk held a dozen trades per token on average, and each of those tiny batches paid its own
--   headers, metadata and index entry (366 bytes a trade, against 180 now). Batches are now
--   the chunk's trades ordered by token, then newest first: a batch holds one token's run of
--   trades (or several small tokens'), its min/max token address lets a token's history skip
--   every other batch, and the bloom filters on tx_hash and trader (TimescaleDB builds them for
--   the indexed columns) let a wallet's history and the event key skip most.
--
-- Chunks already in the columnstore go back to the rowstore for the change; the policy moves
-- them again at its next run.
SELECT remove_compression_policy('trades', if_exists => true);
SELECT count(decompress_chunk(c, if_compressed => true)) FROM show_chunks('trades') c;
ALTER TABLE trades SET (timescaledb.compress = false);

ALTER TABLE trades ALTER COLUMN tx_hash TYPE bytea USING decode(tx_hash, 'hex');

ALTER TABLE trades SET (
  timescaledb.compress,
  timescaledb.compress_segmentby = '',
  timescaledb.compress_orderby = 'token_address, time DESC, seq DESC'
);
SELECT add_compression_policy('trades', compress_after => INTERVAL '7 days', schedule_interval => INTERVAL '1 hour');
