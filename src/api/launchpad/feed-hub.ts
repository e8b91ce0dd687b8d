// The SSE hub of one API process. It LISTENs for the indexer's NOTIFY, reads the new
// outbox rows once (src/feed/outbox.ts), and hands each framed event to the subscribers
// (feed-subscribers.ts). Event ids are the outbox ids, so any process can resume any
// client from Last-Event-ID: a reconnecting client is first replayed what it missed
// (feed-replay.ts).
import type { ServerResponse } from 'node:http';
import type { Database } from '../../db/types.ts';
import type { FeedEventName } from '../../feed/events.ts';
import { type DomainChange, decodeNotice, FEED_CHANNEL } from '../../feed/notice.ts';
import { outboxHighId, readOutbox } from '../../feed/outbox.ts';
import type { Logger } from '../../internal/logger.ts';
import { createReplay } from './feed-replay.ts';
import { createSubscribers, type Subscriber } from './feed-subscribers.ts';

export interface SubscribeOptions {
  /** Replay events after this id first (Last-Event-ID). */
  lastEventId?: number;
  tokens?: ReadonlySet<string>;
  events?: ReadonlySet<FeedEventName>;
}

export interface FeedHubOptions {
  db: Database;
  logger: Logger;
  keepaliveMs?: number;
  /** Unsent bytes after which a subscriber is dropped. */
  maxBufferedBytes?: number;
  /** At most this many events are replayed to a reconnecting client. */
  replayLimit?: number;
  /**
   * Called with each change to the index: the tokens of every batch of new feed events (as
   * `trades`), and each change the indexer announced (src/feed/notice.ts); `anything` when
   * notices may have been missed (the subscription was re-established).
   */
  onChange?: (change: DomainChange) => void;
}

const PAGE = 1000;
/** A failed read of the outbox is tried again after this long, doubling up to the most. */
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

export function createFeedHub({
  db,
  logger,
  keepaliveMs = 15_000,
  maxBufferedBytes = 1 << 20,
  replayLimit = 10_000,
  onChange,
}: FeedHubOptions) {
  const subscribers = createSubscribers({ logger, maxBufferedBytes });
  const replay = createReplay({ db, subscribers, replayLimit, page: PAGE });
  let lastId = 0;
  let reading: Promise<void> | undefined;
  let readAgain = false;
  let unlisten: (() => Promise<void>) | undefined;
  let keepalive: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let retryMs = 0;
  let stopped = false;

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
          const events = await readOutbox(db, lastId, null, PAGE);
          if (events.length === 0) break;
          lastId = events.at(-1)!.id;
          subscribers.dispatch(events);
          onChange?.({ kind: 'trades', tokens: [...new Set(events.map((e) => e.tokenAddress))] });
          if (events.length < PAGE) break;
          await subscribers.paced();
        }
      } while (readAgain);
    })()
      .then(() => {
        retryMs = 0;
      })
      .catch((error) => {
        if (stopped) return;
        // read again after a while (a pool connection a proxy closed, a statement timeout), not
        // only on the next notification: a quiet chain may send none for minutes
        retryMs = Math.min(Math.max(retryMs * 2, RETRY_MIN_MS), RETRY_MAX_MS);
        logger.warn({ err: error, retry_ms: retryMs }, 'Reading the feed outbox failed; reading again');
        clearTimeout(retry);
        retry = setTimeout(() => void readNew(), retryMs);
        retry.unref();
      })
      .finally(() => (reading = undefined));
    return reading;
  };

  return {
    async start() {
      lastId = await outboxHighId(db);
      unlisten = await db.listen(
        FEED_CHANNEL,
        (payload) => {
          const notice = decodeNotice(payload);
          if (notice.kind === 'events') void readNew();
          else onChange?.(notice);
        },
        () => {
          // (re)subscribed: what was committed while not listening is read now
          onChange?.({ kind: 'anything' });
          void readNew();
        },
      );
      keepalive = setInterval(() => subscribers.keepalive(), keepaliveMs);
      keepalive.unref();
    },

    /** Registers an open SSE response; replays missed events first when asked to. */
    async subscribe(res: ServerResponse, { lastEventId, tokens, events }: SubscribeOptions = {}) {
      const upTo = lastId; // events after this arrive live (held in the backlog meanwhile)
      const resuming = lastEventId !== undefined && lastEventId < upTo;
      const ahead = lastEventId !== undefined && lastEventId > upTo;
      const s: Subscriber = {
        res,
        taken: { tokens, events },
        after: lastEventId ?? upTo,
        idSent: lastEventId ?? upTo,
        backlog: resuming || ahead ? [] : null,
        backlogBytes: 0,
      };
      subscribers.add(s);
      if (ahead) {
        // The id came from a process further ahead: skip what the client has, unless the
        // outbox never held that id (a database started afresh): then the client is told the
        // newest id there is (an `id:` line), so that it resumes from there, and sent all that
        // is new. Live events meanwhile wait in its backlog.
        let after = lastEventId;
        try {
          after = Math.min(lastEventId, await outboxHighId(db));
          if (after < lastEventId) {
            subscribers.writeText(s, `id: ${after}\n\n`);
            s.idSent = after;
          }
        } finally {
          subscribers.goLive(s, after);
        }
        return;
      }
      if (!resuming) return;
      try {
        await replay(s, lastEventId, upTo);
      } catch (error) {
        // a replay cut short leaves a hole: the client must not go live past it, but reconnect
        // with the id it has and be replayed again
        logger.warn({ err: error }, 'Replaying the feed to a client failed; closing its stream');
        res.destroy();
        return;
      }
      subscribers.goLive(s, upTo);
    },

    stats: () => ({ ...subscribers.stats(), lastEventId: lastId }),

    async stop() {
      stopped = true;
      clearInterval(keepalive);
      clearTimeout(retry);
      await unlisten?.();
      await reading;
      subscribers.endAll();
    },
  };
}

export type FeedHub = ReturnType<typeof createFeedHub>;
