// Resuming the SSE feed (src/api/launchpad/feed-hub.ts, feed-replay.ts, feed-subscribers.ts)
// as clients do after a reconnection, on outbox rows written straight into the database and
// announced as the indexer announces them: a filtered client is moved past the events it does
// not take and is told of no gap for them; a client catching up slowly is replayed at its pace,
// not dropped; an id ahead of the outbox is corrected so nothing committed later is skipped;
// a failed read of the outbox is read again without waiting for the next notification; a
// replay the pruning job overtakes is told of the gap.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createFeedHub, type FeedHub } from '../../src/api/launchpad/feed-hub.ts';
import { createReplay } from '../../src/api/launchpad/feed-replay.ts';
import { feed } from '../../src/api/launchpad/routes/feed.ts';
import type { Database } from '../../src/db/types.ts';
import { encodeNotice, FEED_CHANNEL } from '../../src/feed/notice.ts';
import { silentLogger } from '../../src/internal/logger.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { randomAddress } from '../helpers/devnet.ts';
import { openSse } from '../helpers/sse.ts';
import { sleep, waitFor } from '../helpers/wait.ts';

const test = suite<{ t: TestDatabase; key: number }>('launchpad API: resuming the live feed', {
  t: undefined as never,
  key: 0,
});

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
});

test.after(async (ctx) => {
  await ctx.t?.dispose();
});

/** `n` trade events of `token` (each `padding` bytes larger) committed and announced as the indexer does; their last id. */
async function append(ctx: { t: TestDatabase; key: number }, token: string, n: number, padding = 0): Promise<number> {
  const data = JSON.stringify({ token_address: token, padding: 'x'.repeat(padding) });
  const first = ctx.key;
  ctx.key += n;
  return ctx.t.db.transaction(async (tx) => {
    const [row] = await tx.query<{ high: number }>(
      `WITH ins AS (
         INSERT INTO feed_events (event, token_address, data, event_key, block_height)
         SELECT 'trade', $1, $2::json, 'resume:' || i, 0 FROM generate_series($3::int + 1, $3::int + $4::int) AS i RETURNING id)
       SELECT max(id) AS high FROM ins`,
      [token, data, first, n],
    );
    await tx.query(`SELECT pg_notify($1, $2)`, [
      FEED_CHANNEL,
      encodeNotice({ kind: 'events', highId: Number(row!.high) }),
    ]);
    return Number(row!.high);
  });
}

interface Served {
  url: string;
  hub: FeedHub;
  close(): Promise<void>;
}

