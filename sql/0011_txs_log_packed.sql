-- A tx's log as the node wrote it, when it is long: SDK 0.45 to 0.47 repeat every event of a
-- successful tx in its log (the JSON of its message logs, kilobytes a tx), which as text went
-- to TOAST and made writing a block of such txs several times slower. A log longer than 256
-- bytes is kept here raw-DEFLATE compressed (src/chain/stored-events.ts) and raw_log is ''.
ALTER TABLE txs ADD COLUMN log_packed bytea;
