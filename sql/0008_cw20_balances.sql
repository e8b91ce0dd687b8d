-- CW20 balances from the token contracts' own events, for GET /api/wallet/tokens
-- (docs/indexing.md "CW20 balances", docs/launchpad-api.md "Wallet").

-- Balance of each (holder, token): the sum of the token's movements (transfer, send, mint,
-- burn and the *_from forms) in the blocks of cw20_applied_blocks. Signed: an instantiate-time
-- balance has no event, so its holder goes below zero here once it gives tokens away.
CREATE TABLE cw20_balances (
  holder  text    NOT NULL,
  token   text    NOT NULL,
  balance numeric NOT NULL,
  PRIMARY KEY (holder, token)
);

-- The blocks whose movements cw20_balances holds. A block's movements are added by the
-- transaction that inserts its row here, so a replayed or backfilled block adds nothing twice.
CREATE TABLE cw20_applied_blocks (
  height bigint PRIMARY KEY
);

-- What the index knows of a CW20 contract's history: the block in which the launchpad or the
-- AMM created it, and the contract that received its whole supply at instantiation (cw20-base
-- emits no event for initial balances); `unreadable` once one of its balance events could not
-- be decoded (its balances are then read from the contract).
CREATE TABLE cw20_tokens (
  token          text    PRIMARY KEY,
  created_height bigint,
  initial_holder text,
  unreadable     boolean NOT NULL DEFAULT false
);
CREATE INDEX cw20_tokens_initial_holder ON cw20_tokens (initial_holder) WHERE initial_holder IS NOT NULL;

-- One row. complete_from: the lowest height from which every block up to the indexer's cursor
-- is in cw20_applied_blocks (null until the first batch at the head after this migration: blocks
-- indexed before it have no movements here until a backfill goes over them again).
-- version: bumped in every transaction that may change which tokens the index vouches for
-- (new tokens, creations, unreadable events, complete_from); API processes cache that set by it.
CREATE TABLE cw20_state (
  singleton     boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  complete_from bigint,
  version       bigint  NOT NULL DEFAULT 0
);
INSERT INTO cw20_state DEFAULT VALUES;
