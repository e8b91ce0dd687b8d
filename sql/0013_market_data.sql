-- Market data (docs/launchpad-api.md "Token"): each token's CW20 total supply as its contract
-- reports it (token_info), read again whenever the index sees the token minted or burnt
-- (supply_stale); and the indexes its holders, a trader's trades and a token's top traders
-- are read by.
ALTER TABLE tokens
  ADD COLUMN total_supply amount,
  ADD COLUMN supply_stale boolean NOT NULL DEFAULT false;
CREATE INDEX tokens_supply_stale ON tokens (address) WHERE supply_stale;

-- a token's holders, largest first (addresses with a positive balance)
CREATE INDEX cw20_balances_token_balance ON cw20_balances (token, balance DESC) WHERE balance > 0;

-- one wallet's trades, newest first
CREATE INDEX trades_trader_time ON trades (trader, time DESC);

-- The native coin's USD price each time the launchpad's oracle set it (set_oracle_price), in
-- chain order: what the USD candles are priced with.
CREATE TABLE native_usd_prices (
  time         timestamptz NOT NULL,  -- block time
  block_height bigint      NOT NULL,
  tx_index     integer     NOT NULL,
  event_index  integer     NOT NULL,
  usd_micro    amount      NOT NULL,  -- micro-USD per display unit of the native coin
  PRIMARY KEY (block_height, tx_index, event_index)
);
CREATE INDEX native_usd_prices_time ON native_usd_prices (time);
