// The SSE subscribers of one API process: who gets which event, what each has been sent,
// and the bound on what a subscriber may leave unread before it is dropped, so a slow
// client never grows the server's memory. The hub (feed-hub.ts) reads the outbox and
// hands events here.
import type { ServerResponse } from 'node:http';
import { type FeedEvent, type OutboxFilter, takes } from '../../feed/outbox.ts';
import type { Logger } from '../../internal/logger.ts';

export interface Subscriber {
  res: ServerResponse;
  /** The events it takes (live, and as the outbox reads them for its replay). */
  taken: OutboxFilter;
  /** The client has every event up to this id (it may be ahead of this process). */
  after: number;
  /**
   * The last id the client was sent (an event's, or an `id:` line's): the Last-Event-ID it
   * would reconnect with. Behind `after` while the events since were none it takes.
   */
  idSent: number;
  /** Live events held back while the subscriber's replay is being written, and their size. */
  backlog: FeedEvent[] | null;
  backlogBytes: number;
}

/** Longest the hub waits for its readers to drain a page before reading the next. */
const PACE_MS = 1000;

export function createSubscribers({ logger, maxBufferedBytes }: { logger: Logger; maxBufferedBytes: number }) {
  const subscribers = new Set<Subscriber>();
  let dropped = 0;

  const drop = (s: Subscriber, reason: string) => {
    if (!subscribers.delete(s)) return;
    dropped++;
    logger.info({ reason, buffered_bytes: s.res.writableLength + s.backlogBytes }, 'Dropped an SSE subscriber');
    s.res.destroy();
  };

  /**
   * Data still unsent from earlier pages means the client is not keeping up: a page is
   * written in one go (so up to a page may be queued at any time), and what is left of it
   * by the next page has had the event loop's turns to drain. While a subscriber is being
   * replayed to, its replay paces itself (a page, then the wait for it to be read: `drained`)
   * and says when it is behind (`replayKeepingUp`); until then only the live events held back
   * for it count.
   */
  const keepingUp = (s: Subscriber): boolean => {
    if (!subscribers.has(s)) return false;
    const unsent = s.backlog ? s.backlogBytes : s.res.writableLength;
    if (unsent <= maxBufferedBytes) return true;
    drop(s, 'client is not reading');
    return false;
  };

  /** keepingUp for a subscriber being replayed to, once its replay waited for its last page to be read. */
  const replayKeepingUp = (s: Subscriber): boolean => {
    if (!subscribers.has(s)) return false;
    if (s.res.writableLength + s.backlogBytes <= maxBufferedBytes) return true;
    drop(s, 'client is not reading');
    return false;
  };

  const write = (s: Subscriber, e: FeedEvent) => {
    if (subscribers.has(s) && e.id > s.after && takes(s.taken, e)) {
      s.res.write(e.frame);
      s.idSent = e.id;
    }
  };

  /** Writes text that is no event (a gap, an `id:` line) to a subscriber still served. */
  const writeText = (s: Subscriber, text: string) => {
    if (subscribers.has(s) && !s.res.writableEnded) s.res.write(text);
  };

  /**
   * Resolves once the subscriber has sent what it was given (or closed), or after `ms`: a
   * replay writes its next page only then, as the hub does (paced).
   */
  const drained = (s: Subscriber, ms: number): Promise<void> | undefined => {
    // 'drain' comes only after a write that filled the socket's buffer (write() said false)
    if (!s.res.writableNeedDrain || !subscribers.has(s)) return undefined;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        s.res.off('drain', done);
        s.res.off('close', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      s.res.once('drain', done);
      s.res.once('close', done);
    });
  };

  return {
    keepingUp,
    replayKeepingUp,
    write,
    writeText,
    drained,

    add(s: Subscriber) {
      subscribers.add(s);
      s.res.on('close', () => subscribers.delete(s));
    },

    /** Writes live events to every subscriber (held in the backlog of one being replayed to). */
    dispatch(events: readonly FeedEvent[]) {
      for (const s of subscribers) {
        if (!keepingUp(s)) continue;
        if (!s.backlog) {
          for (const e of events) write(s, e);
          s.after = Math.max(s.after, events.at(-1)?.id ?? 0);
          continue;
        }
        for (const e of events) {
          s.backlog.push(e);
          s.backlogBytes += e.frame.length;
        }
      }
    },

    /** Ends a replay: what arrived live meanwhile is written now, and the subscriber is live. */
    goLive(s: Subscriber, upTo: number) {
      const held = s.backlog ?? [];
      s.backlog = null;
      s.backlogBytes = 0;
      s.after = upTo;
      for (const e of held) write(s, e);
      s.after = Math.max(upTo, held.at(-1)?.id ?? 0);
    },

    /**
     * The hub reads no faster than its readers: after a page, it waits (at most PACE_MS)
     * until every subscriber has sent what it was given. A fast database would otherwise
     * queue a burst of pages at once and drop clients that are reading. One that is not
     * reading falls behind by a page per wait and is dropped by keepingUp.
     */
    paced(): Promise<void> | undefined {
      const waits = [...subscribers].flatMap((s) => drained(s, PACE_MS) ?? []);
      return waits.length === 0 ? undefined : Promise.all(waits).then(() => {});
    },

    /**
     * A comment to every subscriber, with the id it has reached when the events since the
     * last it was sent are none it takes: a filtered client then reconnects from there, and
     * is not replayed (or told of a gap in) events it does not take.
     */
    keepalive() {
      for (const s of subscribers) {
        // a replay is sending data: no comment between its events
        if (!keepingUp(s) || s.backlog) continue;
        const reached = s.after > s.idSent;
        s.res.write(`: keepalive\n${reached ? `id: ${s.after}\n` : ''}\n`);
        if (reached) s.idSent = s.after;
      }
    },

    endAll() {
      for (const s of subscribers) s.res.end();
      subscribers.clear();
    },

    stats: () => ({ subscribers: subscribers.size, dropped }),
  };
}
