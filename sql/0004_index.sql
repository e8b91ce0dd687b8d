-- What the indexer keeps besides trades: tokens, the chain index for the Chain API,
-- the SSE outbox, broadcast dedupe and the indexer's own cursor.

CREATE TABLE tokens (
  address          text PRIMARY KEY,                 -- CW20 contract address
  name             text,
  symbol           text,
  image            text,
  description      text,
  decimals         integer,
  creator          text,
  source           text        NOT NULL CHECK (source IN ('launchpad', 'amm')),
  graduated        boolean     NOT NULL DEFAULT false,
  native_reserves  amount      NOT NULL DEFAULT 0,    -- curve reserve, or last known pool reserve once graduated
  current_price    amount      NOT NULL DEFAULT 0,    -- last trade price, unative per token scaled by 10^6
  initial_reserves amount,
  created_at       timestamptz,                       -- block time of the creating event
  created_height   bigint,
  graduated_at     timestamptz,
  first_seen_at    timestamptz NOT NULL DEFAULT now(), -- when the indexer first saw the token
  last_trade_at    timestamptz,
  -- ordering key (trades.seq) of the last event applied to reserves/price/graduated, so a
  -- replayed or backfilled older block never rolls the token's state back
  state_seq        bigint      NOT NULL DEFAULT 0,
  price_seq        bigint      NOT NULL DEFAULT 0,      -- seq of the trade that set current_price
  -- token_info / marketing_info smart queries: retried until they succeed
  metadata_fetched boolean     NOT NULL DEFAULT false,
  metadata_attempts integer    NOT NULL DEFAULT 0,
  metadata_retry_at timestamptz
);
CREATE INDEX tokens_first_seen ON tokens (first_seen_at DESC, address);
CREATE INDEX tokens_metadata_pending ON tokens (metadata_retry_at) WHERE NOT metadata_fetched;

CREATE TABLE blocks (
  height        bigint PRIMARY KEY,
  hash          text        NOT NULL UNIQUE,            -- upper-case hex
  time          timestamptz NOT NULL,
  time_rfc3339  text        NOT NULL,                   -- exact, with nanoseconds
  chain_id      text        NOT NULL,
  proposer      text        NOT NULL,                   -- hex consensus address
  tx_count      integer     NOT NULL,
  block         jsonb       NOT NULL                    -- block_id, header, last_commit in REST shape
);
CREATE INDEX blocks_time ON blocks (time);

CREATE TABLE txs (
  hash        text PRIMARY KEY,                         -- upper-case hex SHA-256 of the tx bytes
  height      bigint      NOT NULL,
  tx_index    integer     NOT NULL,
  time        timestamptz NOT NULL,
  code        integer     NOT NULL,
  codespace   text        NOT NULL DEFAULT '',
  raw_log     text        NOT NULL,
  gas_wanted  bigint      NOT NULL,
  gas_used    bigint      NOT NULL,
  tx_bytes    bytea       NOT NULL,                     -- decoded by the Chain API when served
  events      bytea       NOT NULL,                     -- tx_response.events, packed (src/chain/stored-events.ts)
  UNIQUE (height, tx_index)
);

-- Attribute index for `events=` search and wallet history: one row per distinct
-- (event type.attribute key, value) of a tx, for the keys the indexer is told to index.
CREATE TABLE tx_attributes (
  key      text    NOT NULL,                            -- e.g. message.sender, transfer.recipient
  value    text    NOT NULL,
  height   bigint  NOT NULL,
  tx_index integer NOT NULL,
  PRIMARY KEY (key, value, height, tx_index)
);

-- SSE outbox: written in the indexer's transaction, read once per NOTIFY by each API process.
CREATE TABLE feed_events (
  id            bigserial   PRIMARY KEY,               -- the SSE event id
  event         text        NOT NULL CHECK (event IN ('trade', 'token_launch', 'graduation')),
  token_address text        NOT NULL,
  data          json        NOT NULL,                  -- the SSE data object, text exactly as sent
  event_key     text        NOT NULL UNIQUE,           -- tx_hash:msg_index:event_index, so a replayed block emits nothing twice
  block_height  bigint      NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);

-- Broadcast dedupe: the same signed bytes (same hash) are broadcast once.
CREATE TABLE broadcasts (
  tx_hash      text PRIMARY KEY,
  code         integer     NOT NULL,
  raw_log      text        NOT NULL,
  submitted_at timestamptz NOT NULL DEFAULT now(),
  repeats      integer     NOT NULL DEFAULT 0
);

-- The indexer's cursor and the identity of the chain it indexes (one row).
CREATE TABLE indexer_state (
  singleton        boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  chain_id         text        NOT NULL,
  first_height     bigint      NOT NULL,
  first_block_hash text        NOT NULL,
  last_height      bigint      NOT NULL,
  last_block_hash  text        NOT NULL,
  last_block_time  timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL DEFAULT now()
);
