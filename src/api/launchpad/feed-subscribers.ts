// The SSE subscribers of one API process: who gets which event, what each has been sent,
// and the bound on what a subscriber may leave unread before it is dropped, so a slow
// client never grows the server's memory. The hub (feed-hub.ts) reads the outbox and
// hands events here.
import type { ServerResponse } from 'node:http';
import type { FeedEvent } from '../../feed/outbox.ts';
import type { Logger } from '../../internal/logger.ts';

export interface Subscriber {
  res: ServerResponse;
  filter: (e: FeedEvent) => boolean;
  /** The client has every event up to this id (it may be ahead of this process). */
  after: number;
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
    subscribers.delete(s);
    dropped++;
    logger.info({ reason, buffered_bytes: s.res.writableLength + s.backlogBytes }, 'Dropped an SSE subscriber');
    s.res.destroy();
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

  const write = (s: Subscriber, e: FeedEvent) => {
    if (subscribers.has(s) && e.id > s.after && s.filter(e)) s.res.write(e.frame);
  };

  return {
    keepingUp,
    write,

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
    },

    /**
     * The hub reads no faster than its readers: after a page, it waits (at most PACE_MS)
     * until every subscriber has sent what it was given. A fast database would otherwise
     * queue a burst of pages at once and drop clients that are reading. One that is not
     * reading falls behind by a page per wait and is dropped by keepingUp.
     */
    paced(): Promise<void> | undefined {
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
    },

    keepalive() {
      for (const s of subscribers) if (keepingUp(s)) s.res.write(': keepalive\n\n');
    },

    endAll() {
      for (const s of subscribers) s.res.end();
      subscribers.clear();
    },

    stats: () => ({ subscribers: subscribers.size, dropped }),
  };
}
