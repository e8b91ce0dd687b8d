// GET /api/openapi.json: an OpenAPI 3.1 document of both APIs made from the routes' own zod
// schemas. Every route either API serves is described and every described route is served;
// each parameter is the one the route validates; the answers of a running service parse
// with the schemas the document gives for them (unknown fields fail); every reference resolves.
import { toBase64, toUtf8 } from '@cosmjs/encoding';
import type { Polka } from 'polka';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { z } from 'zod';
import type { ChainApiContext } from '../../src/api/chain/context.ts';
import { CHAIN_ROUTES } from '../../src/api/chain/route-table.ts';
import { openApiPath, type RouteDoc } from '../../src/api/http/openapi.ts';
import { mount, routeLabels } from '../../src/api/http/routes.ts';
import { errorBody, launchpadOpenApi } from '../../src/api/launchpad/openapi.ts';
import { LAUNCHPAD_ROUTES } from '../../src/api/launchpad/route-table.ts';
import { candlesParams, candlesQuery } from '../../src/api/launchpad/routes/candles.ts';
import { feedEventSchemas, feedQuery } from '../../src/api/launchpad/routes/feed.ts';
import { tokenParams } from '../../src/api/launchpad/routes/tokens.ts';
import { tradesQuery } from '../../src/api/launchpad/routes/trades.ts';
import { attr, wasmClient } from '../helpers/devnet.ts';
import { launchToken, withBlocks } from '../helpers/indexing.ts';
import { type ApiCtx, closeApi, get, indexLaunches, openApi } from '../helpers/launchpad-api.ts';
import { openSse } from '../helpers/sse.ts';
import { waitFor } from '../helpers/wait.ts';

const test = suite<ApiCtx>('OpenAPI description', {} as ApiCtx);

test.before(async (ctx) => {
  await openApi(ctx);
  await indexLaunches(ctx, { blocks: 30, rate: 8, graduate: true });
  // a buy and a sell of its own, so that answers with both actions exist whatever the traffic made
  const { token } = await launchToken(ctx.devnet, 1, { name: 'Both Ways', symbol: 'BOTH' });
  const trader = await wasmClient(ctx.devnet, 1);
  try {
    const bought = await withBlocks(
      ctx.devnet,
      trader.execute(ctx.devnet.contracts.launchpad, { buy: { token_address: token } }, [
        { denom: 'unative', amount: '5000000' },
      ]),
    );
    const half = BigInt(attr(bought.events, 'wasm-buy')[0]!.tokens_out!) / 2n;
    const sell = {
      send: { contract: ctx.devnet.contracts.launchpad, amount: String(half), msg: toBase64(toUtf8('{"sell":{}}')) },
    };
    await withBlocks(ctx.devnet, trader.execute(token, sell));
  } finally {
    trader.client.disconnect();
  }
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
});

test.after(closeApi);

type Json = Record<string, unknown>;
const doc = launchpadOpenApi(LAUNCHPAD_ROUTES) as {
  openapi: string;
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json> };
};
const operation = (method: string, path: string) =>
  doc.paths[openApiPath(path)]?.[method] as Json & { parameters?: Json[] };
const routeDoc = (method: string, path: string) =>
  LAUNCHPAD_ROUTES.find((r) => r.method === method && r.path === path) as RouteDoc;

/** What mounting the Chain API's route table registers on an app, in order. */
function chainRoutesMounted(): { method: string; path: string; handler: unknown }[] {
  const mounted: { method: string; path: string; handler: unknown }[] = [];
  const record = (method: string) => (path: string, handler: unknown) => {
    mounted.push({ method, path, handler });
    return app;
  };
  const app = { get: record('get'), post: record('post') } as unknown as Polka;
  const ctx = {
    chain: { queries: {} },
    prefixes: { account: 'native', validator: 'nativevaloper', consensus: 'nativevalcons' },
  } as unknown as ChainApiContext;
  mount(app, CHAIN_ROUTES, ctx);
  return mounted;
}

test('an OpenAPI 3.1 document whose references resolve and whose path parameters are declared', () => {
  assert.is(doc.openapi, '3.1.0');
  const refs = JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [];
  assert.ok(refs.length > 0);
  for (const ref of refs) {
    const name = /#\/components\/schemas\/([^"]+)"/.exec(ref)?.[1];
    assert.ok(name && doc.components.schemas[name], `${ref} resolves`);
  }
  const ids = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths)) {
    const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
    for (const [method, op] of Object.entries(item)) {
      if (method === 'servers') continue;
      const declared = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'path').map((p) => p.name);
      assert.equal(declared.sort(), inPath, `${method} ${path}: its path parameters`);
      assert.ok(!ids.has(op.operationId as string), `${op.operationId} is unique`);
      ids.add(op.operationId as string);
      assert.ok(
        Object.keys(op.responses as Json).some((s) => s.startsWith('2')),
        `${method} ${path} says its answer`,
      );
    }
  }
});

