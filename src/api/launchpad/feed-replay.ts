// The replay for a client that reconnects with Last-Event-ID: the outbox rows it missed that
// it takes (its filters), written to its response before it goes live, bounded by the replay
// limit and by what the outbox still holds (a `gap` event says what was skipped), a page at a
// time as fast as the client reads them. The hub (feed-hub.ts) holds live events back
// meanwhile (feed-subscribers.ts).
import type { Queryable } from '../../db/types.ts';
import { outboxIdBefore, outboxSpan, readOutboxPage } from '../../feed/outbox.ts';
import type { createSubscribers, Subscriber } from './feed-subscribers.ts';

export interface ReplayOptions {
  db: Queryable;
  subscribers: Pick<ReturnType<typeof createSubscribers>, 'replayKeepingUp' | 'write' | 'writeText' | 'drained'>;
  /** At most this many events are replayed. */
  replayLimit: number;
  /** Outbox rows read at a time. */
  page: number;
  /** Longest a page waits for the client to read the one before (then replayKeepingUp decides whether it is reading). */
  drainMs?: number;
}

export function createReplay({ db, subscribers, replayLimit, page, drainMs = 10_000 }: ReplayOptions) {
  /** Writes the events after `from` up to `upTo` that the subscriber takes, at most replayLimit of them. */
  return async (s: Subscriber, from: number, upTo: number) => {
    const { count, prunedThrough } = await outboxSpan(db, from, upTo, s.taken);
    // what the pruning had deleted when the replay began (told below when the client missed any)
    let pruningKnown = prunedThrough;
    // behind the outbox's retention: what was pruned is not known, so neither is how much
    const pruned = from < prunedThrough;
    const tooMany = count > replayLimit;
    const gap = (missed: number | null, resumeId: number) =>
      subscribers.writeText(
        s,
        `event: gap\ndata: ${JSON.stringify({ missed, after_id: from, resume_id: resumeId })}\n\n`,
      );
    if (pruned || tooMany) {
      const start = tooMany ? await outboxIdBefore(db, upTo, replayLimit, s.taken) : from;
      gap(pruned ? null : count - replayLimit, start);
      from = start;
    }
    while (from < upTo && subscribers.replayKeepingUp(s)) {
      const { events, prunedThrough } = await readOutboxPage(db, from, upTo, page, s.taken);
      // the pruning job ran again while the replay did: what it deleted after `from` is a gap too
      // (the live events after upTo are held back in memory, not read from the outbox)
      if (prunedThrough > from && prunedThrough > pruningKnown) {
        pruningKnown = prunedThrough;
        const resumeId = Math.min(prunedThrough, upTo);
        gap(null, resumeId);
        from = resumeId;
      }
      if (events.length === 0) break;
      for (const e of events) subscribers.write(s, e);
      from = events.at(-1)!.id;
      // a short page held every event up to upTo the client takes: nothing after it to miss
      if (events.length < page) break;
      // the next page once this one is read: a client catching up is not dropped as one not reading
      await subscribers.drained(s, drainMs);
    }
  };
}
