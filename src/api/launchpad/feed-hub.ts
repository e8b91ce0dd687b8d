// The SSE hub of one API process. It LISTENs for the indexer's NOTIFY, reads the new
// outbox rows once, frames each event once, and writes it to every subscriber whose
// filters match. Event ids are the outbox ids, so any process can resume any client
// from Last-Event-ID. A subscriber that stops reading is dropped once its unsent data
// passes a bound, so a slow client never grows the server's memory.
import type { ServerResponse } from 'node:http';
import type { Database } from '../../db/types.ts';
import { decodeNotice, FEED_CHANNEL } from '../../indexer/feed-notice.ts';
import type { Logger } from '../../internal/logger.ts';

export interface FeedEvent {
  id: number;
  event: string;
  tokenAddress: string;
  frame: string;
}

export interface SubscribeOptions {
  /** Replay events after this id first (Last-Event-ID). */
  lastEventId?: number;
  tokens?: ReadonlySet<string>;
  events?: ReadonlySet<string>;
}

interface Subscriber {
  res: ServerResponse;
  filter: (e: FeedEvent) => boolean;
  /** The client has every event up to this id (it may be ahead of this process). */
  after: number;
  /** Live events held back while the subscriber's replay is being written, and their size. */
  backlog: FeedEvent[] | null;
  backlogBytes: number;
}

export interface FeedHubOptions {
  db: Database;
  logger: Logger;
  keepaliveMs?: number;
  /** Unsent bytes after which a subscriber is dropped. */
  maxBufferedBytes?: number;
  /** At most this many events are replayed to a reconnecting client. */
  replayLimit?: number;
  /** Called with every batch of new events (the response cache invalidates on it). */
  onEvents?: (events: readonly FeedEvent[]) => void;
  /**
   * Called when indexed data changed without feed events: one token's metadata
   * (`token`), or anything at all (a backfill).
   */
  onChange?: (change: { token: string } | 'anything') => void;
}

const PAGE = 1000;
/** Longest the hub waits for its readers to drain a page before reading the next. */
const PACE_MS = 1000;

interface OutboxRow {
  id: number;
  event: string;
  token_address: string;
  data: string;
}

const toEvent = (r: OutboxRow): FeedEvent => ({
  id: Number(r.id),
  event: r.event,
  tokenAddress: r.token_address,
  frame: `id: ${r.id}\nevent: ${r.event}\ndata: ${r.data}\n\n`,
});

