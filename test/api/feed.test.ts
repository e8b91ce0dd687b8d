// GET /api/sse/feed over HTTP against a running server: the live feed of the devnet's
// trades, launches and graduations as they are indexed, its replay after a reconnection,
// its filters, and what happens to a subscriber that stops reading.
import net from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeNotice, encodeNotice, FEED_CHANNEL, notify } from '../../src/feed/notice.ts';
import {
  type ApiCtx,
  closeApi,
  get,
  indexLaunches,
  indexTraffic,
  openApi,
  startApi,
} from '../helpers/launchpad-api.ts';
import { openSse } from '../helpers/sse.ts';
import { waitFor } from '../helpers/wait.ts';

const test = suite<ApiCtx>('launchpad API: live feed', {} as ApiCtx);

const SSE_TRADE_FIELDS = [
  'token_address',
  'action',
  'direction',
  'input_amount',
  'output_amount',
  'price_unative',
  'trader',
  'tx_hash',
  'time',
  'native_reserves',
];

test.before(async (ctx) => {
  await openApi(ctx);
  await indexLaunches(ctx, { blocks: 40, rate: 10, graduate: true });
});

test.after(closeApi);

test('SSE: headers, retry hint, keepalive comments, and trades as documented events with ids', async (ctx) => {
  const stream = await openSse(`${ctx.api.url}/api/sse/feed`);
  try {
    assert.is(stream.status, 200);
    assert.is(stream.headers['content-type'], 'text/event-stream; charset=utf-8');
    assert.is(stream.headers['x-accel-buffering'], 'no');
    assert.is(stream.headers['access-control-allow-origin'], '*');
    assert.match(stream.headers['cache-control'] ?? '', /no-cache/);
    // keepalive comments (every 250 ms here, 15 s by default)
    await stream.until((b) => b.filter((x) => x.comments.length > 0).length >= 3);
    assert.is(stream.blocks[0]!.retry, '3000');
    assert.equal(stream.blocks[0]!.comments, ['connected']);

    const height = ctx.devnet.height();
    await indexTraffic(ctx, 3, 6);
    const executed = ctx.devnet.ledger.trades.filter((t) => t.height > height);
    await stream.until(() => stream.events().filter((e) => e.event === 'trade').length >= executed.length);
    const trades = stream.events().filter((e) => e.event === 'trade');
    assert.is(trades.length, executed.length, 'one trade event per trade, none twice');
    const ids = stream.events().map((e) => Number(e.id));
    assert.ok(
      ids.every((id, i) => Number.isInteger(id) && (i === 0 || id > ids[i - 1]!)),
      'ids increase',
    );
    trades.forEach((e, i) => {
      const data = JSON.parse(e.data!);
      const t = executed[i]!;
      assert.equal(Object.keys(data), SSE_TRADE_FIELDS);
      assert.equal(data, {
        token_address: t.token,
        action: t.action,
        direction: t.direction,
        input_amount: `${t.inputAmount}`,
        output_amount: `${t.outputAmount}`,
        price_unative: `${t.priceUnative}`,
        trader: t.trader,
        tx_hash: t.txHash,
        time: new Date(t.time).toISOString(),
        native_reserves: `${t.nativeReservesAfter}`,
      });
    });
  } finally {
    stream.close();
  }
});

test('SSE: launches and graduations carry the documented fields', async ({ t }) => {
  const rows = await t.db.query<{ id: number; event: string; data: string }>(
    `SELECT id, event, data::text AS data FROM feed_events WHERE event <> 'trade' ORDER BY id`,
  );
  const launch = rows.find((r) => r.event === 'token_launch');
  const graduation = rows.find((r) => r.event === 'graduation');
  assert.ok(launch && graduation, 'the traffic launched and graduated tokens');
  assert.equal(Object.keys(JSON.parse(launch.data)), ['token_address', 'creator', 'initial_reserves', 'time']);
  assert.equal(Object.keys(JSON.parse(graduation.data)), [
    'token_address',
    'native_for_pool',
    'tokens_for_pool',
    'creator',
    'time',
  ]);
});

