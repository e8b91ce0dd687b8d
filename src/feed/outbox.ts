// The feed_events outbox: the indexer appends a batch's feed rows in the batch's own
// transaction and notifies at commit; API processes read the rows back by id, so any
// process can resume any client from its Last-Event-ID.
import { storableJson } from '../db/nul.ts';
import type { Queryable } from '../db/types.ts';
import type { DomainEvent } from '../domain/events.ts';
import { type FeedEventName, feedRowOf } from './events.ts';
import { notify } from './notice.ts';

/** One outbox row as an SSE client receives it: `frame` is the whole framed event. */
export interface FeedEvent {
  id: number;
  event: FeedEventName;
  tokenAddress: string;
  frame: string;
}

/**
 * Appends the feed rows of a batch's events (a replayed event is stored once, by its
 * event key) and notifies the new high id; returns how many rows were new.
 */
export async function appendToOutbox(tx: Queryable, events: readonly DomainEvent[]): Promise<number> {
  if (events.length === 0) return 0;
  const rows = events.map(feedRowOf);
  const [inserted] = await tx.query<{ n: number; high: string | null }>(
    `WITH ins AS (
       INSERT INTO feed_events (event, token_address, data, event_key, block_height)
       SELECT event, token_address, data::json, event_key, block_height
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[]) AS v(event, token_address, data, event_key, block_height)
       ON CONFLICT (event_key) DO NOTHING
       RETURNING id)
     SELECT count(*)::int AS n, max(id)::text AS high FROM ins`,
    [
      rows.map((r) => r.event),
      rows.map((r) => r.tokenAddress),
      rows.map((r) => storableJson(r.data)),
      rows.map((r) => r.eventKey),
      rows.map((r) => r.blockHeight),
    ],
  );
  if (inserted?.high) await notify(tx, { kind: 'events', highId: Number(inserted.high) });
  return inserted?.n ?? 0;
}

interface OutboxRow {
  id: number;
  /** One of FEED_EVENT_NAMES: the table's CHECK admits no other. */
  event: FeedEventName;
  token_address: string;
  data: string;
}

const toEvent = (r: OutboxRow): FeedEvent => ({
  id: Number(r.id),
  event: r.event,
  tokenAddress: r.token_address,
  frame: `id: ${r.id}\nevent: ${r.event}\ndata: ${r.data}\n\n`,
});

/** Which events a subscriber takes: these tokens' only, these events only (undefined: any). */
export interface OutboxFilter {
  tokens?: ReadonlySet<string>;
  events?: ReadonlySet<FeedEventName>;
}

/** Whether the filter takes the event: what the outbox's reads below select by it. */
export const takes = (filter: OutboxFilter, e: FeedEvent) =>
  (!filter.tokens || filter.tokens.has(e.tokenAddress)) && (!filter.events || filter.events.has(e.event));

/** The filter's SQL condition on feed_events, its parameters numbered from `first`. */
function filterSql(filter: OutboxFilter, first: number): { sql: string; params: (string[] | null)[] } {
  return {
    sql: `($${first}::text[] IS NULL OR token_address = ANY($${first}::text[])) AND ($${first + 1}::text[] IS NULL OR event = ANY($${first + 1}::text[]))`,
    params: [filter.tokens ? [...filter.tokens] : null, filter.events ? [...filter.events] : null],
  };
}

/** The statement of readOutbox: rows after $1, up to $2 unless null, the filter taking them, at most $3. */
const eventsAfter = (filter: string) =>
  `SELECT id, event, token_address, data::text AS data FROM feed_events
   WHERE id > $1 AND ($2::bigint IS NULL OR id <= $2) AND ${filter} ORDER BY id LIMIT $3`;

/** Events after `after` (up to `upTo` when given) that the filter takes, in id order, at most `limit`. */
export async function readOutbox(
  db: Queryable,
  after: number,
  upTo: number | null,
  limit: number,
  filter: OutboxFilter = {},
): Promise<FeedEvent[]> {
  const taken = filterSql(filter, 4);
  const rows = await db.query<OutboxRow>(eventsAfter(taken.sql), [after, upTo, limit, ...taken.params]);
  return rows.map(toEvent);
}

/**
 * readOutbox's events, with the highest id the pruning job had deleted as of the same snapshot
 * (sql/0025_feed_outbox_pruned_through.sql): events after `after` that the page lacks were
 * pruned exactly when that id is past `after` (a replay that raced the pruning job).
 */
export async function readOutboxPage(
  db: Queryable,
  after: number,
  upTo: number,
  limit: number,
  filter: OutboxFilter = {},
): Promise<{ events: FeedEvent[]; prunedThrough: number }> {
  const taken = filterSql(filter, 4);
  // one statement, one snapshot (the job deletes and records in one statement); a row of
  // NULLs carries the pruned id when the page is empty
  const rows = await db.query<(OutboxRow | { id: null }) & { pruned: string | null }>(
    `SELECT e.*, (SELECT through_id FROM feed_events_pruned)::text AS pruned
     FROM (${eventsAfter(taken.sql)}) e
     UNION ALL
     SELECT NULL, NULL, NULL, NULL, (SELECT through_id FROM feed_events_pruned)::text`,
    [after, upTo, limit, ...taken.params],
  );
  const events: FeedEvent[] = [];
  for (const r of rows) if (r.id !== null) events.push(toEvent(r as OutboxRow));
  // rows come in the order the page was read; sorted again in case a plan ever joins them otherwise
  events.sort((a, b) => a.id - b.id);
  return { events, prunedThrough: Number(rows[0]?.pruned ?? 0) };
}

/**
 * The newest id the outbox has held (0: none): its newest row's, or the newest it pruned when
 * a quiet day left it empty (a client behind that id is told of the gap, not taken as ahead).
 */
export async function outboxHighId(db: Queryable): Promise<number> {
  const [row] = await db.query<{ high: string | null }>(
    `SELECT greatest((SELECT max(id) FROM feed_events), (SELECT through_id FROM feed_events_pruned))::text AS high`,
  );
  return Number(row?.high ?? 0);
}

/**
 * How many events the filter takes in (after, upTo], and the highest id the outbox's pruning
 * deleted (sql/0025_feed_outbox_pruned_through.sql): a client at `after` below it missed
 * events no longer kept. Ids have holes (rolled-back batches), so the oldest id kept says
 * nothing of what was pruned.
 */
export async function outboxSpan(db: Queryable, after: number, upTo: number, filter: OutboxFilter = {}) {
  const taken = filterSql(filter, 3);
  const [row] = await db.query<{ n: number; pruned: string | null }>(
    `SELECT (SELECT count(*)::int FROM feed_events WHERE id > $1 AND id <= $2 AND ${taken.sql}) AS n,
            (SELECT through_id FROM feed_events_pruned)::text AS pruned`,
    [after, upTo, ...taken.params],
  );
  return { count: Number(row!.n), prunedThrough: Number(row!.pruned ?? 0) };
}

/** The id `skip` events the filter takes before `upTo` (where a replay limited to `skip` events starts after). */
export async function outboxIdBefore(
  db: Queryable,
  upTo: number,
  skip: number,
  filter: OutboxFilter = {},
): Promise<number> {
  const taken = filterSql(filter, 3);
  const [row] = await db.query<{ id: number }>(
    `SELECT id FROM feed_events WHERE id <= $1 AND ${taken.sql} ORDER BY id DESC OFFSET $2 LIMIT 1`,
    [upTo, skip, ...taken.params],
  );
  return Number(row!.id);
}
