// The SSE hub of one API process. It LISTENs for the indexer's NOTIFY, reads the new
// outbox rows once, frames each event once, and writes it to every subscriber whose
// filters match. Event ids are the outbox ids, so any process can resume any client
// from Last-Event-ID. A subscriber that stops reading is dropped once its unsent data
// passes a bound, so a slow client never grows the server's memory.
import type { ServerResponse } from 'node:http';
import type { Database } from '../../db/types.ts';
import type { Logger } from '../../internal/logger.ts';
import { FEED_CHANNEL } from '../../indexer/write-batch.ts';

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
  /** Live frames held back while the subscriber's replay is being written. */
  backlog: FeedEvent[] | null;
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

export function frameOf(row: { id: number | string; event: string; data: string }): string {
  return `id: ${row.id}\nevent: ${row.event}\ndata: ${row.data}\n\n`;
}

export function createFeedHub({ db, logger, keepaliveMs = 15_000, maxBufferedBytes = 1 << 20, replayLimit = 10_000, onEvents, onChange }: FeedHubOptions) {
  const subscribers = new Set<Subscriber>();
  let lastId = 0;
  let reading: Promise<void> | undefined;
  let readAgain = false;
  let unlisten: (() => Promise<void>) | undefined;
  let keepalive: NodeJS.Timeout | undefined;
  let dropped = 0;

  const rowsAfter = (after: number, limit: number) =>
    db.query<{ id: number; event: string; token_address: string; data: string }>(
      `SELECT id, event, token_address, data::text AS data FROM feed_events WHERE id > $1 ORDER BY id LIMIT $2`,
      [after, limit],
    );
  const toEvent = (r: { id: number; event: string; token_address: string; data: string }): FeedEvent => ({ id: Number(r.id), event: r.event, tokenAddress: r.token_address, frame: frameOf(r) });

  const drop = (s: Subscriber, reason: string) => {
    subscribers.delete(s);
    dropped++;
    logger.info({ reason, buffered_bytes: s.res.writableLength }, 'Dropped an SSE subscriber');
    s.res.destroy();
  };

  const write = (s: Subscriber, frame: string) => {
    if (subscribers.has(s)) s.res.write(frame);
  };

  /**
   * Data still unsent from earlier pages means the client is not keeping up: a page is
   * written in one go (so up to a page may be queued at any time), and what is left of it
   * by the next page has had the event loop's turns to drain.
   */
  const keepingUp = (s: Subscriber): boolean => {
    if (s.res.writableLength <= maxBufferedBytes) return true;
    drop(s, 'client is not reading');
    return false;
  };

  const dispatch = (events: readonly FeedEvent[]) => {
    for (const s of subscribers) {
      if (!s.backlog && !keepingUp(s)) continue;
      for (const e of events) {
        if (!s.filter(e)) continue;
        if (s.backlog) s.backlog.push(e);
        else write(s, e.frame);
      }
    }
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
          const rows = await rowsAfter(lastId, PAGE);
          if (rows.length === 0) break;
          const events = rows.map(toEvent);
          lastId = events.at(-1)!.id;
          dispatch(events);
          onEvents?.(events);
          if (rows.length < PAGE) break;
        }
      } while (readAgain);
    })()
      .catch((error) => logger.warn({ err: error }, 'Reading the feed outbox failed; will retry on the next notification'))
      .finally(() => (reading = undefined));
    return reading;
  };

  return {
    async start() {
      const [row] = await db.query<{ high: number | null }>(`SELECT max(id) AS high FROM feed_events`);
      lastId = Number(row?.high ?? 0);
      unlisten = await db.listen(FEED_CHANNEL, (payload) => {
        if (payload.startsWith('token:')) onChange?.({ token: payload.slice(6) });
        else if (!/^\d+$/.test(payload)) onChange?.('anything');
        else void readNew();
      });
      keepalive = setInterval(() => {
        for (const s of subscribers) if (keepingUp(s)) write(s, ': keepalive\n\n');
      }, keepaliveMs);
      keepalive.unref();
    },

    /** Registers an open SSE response; replays missed events first when asked to. */
    async subscribe(res: ServerResponse, { lastEventId, tokens, events }: SubscribeOptions = {}) {
      const s: Subscriber = {
        res,
        filter: (e) => (!tokens || tokens.has(e.tokenAddress)) && (!events || events.has(e.event)),
        backlog: lastEventId !== undefined ? [] : null,
      };
      const upTo = lastId; // events after this arrive live (held in the backlog meanwhile)
      subscribers.add(s);
      res.on('close', () => subscribers.delete(s));
      if (lastEventId === undefined || lastEventId >= upTo) {
        if (s.backlog) for (const e of s.backlog.splice(0)) write(s, e.frame);
        s.backlog = null;
        return;
      }
      try {
        let from = lastEventId;
        const [{ n }] = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM feed_events WHERE id > $1 AND id <= $2`, [from, upTo])) as [{ n: number }];
        if (n > replayLimit) {
          // too far behind: say how much is skipped, then send the newest replayLimit events
          const [{ start }] = (await db.query<{ start: number }>(`SELECT id AS start FROM feed_events WHERE id <= $1 ORDER BY id DESC OFFSET $2 LIMIT 1`, [upTo, replayLimit])) as [{ start: number }];
          write(s, `event: gap\ndata: ${JSON.stringify({ missed: n - replayLimit, after_id: from, resume_id: Number(start) })}\n\n`);
          from = Number(start);
        }
        while (from < upTo && subscribers.has(s)) {
          const rows = await db.query<{ id: number; event: string; token_address: string; data: string }>(
            `SELECT id, event, token_address, data::text AS data FROM feed_events WHERE id > $1 AND id <= $2 ORDER BY id LIMIT $3`,
            [from, upTo, PAGE],
          );
          if (rows.length === 0 || !keepingUp(s)) break;
          for (const e of rows.map(toEvent)) if (s.filter(e)) write(s, e.frame);
          from = Number(rows.at(-1)!.id);
        }
      } finally {
        if (subscribers.has(s)) for (const e of s.backlog!.splice(0)) write(s, e.frame);
        s.backlog = null;
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