test('SSE: Last-Event-ID replays exactly the missed events, then live ones follow', async (ctx) => {
  const first = await openSse(`${ctx.api.url}/api/sse/feed`);
  await indexTraffic(ctx, 2, 6);
  await first.until(() => first.events().length >= 2);
  const lastSeen = Number(first.events().at(-1)!.id);
  first.close();

  await indexTraffic(ctx, 4, 6); // missed while disconnected
  const missed = await ctx.t.db.query<{ id: number; event: string; data: string }>(
    `SELECT id, event, data::text AS data FROM feed_events WHERE id > $1 ORDER BY id`,
    [lastSeen],
  );
  assert.ok(missed.length > 0);

  const again = await openSse(`${ctx.api.url}/api/sse/feed`, { 'Last-Event-ID': String(lastSeen) });
  try {
    await again.until(() => again.events().length >= missed.length);
    assert.equal(
      again.events().map((e) => ({ id: Number(e.id), event: e.event, data: e.data })),
      missed.map((r) => ({ id: Number(r.id), event: r.event, data: r.data })),
      'exactly the missed events, in order',
    );
    await indexTraffic(ctx, 1, 6);
    const [{ high }] = (await ctx.t.db.query<{ high: number }>(`SELECT max(id) AS high FROM feed_events`)) as [
      { high: number },
    ];
    await again.until(() => Number(again.events().at(-1)?.id) === Number(high));
    const ids = again.events().map((e) => Number(e.id));
    assert.equal(
      ids,
      [...new Set(ids)].sort((a, b) => a - b),
      'no event twice, none out of order',
    );
    assert.is(ids.length, Number(high) - lastSeen, 'no gap between replay and live');
  } finally {
    again.close();
  }
});

test('SSE: filters by token and event name; a second API process sends the same events', async (ctx) => {
  const token = ctx.devnet.ledger.trades.at(-1)!.token;
  const second = await startApi(ctx.t.db);
  const all = await openSse(`${ctx.api.url}/api/sse/feed`);
  const other = await openSse(`${second.url}/api/sse/feed`);
  const filtered = await openSse(`${ctx.api.url}/api/sse/feed?token_address=${token}&events=trade`);
  try {
    const bad = await get(ctx.api, '/api/sse/feed?events=trade,nope');
    assert.is(bad.status, 400);
    assert.is(bad.body.details[0].parameter, 'events');
    const height = ctx.devnet.height();
    for (let i = 0; i < 20 && !ctx.devnet.ledger.trades.some((t) => t.height > height && t.token === token); i++)
      await indexTraffic(ctx, 1, 8);
    const [{ high }] = (await ctx.t.db.query<{ high: number }>(`SELECT max(id) AS high FROM feed_events`)) as [
      { high: number },
    ];
    await all.until(() => Number(all.events().at(-1)?.id) === Number(high));
    await other.until(() => Number(other.events().at(-1)?.id) === Number(high));
    const frames = (s: typeof all) => s.events().map((e) => `${e.id}|${e.event}|${e.data}`);
    assert.equal(frames(other), frames(all), 'both processes send the same ids and data');
    const expected = all.events().filter((e) => e.event === 'trade' && JSON.parse(e.data!).token_address === token);
    assert.ok(expected.length > 0);
    await filtered.until(() => filtered.events().length >= expected.length);
    assert.equal(frames(filtered), frames({ events: () => expected } as typeof all));
  } finally {
    all.close();
    other.close();
    filtered.close();
    await second.close();
  }
});

