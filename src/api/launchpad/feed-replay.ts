// The replay for a client that reconnects with Last-Event-ID: the outbox rows it missed,
// written to its response before it goes live, bounded by the replay limit and by what the
// outbox still holds (a `gap` event says what was skipped). The hub (feed-hub.ts) holds
// live events back meanwhile (feed-subscribers.ts).
import type { Queryable } from '../../db/types.ts';
import { outboxIdBefore, outboxSpan, readOutbox } from '../../feed/outbox.ts';
import type { createSubscribers, Subscriber } from './feed-subscribers.ts';

export interface ReplayOptions {
  db: Queryable;
  subscribers: Pick<ReturnType<typeof createSubscribers>, 'keepingUp' | 'write'>;
  /** At most this many events are replayed. */
  replayLimit: number;
  /** Outbox rows read at a time. */
  page: number;
}

export function createReplay({ db, subscribers, replayLimit, page }: ReplayOptions) {
  /** Writes the events after `from` up to `upTo` to one subscriber, at most replayLimit of them. */
  return async (s: Subscriber, from: number, upTo: number) => {
    const { count, oldest } = await outboxSpan(db, from, upTo);
    if (count > replayLimit || (oldest !== null && from < oldest - 1)) {
      // too far behind, or behind the outbox's retention: say so, then resume from what is there
      const start = count > replayLimit ? await outboxIdBefore(db, upTo, replayLimit) : from;
      const gap = { missed: count > replayLimit ? count - replayLimit : null, after_id: from, resume_id: start };
      s.res.write(`event: gap\ndata: ${JSON.stringify(gap)}\n\n`);
      from = start;
    }
    while (from < upTo && subscribers.keepingUp(s)) {
      const events = await readOutbox(db, from, upTo, page);
      if (events.length === 0) break;
      for (const e of events) subscribers.write(s, e);
      from = events.at(-1)!.id;
    }
  };
}
