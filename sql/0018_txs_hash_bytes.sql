-- A tx's hash kept as its 32 bytes, not as 64 characters of upper-case hex (README "Storage"):
-- 32 bytes less in each row of txs and in each entry of txs_hash, which it is found by. The
-- Chain API and SQL readers print it as before: upper(encode(hash, 'hex')). Block hashes,
-- one per block, stay text.
ALTER TABLE txs ALTER COLUMN hash TYPE bytea USING decode(hash, 'hex');