test('the Launchpad API serves its route table: each route answers on the running service (the wallet routes only with a node), labelled by its own path in the metrics', async ({
  api,
}) => {
  const keys = LAUNCHPAD_ROUTES.map((r) => `${r.method} ${r.path}`);
  assert.equal(keys.length, new Set(keys).size, 'each route once');
  const labels = routeLabels(LAUNCHPAD_ROUTES);
  const noRoute = (body: unknown) =>
    JSON.stringify(body).includes('no route') ? 'answered by no route' : 'answered by its route';
  for (const r of LAUNCHPAD_ROUTES) {
    const path = r.path.replace(/:[A-Za-z]+/g, 'native1nothing');
    assert.is(labels.find(([pattern]) => pattern.test(path))?.[1], r.path, `${path} is counted as ${r.path}`);
    if (r.path === '/api/sse/feed') continue; // a stream: the feed tests open it
    const res = await fetch(`${api.url}${path}`, {
      method: r.method.toUpperCase(),
      body: r.method === 'post' ? '{}' : undefined,
    });
    const text = await res.text();
    const body = res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
    // this test's service has no node for the wallet routes: those are described, not served
    const wallet = r.path.startsWith('/api/wallet/');
    assert.is(noRoute(body), wallet ? 'answered by no route' : 'answered by its route', `${r.method} ${path}`);
  }
});

test("the Chain API serves its route table: each route once, in the table's order, as it is described", () => {
  const routes = CHAIN_ROUTES.map((r) => `${r.method} ${r.path}`);
  const mounted = chainRoutesMounted();
  assert.equal(
    mounted.map((m) => `${m.method} ${m.path}`),
    routes,
    "every route of the table is registered, once, in the table's order",
  );
  for (const m of mounted) assert.type(m.handler, 'function', `${m.method} ${m.path} has a handler`);
  assert.equal(new Set(routes).size, routes.length, 'no method and path twice');
  // the router answers with the first match: no route is hidden by one before it
  // (`blocks/latest` before `blocks/:height`)
  const labels = routeLabels(CHAIN_ROUTES);
  CHAIN_ROUTES.forEach((later, j) => {
    for (const earlier of CHAIN_ROUTES.slice(0, j)) {
      if (earlier.method !== later.method || earlier.path === later.path) continue;
      const pattern = labels.find(([, path]) => path === earlier.path)![0];
      assert.not.ok(pattern.test(later.path), `${later.method} ${later.path} is hidden by ${earlier.path}`);
    }
  });
  for (const r of CHAIN_ROUTES) {
    const inPath = [...r.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]).sort();
    assert.equal(
      Object.keys(r.params?.shape ?? {}).sort(),
      inPath,
      `${r.method} ${r.path}: its params schema describes its path parameters, and only those`,
    );
    assert.ok(operation(r.method, r.path), `${r.method} ${r.path} is in the document`);
    assert.equal(
      (doc.paths[openApiPath(r.path)]!.servers as unknown as { description: string }[])[0]!.description,
      'the Chain API',
      `${r.path} is served on the Chain API's port`,
    );
  }
});

test('the parameters are the schemas the routes validate with', () => {
  assert.is(routeDoc('get', '/api/candles/:tokenAddress').query, candlesQuery);
  assert.is(routeDoc('get', '/api/candles/:tokenAddress').params, candlesParams);
  assert.is(routeDoc('get', '/api/trades/recent').query, tradesQuery);
  assert.is(routeDoc('get', '/api/tokens/:address').params, tokenParams);
  assert.is(routeDoc('get', '/api/sse/feed').query, feedQuery);
  const params = (method: string, path: string) =>
    Object.fromEntries((operation(method, path).parameters ?? []).map((p) => [p.name, p]));
  const candles = params('get', '/api/candles/:tokenAddress');
  assert.equal(candles.limit, {
    name: 'limit',
    in: 'query',
    required: false,
    description: 'the latest this many candles of the range',
    schema: { default: 300, type: 'integer', minimum: 1, maximum: 1000 },
  });
  assert.equal((candles.timeframe!.schema as Json).enum, ['1m', '5m', '1h', '1d']);
  assert.is((candles.timeframe!.schema as Json).default, '1h');
  assert.is((candles.from!.schema as Json).format, 'date-time');
  assert.is(candles.tokenAddress!.required, true);
  assert.equal((params('get', '/api/trades/recent').limit!.schema as Json).maximum, 100);
  assert.ok(params('get', '/api/sse/feed')['Last-Event-ID'], 'the feed reads Last-Event-ID');
  // a value the document allows is one the route accepts, and the bounds are the route's
  assert.ok(candlesQuery.safeParse({ limit: '1000', timeframe: '1d' }).success);
  assert.not.ok(candlesQuery.safeParse({ limit: '1001' }).success);
});

/** The 200 body schema the document's route gives. */
const answerSchema = (method: string, path: string) => routeDoc(method, path).responses[200]!.body as z.ZodType;

