-- The SSE replay (src/api/launchpad/feed-replay.ts) tells a client resuming from an id
-- whether events after it were pruned. It used to guess from the oldest id kept: an id below
-- it was taken as pruned. Ids have holes (a batch whose transaction rolled back, a replayed
-- event skipped by its key), so a client whose last event sat just below a hole was told of a
-- gap it did not have; and once the outbox was empty (a quiet day pruned whole) a client
-- behind it was told of none. The pruning job now records the highest id it deleted: a
-- client missed pruned events exactly when its id is below that.
-- no row deleted meanwhile (a server's pruning job) goes unrecorded
LOCK TABLE feed_events IN SHARE ROW EXCLUSIVE MODE;

CREATE TABLE feed_events_pruned (
  singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  through_id bigint  NOT NULL -- the highest id the pruning job deleted (0: none)
);

-- What an upgraded database knows: below its oldest row anything may have been pruned; an
-- empty outbox may have had every id its sequence gave out.
INSERT INTO feed_events_pruned (through_id)
SELECT coalesce(
  (SELECT min(id) - 1 FROM feed_events),
  (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM feed_events_id_seq));

CREATE OR REPLACE PROCEDURE prune_feed_events(job_id integer, config jsonb)
LANGUAGE sql AS $$
  WITH gone AS (
    DELETE FROM feed_events
    WHERE created_at < now() - coalesce((config->>'keep')::interval, INTERVAL '1 day')
    RETURNING id)
  UPDATE feed_events_pruned SET through_id = greatest(through_id, (SELECT max(id) FROM gone))
  WHERE EXISTS (SELECT FROM gone);
$$;
