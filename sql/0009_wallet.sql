-- The wallet routes and graduation progress (docs/launchpad-api.md "Wallet" and "Token").

-- Broadcast dedupe across API processes: a submission claims its tx hash by inserting the row
-- without a code; the claimant broadcasts and records the node's code and log, and every other
-- submission of the same bytes waits for them. A claim whose broadcast got no answer from the
-- node is deleted, so the bytes may be submitted again.
ALTER TABLE broadcasts ALTER COLUMN code DROP NOT NULL;
ALTER TABLE broadcasts ALTER COLUMN raw_log SET DEFAULT '';

-- A curve token's graduation threshold (unative) as the launchpad's progress query last
-- answered it; stale once the oracle price changed after that answer (the indexer marks it,
-- the metadata fetcher asks again). Progress is native_reserves ÷ threshold, computed when served.
ALTER TABLE tokens ADD COLUMN graduation_threshold amount;
ALTER TABLE tokens ADD COLUMN threshold_stale boolean NOT NULL DEFAULT false;
CREATE INDEX tokens_threshold_stale ON tokens (address) WHERE threshold_stale;
-- tokens indexed before this migration have no threshold yet
UPDATE tokens SET threshold_stale = true WHERE source = 'launchpad' AND NOT graduated;