function assertParses(schema: z.ZodType, body: unknown, what: string) {
  const parsed = schema.safeParse(body);
  assert.ok(
    parsed.success,
    `${what}: ${parsed.error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
  );
}

test("the service's answers are what the document says", async (ctx) => {
  // the list may be up to 3 s behind (stale-while-revalidate): until it shows the graduation
  let tokens = await get(ctx.api, '/api/tokens');
  const graduated = async () => {
    if (tokens.body.tokens.some((t: { graduated: boolean }) => t.graduated)) return true;
    tokens = await get(ctx.api, '/api/tokens');
    return false;
  };
  assert.ok(await waitFor(graduated, 10_000, 200), 'a graduated token is among them');
  assertParses(answerSchema('get', '/api/tokens'), tokens.body, 'GET /api/tokens');
  assert.ok(tokens.body.tokens.length > 1);
  for (const t of tokens.body.tokens.slice(0, 5)) {
    assertParses(
      answerSchema('get', '/api/tokens/:address'),
      (await get(ctx.api, `/api/tokens/${t.address}`)).body,
      'token',
    );
    for (const timeframe of ['1m', '5m', '1h', '1d'])
      assertParses(
        answerSchema('get', '/api/candles/:tokenAddress'),
        (await get(ctx.api, `/api/candles/${t.address}?timeframe=${timeframe}`)).body,
        `candles ${timeframe}`,
      );
  }
  const trades = await get(ctx.api, '/api/trades/recent?limit=100');
  assertParses(answerSchema('get', '/api/trades/recent'), trades.body, 'GET /api/trades/recent');
  // both actions in answers the schema accepted: the newest 100 trades may all be buys (the
  // traffic ends pushing a token to graduation), so the tokens' own lists too until a sell
  const actions = new Set<string>(trades.body.trades.map((t: { action: string }) => t.action));
  for (const t of tokens.body.tokens) {
    if (actions.has('buy') && actions.has('sell')) break;
    const own = await get(ctx.api, `/api/trades/recent?token_address=${t.address}&limit=100`);
    assertParses(answerSchema('get', '/api/trades/recent'), own.body, `GET /api/trades/recent of ${t.address}`);
    for (const trade of own.body.trades) actions.add(trade.action);
  }
  assert.ok(actions.has('buy') && actions.has('sell'), `answers with buys and sells parse (saw ${[...actions]})`);
  assertParses(answerSchema('get', '/api/health'), (await get(ctx.api, '/api/health')).body, 'GET /api/health');
  const chain = await get(ctx.api, '/api/chain');
  assertParses(answerSchema('get', '/api/chain'), chain.body, 'GET /api/chain');
  assert.equal(chain.body.native, { denom: 'unative', display: 'NATIVE', decimals: 6 }, "the devnet's coin");
  const invalid = await get(ctx.api, '/api/candles/x?limit=0');
  assert.is(invalid.status, 400);
  assertParses(errorBody, invalid.body, 'a 400 body');

  // every event the feed replays, by its name
  const stream = await openSse(`${ctx.api.url}/api/sse/feed`, { 'Last-Event-ID': '0' });
  try {
    const [{ high }] = (await ctx.t.db.query<{ high: number }>(`SELECT max(id)::int AS high FROM feed_events`)) as [
      { high: number },
    ];
    await stream.until(() => Number(stream.events().at(-1)?.id) === high);
    const names = new Set<string>();
    for (const e of stream.events()) {
      names.add(e.event!);
      const schema = feedEventSchemas[e.event as keyof typeof feedEventSchemas];
      assert.ok(schema, `${e.event} is described`);
      assertParses(schema, JSON.parse(e.data!), `event ${e.event}`);
    }
    assert.equal([...names].sort(), ['graduation', 'token_launch', 'trade']);
  } finally {
    stream.close();
  }
});

test('GET /api/openapi.json serves the document, and counts against the rate limit', async (ctx) => {
  const { status, headers, body } = await get(ctx.api, '/api/openapi.json');
  assert.is(status, 200);
  assert.is(headers.get('content-type'), 'application/json; charset=utf-8');
  assert.ok(headers.get('x-ratelimit-remaining'));
  assert.equal(body, JSON.parse(JSON.stringify(doc)));
});

test('a new feed stream starts with the newest event id, so a reconnect before any event resumes there', async (ctx) => {
  const stream = await openSse(`${ctx.api.url}/api/sse/feed`);
  try {
    await stream.until((blocks) => blocks.length > 0);
    assert.is(stream.blocks[0]!.id, String(ctx.api.stats().lastEventId));
    assert.is(stream.blocks[0]!.event, undefined, 'no event');
  } finally {
    stream.close();
  }
  const resumed = await openSse(`${ctx.api.url}/api/sse/feed`, { 'Last-Event-ID': '1' });
  try {
    await resumed.until((blocks) => blocks.length > 0);
    assert.is(resumed.blocks[0]!.id, undefined, 'a resuming stream does not restate its id');
  } finally {
    resumed.close();
  }
});

test.run();