test('SSE: a subscriber that stops reading is dropped; one that reads gets everything', async ({ t }) => {
  const api = await startApi(t.db, { sseMaxBufferedBytes: 4 << 20 });
  const { port } = new URL(api.url);
  // a raw connection that never reads what it is sent
  const stalled = net.connect(Number(port), '127.0.0.1', () =>
    stalled.write(`GET /api/sse/feed HTTP/1.1\r\nHost: x\r\n\r\n`),
  );
  stalled.pause();
  const reader = await openSse(`${api.url}/api/sse/feed`);
  try {
    assert.ok(await waitFor(() => api.stats().subscribers === 2, 10_000), 'both subscribers connected within 10 s');
    // a burst far larger than the socket buffers and the 4 MiB bound: 20 MB of events in one commit
    const data = JSON.stringify({ token_address: 'native1flood', padding: 'x'.repeat(1000) });
    const high = await t.db.transaction(async (tx) => {
      const [row] = await tx.query<{ high: number }>(
        `WITH ins AS (
           INSERT INTO feed_events (event, token_address, data, event_key, block_height)
           SELECT 'trade', 'native1flood', $1::json, 'flood:' || i, 0 FROM generate_series(1, 20000) AS i RETURNING id)
         SELECT max(id) AS high FROM ins`,
        [data],
      );
      await tx.query(`SELECT pg_notify($1, $2)`, [
        FEED_CHANNEL,
        encodeNotice({ kind: 'events', highId: Number(row!.high) }),
      ]);
      return Number(row!.high);
    });
    await reader.until(() => Number(reader.events().at(-1)?.id) === Number(high), 60_000);
    assert.ok(await waitFor(() => api.stats().dropped > 0, 10_000), 'a subscriber was dropped within 10 s');
    assert.is(api.stats().dropped, 1, 'the stalled subscriber was dropped');
    assert.is(api.stats().subscribers, 1);
    assert.is(
      reader.events().filter((e) => JSON.parse(e.data!).token_address === 'native1flood').length,
      20000,
      'the reading subscriber got every event',
    );
  } finally {
    reader.close();
    stalled.destroy();
    await api.close();
    await t.db.query(`DELETE FROM feed_events WHERE token_address = 'native1flood'`);
  }
});

test('notices: the holders a batch moved and the tokens whose metadata changed reach listeners; a list too long for a NOTIFY arrives as the widest change', async ({
  t,
}) => {
  const heard: string[] = [];
  const unlisten = await t.db.listen(FEED_CHANNEL, (payload) => heard.push(payload));
  try {
    const few = ['native1alice', 'native1bob'];
    // a block of 500 transfers to 500 long (32-byte) addresses: 32 KB of names
    const many = Array.from({ length: 500 }, (_, i) => `native1${String(i).padStart(58, '0')}`);
    await t.db.transaction(async (tx) => {
      await notify(tx, { kind: 'balances', holders: few, tokens: ['native1token'] });
      await notify(tx, { kind: 'balances', holders: many, tokens: ['native1token'] });
      await notify(tx, { kind: 'metadata', tokens: few });
      await notify(tx, { kind: 'metadata', tokens: many });
    });
    // in a transaction of their own: PostgreSQL sends a payload repeated within one transaction once
    await t.db.transaction(async (tx) => {
      await notify(tx, { kind: 'vouched', tokens: few });
      await notify(tx, { kind: 'vouched', tokens: many });
      await notify(tx, { kind: 'prices' });
    });
    assert.ok(await waitFor(() => heard.length >= 7, 5_000), 'every notice arrived with the commit');
    assert.equal(heard.map(decodeNotice), [
      { kind: 'balances', holders: few, tokens: ['native1token'] },
      { kind: 'vouched' }, // every holder's holdings
      { kind: 'metadata', tokens: few },
      { kind: 'anything' },
      { kind: 'vouched', tokens: few }, // tokens made known
      { kind: 'vouched' }, // too many to name: any
      { kind: 'prices' },
    ]);
  } finally {
    await unlisten();
  }
});

test.run();
