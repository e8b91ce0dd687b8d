-- OHLCV candles: continuous aggregates 1m -> 5m -> 1h -> 1d, UTC-aligned buckets.
-- Many trades share one block time, so open and close are chosen by the ordering key
-- seq = (block_height, tx_index, event_index), never by time alone. Real-time aggregation
-- (materialized_only = false) makes a trade visible in its candle as soon as it is committed.

CREATE MATERIALIZED VIEW candles_1m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT token_address,
       time_bucket(INTERVAL '1 minute', time)                  AS bucket,
       first(price_unative, seq) AS open,
       max(price_unative)                                        AS high,
       min(price_unative)                                        AS low,
       last(price_unative, seq) AS close,
       sum(volume_unative)                                       AS volume,
       count(*)                                                  AS trade_count
FROM trades
GROUP BY token_address, bucket
WITH NO DATA;

CREATE MATERIALIZED VIEW candles_5m
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT token_address,
       time_bucket(INTERVAL '5 minutes', bucket) AS bucket,
       first(open, bucket)                       AS open,
       max(high)                                 AS high,
       min(low)                                  AS low,
       last(close, bucket)                       AS close,
       sum(volume)                               AS volume,
       sum(trade_count)::bigint                  AS trade_count
FROM candles_1m
GROUP BY token_address, 2
WITH NO DATA;

CREATE MATERIALIZED VIEW candles_1h
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT token_address,
       time_bucket(INTERVAL '1 hour', bucket) AS bucket,
       first(open, bucket)                    AS open,
       max(high)                              AS high,
       min(low)                               AS low,
       last(close, bucket)                    AS close,
       sum(volume)                            AS volume,
       sum(trade_count)::bigint               AS trade_count
FROM candles_5m
GROUP BY token_address, 2
WITH NO DATA;

CREATE MATERIALIZED VIEW candles_1d
WITH (timescaledb.continuous, timescaledb.materialized_only = false) AS
SELECT token_address,
       time_bucket(INTERVAL '1 day', bucket) AS bucket,
       first(open, bucket)                   AS open,
       max(high)                             AS high,
       min(low)                              AS low,
       last(close, bucket)                   AS close,
       sum(volume)                           AS volume,
       sum(trade_count)::bigint              AS trade_count
FROM candles_1h
GROUP BY token_address, 2
WITH NO DATA;

-- Retention drops whole chunks, so day-sized chunks keep it close to exactly 90 days.
SELECT set_chunk_time_interval(format('%I.%I', materialization_hypertable_schema, materialization_hypertable_name)::regclass, INTERVAL '1 day')
FROM timescaledb_information.continuous_aggregates
WHERE view_name IN ('candles_1m', 'candles_5m', 'candles_1h', 'candles_1d');

SELECT add_retention_policy(view_name::regclass, drop_after => INTERVAL '90 days', schedule_interval => INTERVAL '1 hour')
FROM (VALUES ('candles_1m'), ('candles_5m'), ('candles_1h'), ('candles_1d')) AS v(view_name);
