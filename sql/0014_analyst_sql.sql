-- SQL for analysts (docs/sql.md): views for the questions they ask, and a role that may read
-- exactly the relations POST /api/sql allows (src/api/launchpad/sql/allow-list.ts) and nothing
-- else. Amounts are in the chain's base units, prices in base units of the native coin per whole
-- token scaled by 10^6, as everywhere in the index (docs/indexing.md "Numbers").

-- Volume, trades and OHLC per token and UTC day, with the token's name and symbol.
CREATE VIEW daily_volume AS
SELECT c.bucket::date    AS day,
       c.token_address,
       t.symbol,
       t.name,
       c.volume          AS volume_unative,
       c.trade_count,
       c.open, c.high, c.low, c.close
FROM candles_1d c
LEFT JOIN tokens t ON t.address = c.token_address;

-- The candles of each interval with the token's name and symbol.
CREATE VIEW ohlcv_1m AS
SELECT c.bucket, c.token_address, t.symbol, t.name, c.open, c.high, c.low, c.close, c.volume AS volume_unative, c.trade_count
FROM candles_1m c LEFT JOIN tokens t ON t.address = c.token_address;
CREATE VIEW ohlcv_5m AS
SELECT c.bucket, c.token_address, t.symbol, t.name, c.open, c.high, c.low, c.close, c.volume AS volume_unative, c.trade_count
FROM candles_5m c LEFT JOIN tokens t ON t.address = c.token_address;
CREATE VIEW ohlcv_1h AS
SELECT c.bucket, c.token_address, t.symbol, t.name, c.open, c.high, c.low, c.close, c.volume AS volume_unative, c.trade_count
FROM candles_1h c LEFT JOIN tokens t ON t.address = c.token_address;
CREATE VIEW ohlcv_1d AS
SELECT c.bucket, c.token_address, t.symbol, t.name, c.open, c.high, c.low, c.close, c.volume AS volume_unative, c.trade_count
FROM candles_1d c LEFT JOIN tokens t ON t.address = c.token_address;

-- Each graduated token: when it launched (its creating block) and graduated, and how long that took.
CREATE VIEW graduations AS
SELECT address AS token_address, symbol, name, created_at, graduated_at,
       graduated_at - created_at AS time_to_graduate
FROM tokens
WHERE graduated;

-- Addresses with a positive balance of each token (cw20_balances is signed: see docs/indexing.md).
CREATE VIEW token_holders AS
SELECT b.token AS token_address, b.holder, b.balance
FROM cw20_balances b
WHERE b.balance > 0;

-- Per trader, token and UTC day: trades, buys, sells and volume. A filter on day reaches the
-- trades' time (TimescaleDB reads only the chunks of those days).
CREATE VIEW trader_daily_volume AS
SELECT time_bucket(INTERVAL '1 day', time)::date AS day,
       trader,
       token_address,
       count(*)                                                      AS trades,
       count(*) FILTER (WHERE direction = 'native_to_token')          AS buys,
       count(*) FILTER (WHERE direction = 'token_to_native')          AS sells,
       sum(volume_unative)                                           AS volume_unative
FROM trades
GROUP BY 1, 2, 3;

-- The traders of the last 24 hours, by volume.
CREATE VIEW top_traders_24h AS
SELECT trader,
       count(*)                                             AS trades,
       count(*) FILTER (WHERE direction = 'native_to_token') AS buys,
       count(*) FILTER (WHERE direction = 'token_to_native') AS sells,
       count(DISTINCT token_address)                        AS tokens,
       sum(volume_unative)                                  AS volume_unative
FROM trades
WHERE time > now() - INTERVAL '24 hours'
GROUP BY trader
ORDER BY volume_unative DESC;

-- The analyst role: NOLOGIN, SELECT on the allow-list only. Roles belong to the whole server, so
-- another database's migration may have made it; a service user that may not create roles skips
-- this (POST /api/sql then relies on the allow-list alone, and says so in its log).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'launchpad_analyst') THEN
    CREATE ROLE launchpad_analyst NOLOGIN;
  END IF;
EXCEPTION
  WHEN duplicate_object OR unique_violation THEN NULL;
  WHEN insufficient_privilege THEN RAISE NOTICE 'launchpad_analyst not created: %', SQLERRM;
END $$;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'launchpad_analyst') THEN
    EXECUTE format('GRANT USAGE ON SCHEMA %I TO launchpad_analyst', current_schema());
    GRANT SELECT ON tokens, trades, candles_1m, candles_5m, candles_1h, candles_1d, native_usd_prices,
      cw20_balances, blocks, txs, tx_attributes, daily_volume, ohlcv_1m, ohlcv_5m, ohlcv_1h, ohlcv_1d,
      graduations, token_holders, trader_daily_volume, top_traders_24h
    TO launchpad_analyst;
    -- the service's own user acts as the role (SET ROLE) when it runs a query for an analyst
    IF NOT pg_has_role(current_user, 'launchpad_analyst', 'MEMBER') THEN
      EXECUTE format('GRANT launchpad_analyst TO %I', current_user);
    END IF;
  END IF;
EXCEPTION
  WHEN insufficient_privilege THEN RAISE NOTICE 'launchpad_analyst not granted: %', SQLERRM;
END $$;