export function createFeedHub({
  db,
  logger,
  keepaliveMs = 15_000,
  maxBufferedBytes = 1 << 20,
  replayLimit = 10_000,
  onEvents,
  onChange,
}: FeedHubOptions) {
  const subscribers = new Set<Subscriber>();
  let lastId = 0;
  let reading: Promise<void> | undefined;
  let readAgain = false;
  let unlisten: (() => Promise<void>) | undefined;
  let keepalive: NodeJS.Timeout | undefined;
  let dropped = 0;

  /** Outbox events after `after` (up to `upTo` when given), in id order. */
  const outbox = async (after: number, upTo: number | null, limit: number) =>
    (
      await db.query<OutboxRow>(
        `SELECT id, event, token_address, data::text AS data FROM feed_events WHERE id > $1 AND ($2::bigint IS NULL OR id <= $2) ORDER BY id LIMIT $3`,
        [after, upTo, limit],
      )
    ).map(toEvent);

  const drop = (s: Subscriber, reason: string) => {
    subscribers.delete(s);
    dropped++;
    logger.info({ reason, buffered_bytes: s.res.writableLength + s.backlogBytes }, 'Dropped an SSE subscriber');
    s.res.destroy();
  };

  const write = (s: Subscriber, e: FeedEvent) => {
    if (subscribers.has(s) && e.id > s.after && s.filter(e)) s.res.write(e.frame);
  };

  /**
   * Data still unsent from earlier pages means the client is not keeping up: a page is
   * written in one go (so up to a page may be queued at any time), and what is left of it
   * by the next page has had the event loop's turns to drain. Live events held back
   * during a replay count too.
   */
  const keepingUp = (s: Subscriber): boolean => {
    if (s.res.writableLength + s.backlogBytes <= maxBufferedBytes) return true;
    drop(s, 'client is not reading');
    return false;
  };

  const dispatch = (events: readonly FeedEvent[]) => {
    for (const s of subscribers) {
      if (!keepingUp(s)) continue;
      if (!s.backlog) {
        for (const e of events) write(s, e);
        continue;
      }
      for (const e of events) {
        s.backlog.push(e);
        s.backlogBytes += e.frame.length;
      }
    }
  };

  /**
   * The hub reads no faster than its readers: after a page, it waits (at most PACE_MS)
   * until every subscriber has sent what it was given. A fast database would otherwise
   * queue a burst of pages at once and drop clients that are reading. One that is not
   * reading falls behind by a page per wait and is dropped by keepingUp.
   */
  const paced = (): Promise<void> | undefined => {
    const behind = [...subscribers].filter((s) => s.res.writableLength > 0);
    if (behind.length === 0) return undefined;
    return new Promise((resolve) => {
      const waiting = new Map(behind.map((s) => [s, () => settle(s)]));
      const timer = setTimeout(() => finish(), PACE_MS);
      const finish = () => {
        clearTimeout(timer);
        for (const [s, on] of waiting) {
          s.res.off('drain', on);
          s.res.off('close', on);
        }
        waiting.clear();
        resolve();
      };
      const settle = (s: Subscriber) => {
        const on = waiting.get(s);
        if (!on) return;
        s.res.off('drain', on);
        s.res.off('close', on);
        waiting.delete(s);
        if (waiting.size === 0) finish();
      };
      for (const [s, on] of waiting) {
        s.res.once('drain', on);
        s.res.once('close', on);
      }
    });
  };

  /** Reads everything after lastId, in pages; one read at a time, re-run if notified meanwhile. */
  const readNew = (): Promise<void> => {
    if (reading) {
      readAgain = true;
      return reading;
    }
    reading = (async () => {
      do {
        readAgain = false;
        for (;;) {
          const events = await outbox(lastId, null, PAGE);
          if (events.length === 0) break;
          lastId = events.at(-1)!.id;
          dispatch(events);
          onEvents?.(events);
          if (events.length < PAGE) break;
          await paced();
        }
      } while (readAgain);
    })()
      .catch((error) =>
        logger.warn({ err: error }, 'Reading the feed outbox failed; will retry on the next notification'),
      )
      .finally(() => (reading = undefined));
    return reading;
  };

  /** Writes the events after `from` up to `upTo` to one subscriber, at most replayLimit of them. */
  const replay = async (s: Subscriber, from: number, upTo: number) => {
    const [{ n, oldest }] = (await db.query<{ n: number; oldest: number | null }>(
      `SELECT (SELECT count(*)::int FROM feed_events WHERE id > $1 AND id <= $2) AS n, (SELECT min(id) FROM feed_events) AS oldest`,
      [from, upTo],
    )) as [{ n: number; oldest: number | null }];
    if (n > replayLimit || (oldest !== null && from < Number(oldest) - 1)) {
      // too far behind, or behind the outbox's retention: say so, then resume from what is there
      const start =
        n > replayLimit
          ? Number(
              (
                await db.query<{ id: number }>(
                  `SELECT id FROM feed_events WHERE id <= $1 ORDER BY id DESC OFFSET $2 LIMIT 1`,
                  [upTo, replayLimit],
                )
              )[0]!.id,
            )
          : from;
      s.res.write(
        `event: gap\ndata: ${JSON.stringify({ missed: n > replayLimit ? n - replayLimit : null, after_id: from, resume_id: start })}\n\n`,
      );
      from = start;
    }
    while (from < upTo && keepingUp(s)) {
      const events = await outbox(from, upTo, PAGE);
      if (events.length === 0) break;
      for (const e of events) write(s, e);
      from = events.at(-1)!.id;
    }
  };

  return {
    async start() {
      const [row] = await db.query<{ high: number | null }>(`SELECT max(id) AS high FROM feed_events`);
      lastId = Number(row?.high ?? 0);
      unlisten = await db.listen(
        FEED_CHANNEL,
        (payload) => {
          const notice = decodeNotice(payload);
          if (notice.kind === 'events') void readNew();
          else onChange?.(notice.kind === 'token' ? { token: notice.address } : 'anything');
        },
        () => {
          // (re)subscribed: what was committed while not listening is read now
          onChange?.('anything');
          void readNew();
        },
      );
      keepalive = setInterval(() => {
        for (const s of subscribers) if (keepingUp(s)) s.res.write(': keepalive\n\n');
      }, keepaliveMs);
      keepalive.unref();
    },

    /** Registers an open SSE response; replays missed events first when asked to. */
    async subscribe(res: ServerResponse, { lastEventId, tokens, events }: SubscribeOptions = {}) {
      const upTo = lastId; // events after this arrive live (held in the backlog meanwhile)
      const s: Subscriber = {
        res,
        filter: (e) => (!tokens || tokens.has(e.tokenAddress)) && (!events || events.has(e.event)),
        after: lastEventId ?? upTo,
        backlog: lastEventId !== undefined && lastEventId < upTo ? [] : null,
        backlogBytes: 0,
      };
      subscribers.add(s);
      res.on('close', () => subscribers.delete(s));
      if (lastEventId !== undefined && lastEventId > upTo) {
        // The id came from a process further ahead: skip what the client has, unless the
        // outbox never held that id (a database started afresh), then send all that is new.
        const [{ high }] = (await db.query<{ high: number | null }>(`SELECT max(id) AS high FROM feed_events`)) as [
          { high: number | null },
        ];
        s.after = Math.min(lastEventId, Number(high ?? 0));
      }
      if (!s.backlog) return;
      try {
        await replay(s, lastEventId!, upTo);
      } finally {
        const held = s.backlog;
        s.backlog = null;
        s.backlogBytes = 0;
        s.after = upTo;
        for (const e of held) write(s, e);
      }
    },

    stats: () => ({ subscribers: subscribers.size, lastEventId: lastId, dropped }),

    async stop() {
      clearInterval(keepalive);
      await unlisten?.();
      await reading;
      for (const s of subscribers) s.res.end();
      subscribers.clear();
    },
  };
}

export type FeedHub = ReturnType<typeof createFeedHub>;
