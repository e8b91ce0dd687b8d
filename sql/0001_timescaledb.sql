-- TimescaleDB provides hypertables, continuous aggregates and the job scheduler.
CREATE EXTENSION IF NOT EXISTS timescaledb;

-- Token and native amounts are unsigned integers of up to 256 bits in micro-units.
-- numeric keeps them exact; the check rejects fractions and negatives instead of rounding.
CREATE DOMAIN amount AS numeric CHECK (VALUE >= 0 AND scale(VALUE) = 0);