/** The feed's route over a hub of its own, served as the Launchpad API serves it. */
async function serveFeed(db: Database, options: Partial<Parameters<typeof createFeedHub>[0]> = {}): Promise<Served> {
  const hub = createFeedHub({ db, logger: silentLogger, keepaliveMs: 100, ...options });
  await hub.start();
  const handler = feed(hub);
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    Object.assign(req, { query: Object.fromEntries(url.searchParams), path: url.pathname });
    void handler(req as never, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/sse/feed`,
    hub,
    async close() {
      await hub.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The last id a client of `stream` would reconnect with (an event's, or an `id:` line's). */
const lastIdOf = (blocks: { id?: string }[]) => Number([...blocks].reverse().find((b) => b.id !== undefined)?.id);

test('a filtered client is moved past the events it does not take: no replay of them and no gap on reconnecting', async (ctx) => {
  const served = await serveFeed(ctx.t.db, { replayLimit: 100 });
  try {
    const mine = randomAddress();
    const other = randomAddress();
    const stream = await openSse(`${served.url}?token_address=${mine}`);
    const own = await append(ctx, mine, 1);
    await stream.until(() => stream.events().some((e) => Number(e.id) === own));
    // 150 events of another token while it is connected: more than the replay limit
    const others = await append(ctx, other, 150);
    await stream.until((blocks) => lastIdOf(blocks) === others, 5000);
    assert.ok(
      stream.blocks.some((b) => b.comments.includes('keepalive') && Number(b.id) === others),
      'a keepalive carries the id it has reached',
    );
    assert.is(stream.events().length, 1, 'none of the other events');
    stream.close();

    // reconnecting from the id the keepalive gave, or from its own last event: nothing it takes
    // was missed, so no gap and no event but those it takes after
    const taken: number[] = [];
    for (const from of [others, own]) {
      const again = await openSse(`${served.url}?token_address=${mine}`, { 'Last-Event-ID': String(from) });
      const next = await append(ctx, mine, 1);
      taken.push(next);
      await again.until(() => again.events().some((e) => Number(e.id) === next));
      assert.equal(
        again.events().map((e) => [e.event, Number(e.id)]),
        taken.map((id) => ['trade', id]),
        `from ${from}: its events after it, no gap`,
      );
      again.close();
    }

    // more than the limit of its own events missed: the gap counts those only
    const before = await append(ctx, mine, 1);
    await append(ctx, other, 300);
    const last = await append(ctx, mine, 120);
    // this process has read them (else they reach the client live, where no limit applies)
    assert.ok(await waitFor(() => served.hub.stats().lastEventId === last, 10_000), 'the hub read the outbox');
    const behind = await openSse(`${served.url}?token_address=${mine}`, { 'Last-Event-ID': String(before) });
    await behind.until(() => behind.events().some((e) => Number(e.id) === last));
    const gap = behind.events().find((e) => e.event === 'gap');
    assert.ok(gap, 'a gap');
    assert.is(JSON.parse(gap!.data!).missed, 20, '120 of its events missed, 100 replayed');
    assert.is(behind.events().filter((e) => e.event === 'trade').length, 100);
    behind.close();
  } finally {
    await served.close();
  }
});

/**
 * A client that resumes from `lastEventId` over a raw socket and reads nothing until
 * `resume()`: what it has read so far is `text()`.
 */
async function pausedClient(url: string, lastEventId: number) {
  const socket = new net.Socket();
  const { port } = new URL(url);
  let text = '';
  await new Promise<void>((resolve) => socket.connect(Number(port), '127.0.0.1', resolve));
  socket.setEncoding('utf8');
  socket.pause();
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  socket.write(`GET /api/sse/feed HTTP/1.1\r\nHost: x\r\nLast-Event-ID: ${lastEventId}\r\n\r\n`);
  return { text: () => text, resume: () => socket.resume(), close: () => socket.destroy() };
}

test('a client catching up slowly is replayed a page at a time as it reads, not dropped', async (ctx) => {
  const served = await serveFeed(ctx.t.db, { maxBufferedBytes: 256 * 1024 });
  let client: Awaited<ReturnType<typeof pausedClient>> | undefined;
  try {
    const token = randomAddress();
    const from = await append(ctx, token, 1);
    const last = await append(ctx, token, 5000, 1000); // ~5 MB to replay, more than the sockets' buffers hold
    assert.ok(await waitFor(() => served.hub.stats().lastEventId === last, 10_000), 'the hub read the outbox');
    // a client busy elsewhere for 3 s before it reads: the replay waits for it, page after page
    client = await pausedClient(served.url, from);
    await sleep(3000);
    client.resume();
    const text = client.text;
    assert.ok(
      await waitFor(() => text().includes(`id: ${last}\n`), 30_000, 50),
      `replayed up to ${last} within 30 s (${served.hub.stats().dropped} dropped)`,
    );
    assert.is(served.hub.stats().dropped, 0, 'not dropped');
    assert.is(text().match(/^event: trade$/gm)?.length, 5000, 'every event once');
  } finally {
    client?.close();
    await served.close();
  }
});

test('a Last-Event-ID ahead of the outbox (a database started afresh) is corrected: what is committed later is not skipped', async (ctx) => {
  const served = await serveFeed(ctx.t.db);
  try {
    const token = randomAddress();
    const high = await append(ctx, token, 1);
    const ahead = await openSse(served.url, { 'Last-Event-ID': String(high + 1_000_000) });
    await ahead.until((blocks) => lastIdOf(blocks) === high);
    ahead.close();
    // the client reconnects with the id it was given, after a commit it did not see
    const next = await append(ctx, token, 1);
    const again = await openSse(served.url, { 'Last-Event-ID': String(high) });
    await again.until(() => again.events().some((e) => Number(e.id) === next));
    assert.equal(
      again.events().map((e) => Number(e.id)),
      [next],
    );
    again.close();
  } finally {
    await served.close();
  }
});

test('a failed read of the outbox is read again soon, not only on the next notification', async (ctx) => {
  let failNext = false;
  // the test database, but the outbox's next read fails once (a connection a proxy closed)
  const db = new Proxy(ctx.t.db, {
    get(target, prop, receiver) {
      if (prop !== 'query') return Reflect.get(target, prop, receiver);
      return (text: string, params?: unknown[]) => {
        if (failNext && text.includes('FROM feed_events') && text.includes('id > $1')) {
          failNext = false;
          return Promise.reject(new Error('connection terminated'));
        }
        return target.query(text, params);
      };
    },
  });
  const served = await serveFeed(db);
  try {
    const stream = await openSse(served.url);
    await stream.until((blocks) => blocks.length > 0);
    failNext = true;
    const id = await append(ctx, randomAddress(), 1);
    await stream.until(() => stream.events().some((e) => Number(e.id) === id), 5000);
    assert.is(failNext, false, 'the first read failed');
    stream.close();
  } finally {
    await served.close();
  }
});

/** Every outbox row up to `id` made older than the outbox keeps, then pruned by its job. */
async function pruneThrough(ctx: { t: TestDatabase }, id: number) {
  await ctx.t.db.query(`UPDATE feed_events SET created_at = now() - interval '2 days' WHERE id <= $1`, [id]);
  await ctx.t.db.exec(`CALL prune_feed_events(0, '{"keep": "1 day"}')`);
}

test('a resume at the outbox’s pruning edge is told of a gap exactly when pruned events followed its id, holes in the ids or none, an outbox pruned empty too', async (ctx) => {
  const served = await serveFeed(ctx.t.db);
  try {
    const token = randomAddress();
    const seen = await append(ctx, token, 2);
    // a batch rolled back: ids given out and never committed, a hole after the client's id
    await ctx.t.db
      .transaction(async (tx) => {
        await tx.query(
          `INSERT INTO feed_events (event, token_address, data, event_key, block_height)
           SELECT 'trade', $1, '{}', 'rolled-back:' || i, 0 FROM generate_series(1, 5) AS i`,
          [token],
        );
        throw new Error('rolled back');
      })
      .catch(() => {});
    const kept = await append(ctx, token, 2);
    await pruneThrough(ctx, seen);
    assert.ok(await waitFor(() => served.hub.stats().lastEventId === kept, 10_000), 'the hub read the outbox');

    const replayed = async (from: number, until: number) => {
      const stream = await openSse(served.url, { 'Last-Event-ID': String(from) });
      await stream.until((blocks) => lastIdOf(blocks) === until);
      stream.close();
      return stream.events().map((e) => [e.event, e.event === 'gap' ? JSON.parse(e.data!) : Number(e.id)]);
    };
    // its last event was pruned, then nothing but ids never used: it missed nothing
    assert.equal(
      await replayed(seen, kept),
      [
        ['trade', kept - 1],
        ['trade', kept],
      ],
      'no gap across a hole',
    );
    // one pruned event after its id: a gap whose size is not known
    assert.equal(
      await replayed(seen - 1, kept),
      [
        ['gap', { missed: null, after_id: seen - 1, resume_id: seen - 1 }],
        ['trade', kept - 1],
        ['trade', kept],
      ],
      'a gap',
    );

    // a quiet day pruned the outbox empty: a client behind its last event is told so, and one
    // at it is not taken for one ahead of the outbox, also by a process started afterwards
    await pruneThrough(ctx, kept);
    const later = await serveFeed(ctx.t.db);
    try {
      let edge = kept;
      for (const url of [served.url, later.url]) {
        const behind = await openSse(url, { 'Last-Event-ID': String(edge - 1) });
        await behind.until(() => behind.events().length > 0);
        assert.equal(JSON.parse(behind.events()[0]!.data!), { missed: null, after_id: edge - 1, resume_id: edge - 1 });
        behind.close();
        const current = await openSse(url, { 'Last-Event-ID': String(edge) });
        const next = await append(ctx, token, 1);
        await current.until(() => current.events().some((e) => Number(e.id) === next));
        assert.equal(
          current.events().map((e) => [e.event, Number(e.id)]),
          [['trade', next]],
          'nothing corrected, nothing missed',
        );
        assert.not.ok(
          current.blocks.some((b) => b.id !== undefined && Number(b.id) < edge),
          'no id line below its own',
        );
        current.close();
        // pruned once both processes have read it (a row pruned before a process reads it is
        // one it never sends: a day's delay no process has)
        assert.ok(
          await waitFor(
            () => served.hub.stats().lastEventId === next && later.hub.stats().lastEventId === next,
            10_000,
          ),
          'both processes read it',
        );
        await pruneThrough(ctx, next);
        edge = next;
      }
    } finally {
      await later.close();
    }
  } finally {
    await served.close();
  }
});

test('a filtered replay is told of no gap when the pruning job runs after its last page: a short page held all it takes', async (ctx) => {
  const mine = randomAddress();
  const other = randomAddress();
  const [first, last] = [(await append(ctx, mine, 2)) - 1, await append(ctx, other, 8)];
  const written: string[] = [];
  let pruned = false;
  let pruning: Promise<void> | undefined;
  const subscribers = {
    replayKeepingUp: () => true,
    write: (_s: unknown, e: { id: number }) => {
      written.push(`event ${e.id}`);
      // the job prunes the other token's first events as the page is written
      pruning ??= pruneThrough(ctx, last - 4).then(() => {
        pruned = true;
      });
    },
    writeText: (_s: unknown, text: string) => void written.push(text.trim()),
    drained: () => pruning,
  };
  const replay = createReplay({ db: ctx.t.db, subscribers: subscribers as never, replayLimit: 10_000, page: 1000 });
  await replay({ taken: { tokens: new Set([mine]) } } as never, first - 1, last);
  await pruning;
  assert.ok(pruned, 'the job ran');
  assert.equal(written, [`event ${first}`, `event ${first + 1}`]);
});

test('a replay the pruning job overtakes between two pages tells the client of the gap, and goes on after what was pruned', async (ctx) => {
  const served = await serveFeed(ctx.t.db, { maxBufferedBytes: 256 * 1024, replayLimit: 100_000 });
  let client: Awaited<ReturnType<typeof pausedClient>> | undefined;
  try {
    const token = randomAddress();
    const from = await append(ctx, token, 1);
    const last = await append(ctx, token, 12_000, 1000); // ~12 MB: the first pages fill the sockets’ buffers
    assert.ok(await waitFor(() => served.hub.stats().lastEventId === last, 10_000), 'the hub read the outbox');
    client = await pausedClient(served.url, from);
    // the first page is written and waits for the client to read it; the job prunes past it meanwhile
    await sleep(1000);
    const prunedTo = from + 10_000;
    await pruneThrough(ctx, prunedTo);
    client.resume();
    const text = client.text;
    assert.ok(await waitFor(() => text().includes(`id: ${last}\n`), 30_000, 50), `replayed up to ${last}`);
    const events = text()
      .split('\n\n')
      .map((block) =>
        Object.fromEntries(block.split('\n').map((line) => [line.split(': ')[0], line.slice(line.indexOf(': ') + 2)])),
      )
      .filter((f) => f.event !== undefined)
      .map((f) => (f.event === 'gap' ? ['gap', JSON.parse(f.data!)] : [f.event, Number(f.id)]));
    const gapAt = events.findIndex(([event]) => event === 'gap');
    assert.ok(gapAt > 0, 'a gap after the events written before the job ran');
    const before = events.slice(0, gapAt).map(([, id]) => id as number);
    assert.equal(
      before,
      Array.from({ length: before.length }, (_, i) => from + 1 + i),
      'in order from the client’s id',
    );
    assert.ok(before.length < 10_000, 'the job ran before the replay reached its edge');
    assert.equal(events[gapAt]![1], { missed: null, after_id: before.at(-1), resume_id: prunedTo });
    assert.equal(
      events.slice(gapAt + 1).map(([, id]) => id),
      Array.from({ length: last - prunedTo }, (_, i) => prunedTo + 1 + i),
      'every event after what was pruned, once',
    );
  } finally {
    client?.close();
    await served.close();
  }
});

test.run();
