// The Launchpad API's HTTP layer against a running server: health, unknown routes and
// CORS, rate limiting (directly and behind a trusted proxy), and failures (a broken query,
// a closed database). The last test closes the database under the API.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { whileReadsDeadlock } from '../helpers/database.ts';
import { randomAddress } from '../helpers/devnet.ts';
import { type ApiCtx, closeApi, get, ISO, indexLaunches, openApi, startApi } from '../helpers/launchpad-api.ts';

const test = suite<ApiCtx>('launchpad API: health, routing, rate limits, failures', {} as ApiCtx);

test.before(async (ctx) => {
  await openApi(ctx);
  await indexLaunches(ctx, { blocks: 5, rate: 4, graduate: false });
});

test.after(closeApi);

test('GET /api/health: ok, a timestamp and where the indexer is', async ({ api, devnet }) => {
  const { status, body, headers } = await get(api, '/api/health');
  assert.is(status, 200);
  assert.is(headers.get('content-type'), 'application/json; charset=utf-8');
  assert.is(body.status, 'ok');
  assert.match(body.timestamp, ISO);
  assert.is(body.database.status, 'ok');
  assert.is(body.indexer.chain_id, devnet.chainId);
  assert.is(body.indexer.indexed_height, devnet.height());
  assert.is(body.indexer.lag_blocks, 0);
  assert.type(body.indexer.lag_seconds, 'number');
});

test('unknown routes are 404 JSON; CORS on answers and preflight', async ({ api }) => {
  const { status, body, headers } = await get(api, '/api/nothing-here');
  assert.is(status, 404);
  assert.type(body.error, 'string');
  assert.is(headers.get('content-type'), 'application/json; charset=utf-8');
  assert.is(headers.get('access-control-allow-origin'), '*');
  const ok = await get(api, '/api/tokens', { Origin: 'https://app.example' });
  assert.is(ok.headers.get('access-control-allow-origin'), '*');
  const preflight = await fetch(`${api.url}/api/tokens`, {
    method: 'OPTIONS',
    headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'GET' },
  });
  assert.is(preflight.status, 204);
  assert.is(preflight.headers.get('access-control-allow-origin'), '*');
  assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /GET/);
});

test('rate limit: 100 per window with headers; the 101st is 429; X-Forwarded-For does not reset it', async ({ t }) => {
  const limited = await startApi(t.db, { rateLimit: { points: 100, windowSeconds: 60, trustedHops: 0 } });
  try {
    for (let i = 1; i <= 100; i++) {
      const res = await fetch(`${limited.url}${i % 2 ? '/api/health' : '/api/nowhere'}`);
      await res.arrayBuffer();
      assert.is(res.headers.get('x-ratelimit-limit'), '100');
      assert.is(res.headers.get('x-ratelimit-remaining'), String(100 - i));
      const reset = Number(res.headers.get('x-ratelimit-reset'));
      assert.ok(
        reset > Date.now() / 1000 && reset <= Date.now() / 1000 + 61,
        'reset is the epoch second the window ends',
      );
    }
    const over = await get(limited, '/api/tokens');
    assert.is(over.status, 429);
    assert.type(over.body.error, 'string');
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
    assert.is(over.headers.get('x-ratelimit-remaining'), '0');
    const spoofed = await get(limited, '/api/tokens', { 'X-Forwarded-For': '203.0.113.9' });
    assert.is(spoofed.status, 429, 'a forwarded-for header from the client itself is not believed');
    const sse = await fetch(`${limited.url}/api/sse/feed`);
    assert.is(sse.status, 429, 'every endpoint');
    await sse.arrayBuffer();
  } finally {
    await limited.close();
  }
});

test('rate limit behind a trusted proxy: the client is the address the proxy saw (an IPv6 one, its /64)', async ({
  t,
}) => {
  const proxied = await startApi(t.db, { rateLimit: { points: 3, windowSeconds: 60, trustedHops: 1 } });
  try {
    const as = async (xff: string) => (await get(proxied, '/api/health', { 'X-Forwarded-For': xff })).status;
    for (let i = 0; i < 3; i++) assert.is(await as('198.51.100.1'), 200);
    assert.is(await as('198.51.100.1'), 429);
    // a client adding its own entry in front does not become someone else
    assert.is(await as('10.0.0.1, 198.51.100.1'), 429);
    assert.is(await as('198.51.100.2'), 200, 'another client has its own budget');
    // an IPv6 client is its /64: any of its addresses counts against one budget
    for (let i = 1; i <= 3; i++) assert.is(await as(`2001:db8:1:2::${i}`), 200);
    assert.is(await as('2001:db8:1:2:ffff:ffff:ffff:ffff'), 429, 'another address of the same /64');
    assert.is(await as('2001:0db8:0001:0002:0000:0000:0000:0009'), 429, 'written out in full');
    assert.is(await as('2001:db8:1:3::1'), 200, 'the next /64 is another client');
    // an IPv4-mapped address is the IPv4 client
    assert.is(await as('::ffff:198.51.100.2'), 200);
    assert.is(await as('::ffff:198.51.100.2'), 200);
    assert.is(await as('198.51.100.2'), 429, 'the same client as ::ffff:198.51.100.2');
  } finally {
    await proxied.close();
  }
});

test('a read the database gives up for a conflict (a deadlock with a compression, twice) is a 503 with Retry-After, not a 500', async (ctx) => {
  await ctx.running.stop();
  const attempts = await whileReadsDeadlock(ctx.t.db, 'trades', async () => {
    const busy = await get(ctx.api, '/api/trades/recent?limit=3');
    assert.is(busy.status, 503);
    assert.is(busy.headers.get('retry-after'), '1');
    assert.equal(Object.keys(busy.body), ['error', 'request_id']);
    assert.match(busy.body.error, /busy, retry/);
  });
  // a server's pool sends the statement again once; the embedded database's one session does not
  assert.is(attempts, ctx.t.db.kind === 'server' ? 2 : 1);
  assert.is((await get(ctx.api, '/api/trades/recent?limit=2')).status, 200, 'answers again');
});

test('failures: a broken query is a 500 with a request id and no internals; a closed database makes health 503', async (ctx) => {
  await ctx.running.stop();
  await ctx.t.db.exec(`ALTER TABLE trades RENAME TO trades_moved`);
  try {
    const broken = await get(ctx.api, '/api/trades/recent?limit=3');
    assert.is(broken.status, 500);
    assert.equal(Object.keys(broken.body), ['error', 'request_id']);
    assert.not.match(JSON.stringify(broken.body), /trades_moved|relation|at \//);
  } finally {
    await ctx.t.db.exec(`ALTER TABLE trades_moved RENAME TO trades`);
  }
  await ctx.api.close();
  const api = await startApi(ctx.t.db);
  ctx.api = api;
  await ctx.t.db.close();
  const down = await get(api, '/api/health');
  assert.is(down.status, 503);
  assert.is(down.body.status, 'error');
  assert.is(down.body.database.status, 'unreachable');
  const tokens = await get(api, `/api/tokens/${randomAddress()}`);
  assert.is(tokens.status, 503);
  assert.type(tokens.body.error, 'string');
});

test.run();
