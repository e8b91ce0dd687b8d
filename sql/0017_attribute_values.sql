-- The attribute index, each (type.key, value) stored once (README "Storage"): a tx's indexed
-- attributes were rows of (key, value, height, tx_index) whose primary key repeated the
-- whole row, a sender's address twice per tx (~1.6 kB of a launchpad trade's ~3.1 kB). Now
-- a pair is a row of attribute_values, numbered once, and each tx holds its pairs' numbers:
-- three integers a row, the same primary key order (pair, then chain order), so a search or
-- a wallet's history is still one range of one index, after one probe for the pair.
--
-- `tx_attributes` stays, as a view of the same columns, for SQL readers (docs/sql.md).
CREATE TABLE attribute_values (
  id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  key   text NOT NULL,                                 -- e.g. message.sender, transfer.recipient
  value text NOT NULL,
  UNIQUE (key, value)
);

CREATE TABLE tx_attribute_refs (
  attribute bigint  NOT NULL,                          -- attribute_values.id
  height    bigint  NOT NULL,
  tx_index  integer NOT NULL,
  PRIMARY KEY (attribute, height, tx_index)
);

-- an indexer of the previous version still running during the upgrade waits here, so none of
-- its rows is written between the copy and the drop
LOCK TABLE tx_attributes IN EXCLUSIVE MODE;
INSERT INTO attribute_values (key, value) SELECT DISTINCT key, value FROM tx_attributes ORDER BY key, value;
INSERT INTO tx_attribute_refs (attribute, height, tx_index)
  SELECT v.id, a.height, a.tx_index FROM tx_attributes a JOIN attribute_values v USING (key, value);
DROP TABLE tx_attributes;

CREATE VIEW tx_attributes AS
SELECT v.key, v.value, r.height, r.tx_index
FROM tx_attribute_refs r JOIN attribute_values v ON v.id = r.attribute;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'launchpad_analyst') THEN
    GRANT SELECT ON tx_attributes TO launchpad_analyst;
  END IF;
END $$;
