-- TimescaleDB gave the chain index's hypertables (0019) its default index on their
-- dimension, height DESC. Their primary keys already serve every read by height: txs'
-- (height, tx_index) a block's txs, a tx at its position and `tx.height` searches;
-- tx_attribute_refs' (attribute, height, tx_index) every search and wallet history, which
-- always name the attribute. The two indexes were only written: a b-tree insert for each tx
-- and for each of its indexed attributes (six a launchpad trade), ~15% of a backfill's
-- writing. Compressed chunks do not use them either (their batches are found by the
-- columnstore's own min/max of height).
DROP INDEX IF EXISTS txs_height_idx;
DROP INDEX IF EXISTS tx_attribute_refs_height_idx;
