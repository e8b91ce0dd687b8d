// Reading the chain index's txs at known positions (height, tx_index), as every reader of txs
// does: a tx by hash (its position from tx_hashes), an event search's page and a wallet's
// history (positions from tx_attribute_refs).
//
// Each height's txs are read in one probe: in the rowstore by the primary key, in the
// columnstore by the batches whose ranges of heights and tx indexes hold them
// (sql/0019_chain_index_columnstore.sql), each decompressed once for all of that height's txs
// of the page. LATERAL with OFFSET 0 keeps them probes: joined as a whole, the planner may
// decompress every compressed chunk of txs (it rates a compressed scan cheap) to hash-join a
// page of rows.
import { type Sql, sql } from './sql.ts';

/** A FROM item of the txs at `positions` (a statement with columns height and tx_index), alias `t`. */
export const txsAt = (positions: Sql): Sql =>
  sql`(SELECT height, array_agg(tx_index) AS indexes, min(tx_index) AS low, max(tx_index) AS high
       FROM (${positions}) p GROUP BY height) at_height
      CROSS JOIN LATERAL (
        SELECT * FROM txs
        WHERE height = at_height.height AND tx_index BETWEEN at_height.low AND at_height.high
          AND tx_index = ANY(at_height.indexes)
        OFFSET 0) t`;
