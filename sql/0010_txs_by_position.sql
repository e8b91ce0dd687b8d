-- A tx is identified by its place in the chain, not by its hash (docs/real-chains.md
-- "Same bytes, two blocks"): two blocks may carry the same tx bytes (a proposer's system
-- txs, as dYdX's blocks do, carry no signature or sequence), and both are part of their
-- blocks. Looked up by hash, the latest is answered first, as CometBFT's tx index does.
ALTER TABLE txs DROP CONSTRAINT txs_pkey;
ALTER TABLE txs DROP CONSTRAINT txs_height_tx_index_key;
ALTER TABLE txs ADD PRIMARY KEY (height, tx_index);
CREATE INDEX txs_hash ON txs (hash, height DESC);
