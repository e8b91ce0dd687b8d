-- A successful tx's log on SDK 0.45 to 0.47 repeats its events (the JSON of its message
-- logs). When the log is exactly what its events rebuild (src/chain/message-logs.ts),
-- only the form of that JSON is kept: 'by-type' (SDK 0.45: each message's events grouped by
-- type) or 'as-emitted' (SDK 0.46 and 0.47); raw_log is then '' and log_packed NULL, and
-- the log is rebuilt from `events` when served. NULL: raw_log or log_packed holds the log.
ALTER TABLE txs ADD COLUMN log_form text CHECK (log_form IN ('by-type', 'as-emitted'));
