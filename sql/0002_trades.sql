-- One row per trade on the bonding curve (launchpad) or the AMM.
CREATE TABLE trades (
  time            timestamptz NOT NULL,            -- block time
  block_height    bigint      NOT NULL,
  tx_index        integer     NOT NULL,            -- position of the tx in its block
  event_index     integer     NOT NULL,            -- position of the event in its tx's event list
  msg_index       integer     NOT NULL,            -- message of the tx that emitted the event
  tx_hash         text        NOT NULL,
  source          text        NOT NULL CHECK (source IN ('launchpad', 'amm')),
  action          text        NOT NULL CHECK (action IN ('buy', 'sell', 'swap', 'buy_and_graduate')),
  direction       text        NOT NULL CHECK (direction IN ('native_to_token', 'token_to_native')),
  token_address   text        NOT NULL,
  price_unative   amount      NOT NULL,            -- unative per token, scaled by 10^6
  volume_unative  amount      NOT NULL,            -- native that crossed the curve or pool
  volume_token    amount      NOT NULL,            -- token micro-units
  fee_unative     amount      NOT NULL,
  trader          text        NOT NULL,
  input_amount    amount      NOT NULL,            -- what the trader sent
  output_amount   amount      NOT NULL,            -- what the trader received
  native_reserves amount      NOT NULL,            -- curve or pool reserve after the trade
  -- The ordering key in one comparable value: many trades share one block time, so
  -- "first" and "last" (candle open and close, newest trade) are decided by this.
  seq             bigint GENERATED ALWAYS AS ((block_height << 32) | (tx_index << 16) | event_index) STORED,
  CHECK ((source = 'amm') = (action = 'swap')),
  CHECK (block_height BETWEEN 1 AND 2147483647 AND tx_index BETWEEN 0 AND 65535 AND event_index BETWEEN 0 AND 65535)
);

SELECT create_hypertable('trades', by_range('time', INTERVAL '1 day'));

-- The same on-chain event can never be stored twice (a hypertable's unique keys include
-- its time column; one event always has the same block time, so this is no weaker).
CREATE UNIQUE INDEX trades_event_key ON trades (tx_hash, msg_index, event_index, time);
CREATE INDEX trades_token_time ON trades (token_address, time DESC);
