// The Chain API's errors and limits: unknown routes (501 code 12, any method), requests the
// HTTP parser refuses (JSON in the gateway shape), a node that cannot be reached (503 code
// 14, no address in the body), read and broadcast rate limits counted apart (429 code 8 with
// Retry-After; X-Forwarded-For believed only behind TRUST_PROXY), and GET /health on the
// node health port.
import net from 'node:net';
import { toBase64 } from '@cosmjs/encoding';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChainApi } from '../../src/api/chain/server.ts';
import { startNodeHealth } from '../../src/api/node-health.ts';
import { createChainClient } from '../../src/chain/client.ts';
import { loadConfig } from '../../src/config.ts';
import {
  type ChainCtx,
  chainGet,
  chainPost,
  closeChainApi,
  openChainApi,
  startTestChainApi,
} from '../helpers/chain-api.ts';
import { openTestDatabase } from '../helpers/database.ts';
import { feeFor, randomAddress, signingClient } from '../helpers/devnet.ts';
import { describe, holds, type Request, recordErrors, send } from '../helpers/hostile.ts';
import { fixture } from '../helpers/rest-shape.ts';

const test = suite<ChainCtx>('chain API: errors, limits, node health', {} as ChainCtx);

test.before(openChainApi);
test.after(closeChainApi);

const TXS = '/cosmos/tx/v1beta1/txs';
const SIMULATE = '/cosmos/tx/v1beta1/simulate';
const JSON_TYPE = 'application/json; charset=utf-8';
const NOT_IMPLEMENTED = { code: 12, message: 'Not Implemented', details: [] };

async function request(api: ChainApi, method: string, path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${api.url}${path}`, {
    method,
    headers,
    body: ['GET', 'HEAD', 'OPTIONS'].includes(method) ? undefined : '{}',
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A signed MsgSend (account 1 to a fresh address), as broadcast bytes in base64. */
async function signedTx(ctx: ChainCtx): Promise<string> {
  const { client, address } = await signingClient(ctx.devnet, 1);
  try {
    const msg = {
      typeUrl: '/cosmos.bank.v1beta1.MsgSend',
      value: { fromAddress: address, toAddress: randomAddress(), amount: [{ denom: 'unative', amount: '1' }] },
    };
    return toBase64(TxRaw.encode(await client.sign(address, [msg], feeFor(200_000), '')).finish());
  } finally {
    client.disconnect();
  }
}

/** Raw bytes on a socket; the status line, content type and body of the answer. */
function rawRequest(url: string, bytes: string): Promise<{ status: number; contentType: string; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.end(bytes, 'latin1'));
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 5 s'));
    }, 5000);
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const [head = '', ...rest] = Buffer.concat(chunks).toString('utf8').split('\r\n\r\n');
      resolve({
        status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0),
        contentType: /^content-type:\s*(.*)$/im.exec(head)?.[1]?.trim() ?? '',
        body: rest.join('\r\n\r\n'),
      });
    });
  });
}

test('unknown routes, and known paths with a method they do not take: 501 code 12 Not Implemented', async ({ api }) => {
  for (const [method, path] of [
    ['GET', '/'],
    ['GET', '/cosmos/nothing/v1beta1/here'],
    ['POST', '/cosmos/nothing/v1beta1/here'],
    ['PUT', '/cosmos/bank/v1beta1/supply'],
    ['DELETE', TXS],
    ['PATCH', TXS],
    ['PUT', TXS],
    ['GET', SIMULATE],
    ['POST', `${TXS}/ABCDEF`],
    ['POST', '/cosmos/base/tendermint/v1beta1/blocks/latest'],
    ['GET', '/cosmos/tx/v1beta1/txs/x/y/z'],
    ['GET', '/cosmos/gov/v1beta1/proposals'],
  ] as const) {
    const a = await request(api, method, path);
    assert.is(a.status, 501, `${method} ${path}`);
    assert.is(a.headers.get('content-type'), JSON_TYPE);
    assert.equal(a.body, NOT_IMPLEMENTED, `${method} ${path}`);
  }
  const head = await request(api, 'HEAD', '/cosmos/nothing');
  assert.is(head.status, 501);
  assert.is(head.text, '');
  const preflight = await request(api, 'OPTIONS', TXS, { Origin: 'https://wallet.example' });
  assert.is(preflight.status, 204);
  assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
});

test('requests the HTTP parser refuses are answered in the gateway shape', async ({ api }) => {
  for (const [bytes, status, message] of [
    ['GET /cosmos/base/tendermint/v1beta1/syncing HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 400, /Malformed/],
    ['GET /cosmos x y HTTP/1.1\r\nHost: x\r\n\r\n', 400, /Malformed/],
    ['\u0000\u0001\u0002\r\n\r\n', 400, /Malformed/],
    [`GET /cosmos/bank/v1beta1/supply?x=${'9'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431, /too large/],
    [`POST ${TXS} HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n{}`, 400, /Malformed/],
  ] as const) {
    const a = await rawRequest(api.url, bytes);
    assert.is(a.status, status, JSON.stringify(bytes.slice(0, 60)));
    assert.is(a.contentType, JSON_TYPE);
    const body = JSON.parse(a.body);
    assert.equal(Object.keys(body), ['code', 'message', 'details']);
    assert.is(body.code, 3);
    assert.match(body.message, message);
  }
});

test('a node that cannot be reached: 503 code 14, in the gateway shape, without its address', async (ctx) => {
  const port = await closedPort();
  // as the service gives its APIs: a client that fails fast (the indexer's retries its calls)
  const chain = createChainClient(`http://127.0.0.1:${port}`, { attempts: 1 });
  const api = await startTestChainApi(ctx.t, chain);
  try {
    const tx = await signedTx(ctx);
    const answers = [
      ['POST txs SYNC', await chainPost(api, TXS, { tx_bytes: tx, mode: 'BROADCAST_MODE_SYNC' })],
      ['POST txs ASYNC', await chainPost(api, TXS, { tx_bytes: tx, mode: 'BROADCAST_MODE_ASYNC' })],
      ['POST simulate', await chainPost(api, SIMULATE, { tx_bytes: tx })],
      // reads answered by the node
      ['GET balances', await chainGet(api, `/cosmos/bank/v1beta1/balances/${ctx.devnet.accounts[0]!.address}`)],
      ['GET node_info', await chainGet(api, '/cosmos/base/tendermint/v1beta1/node_info')],
    ] as const;
    for (const [what, a] of answers) {
      assert.is(a.status, 503, `${what}: ${JSON.stringify(a.body)}`);
      assert.is(a.headers.get('content-type'), JSON_TYPE);
      assert.equal(Object.keys(a.body), ['code', 'message', 'details'], what);
      assert.is(a.body.code, 14, what);
      assert.not.match(JSON.stringify(a.body), new RegExp(`${port}|127\\.0\\.0\\.1|ECONNREFUSED|fetch failed`), what);
    }
    // bad input is still bad input: refused before the node is asked
    const bad = await chainPost(api, TXS, { tx_bytes: 'abc', mode: 'BROADCAST_MODE_SYNC' });
    assert.is(bad.status, 400);
    assert.is(bad.body.code, 3);
  } finally {
    await api.close();
    chain.disconnect();
  }
});

test('a database that cannot be reached: 503 code 14 in the gateway shape, its log line named by a RequestInfo detail', async (ctx) => {
  const gone = await openTestDatabase();
  const { serverErrors, logger } = recordErrors('warn');
  const api = await startTestChainApi(gone, ctx.running.chain, { logger });
  try {
    await gone.dispose(); // closed under the running API: every read of the index fails
    for (const path of [`${TXS}/${'AB'.repeat(32)}`, '/cosmos/base/tendermint/v1beta1/blocks/1', `${TXS}/block/1`]) {
      const a = await chainGet(api, path);
      assert.is(a.status, 503, `${path}: ${JSON.stringify(a.body)}`);
      assert.is(a.headers.get('retry-after'), '5', path);
      assert.equal(Object.keys(a.body), ['code', 'message', 'details'], path);
      assert.is(a.body.code, 14, path);
      assert.is(a.body.message, 'Service unavailable: the database cannot be reached', path);
      assert.is(a.body.details.length, 1, path);
      const [info] = a.body.details;
      assert.is(info['@type'], 'type.googleapis.com/google.rpc.RequestInfo', path);
      assert.ok(
        serverErrors.some((line) => JSON.parse(line).request_id === info.request_id),
        `${path}: the detail names a logged line`,
      );
    }
  } finally {
    await api.close();
  }
});

/** A Chain API of its own (fresh budgets) with small limits: 4 reads and 2 broadcasts per minute. */
async function limited(ctx: ChainCtx, trustedHops = 0) {
  return startTestChainApi(ctx.t, ctx.running.chain, {
    rateLimit: { reads: 4, broadcasts: 2, windowSeconds: 60, trustedHops },
  });
}

function assertLimitHeaders(headers: Headers, limit: number, remaining: number, what: string) {
  assert.is(headers.get('x-ratelimit-limit'), String(limit), `${what}: X-RateLimit-Limit`);
  assert.is(headers.get('x-ratelimit-remaining'), String(remaining), `${what}: X-RateLimit-Remaining`);
  const reset = Number(headers.get('x-ratelimit-reset'));
  const now = Date.now() / 1000;
  assert.ok(reset >= now - 1 && reset <= now + 61, `${what}: X-RateLimit-Reset is the epoch second the window ends`);
}

test('rate limits: reads and broadcasts counted apart, headers on every answer, 429 code 8 with Retry-After', async (ctx) => {
  const api = await limited(ctx);
  try {
    // reads: any GET (a 501 too) and simulate
    for (let i = 1; i <= 3; i++) {
      const a = await chainGet(api, i % 2 ? '/cosmos/nothing' : '/cosmos/base/tendermint/v1beta1/syncing');
      assertLimitHeaders(a.headers, 4, 4 - i, `read ${i}`);
    }
    const simulate = await chainPost(api, SIMULATE, { tx_bytes: 'abc' });
    assert.is(simulate.status, 400);
    assertLimitHeaders(simulate.headers, 4, 0, 'simulate counts as a read');
    const over = await chainGet(api, '/cosmos/nothing');
    assert.is(over.status, 429);
    assert.is(over.headers.get('content-type'), JSON_TYPE);
    assert.equal(Object.keys(over.body), ['code', 'message', 'details']);
    assert.is(over.body.code, 8);
    assert.equal(over.body.details, []);
    assert.match(over.body.message, /^rate limit exceeded: at most 4 requests per 60 s per client; retry in \d+ s$/);
    const retryAfter = Number(over.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assertLimitHeaders(over.headers, 4, 0, 'the refused read');
    assert.is((await chainPost(api, SIMULATE, { tx_bytes: 'abc' })).status, 429, 'simulate is refused with reads');

    // broadcasts still have their own budget
    for (let i = 1; i <= 2; i++) {
      const b = await chainPost(api, TXS, { tx_bytes: 'abc', mode: 'BROADCAST_MODE_SYNC' });
      assert.is(b.status, 400, 'counted, then answered');
      assertLimitHeaders(b.headers, 2, 2 - i, `broadcast ${i}`);
    }
    const refused = await chainPost(api, TXS, { tx_bytes: await signedTx(ctx), mode: 'BROADCAST_MODE_SYNC' });
    assert.is(refused.status, 429);
    assert.is(refused.body.code, 8);
    assert.match(refused.body.message, /at most 2 requests per 60 s/);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    // other paths for POST count as reads (and are refused with them)
    assert.is((await chainPost(api, '/cosmos/tx/v1beta1/txs/', {})).status, 429);

    // without TRUST_PROXY, X-Forwarded-For is the client's own claim: not believed
    for (const xff of ['203.0.113.7', '198.51.100.1, 203.0.113.8']) {
      assert.is((await chainGet(api, '/cosmos/nothing', { 'X-Forwarded-For': xff })).status, 429, xff);
      const b = await fetch(`${api.url}${TXS}`, {
        method: 'POST',
        headers: { 'X-Forwarded-For': xff },
        body: '{}',
      });
      await b.arrayBuffer();
      assert.is(b.status, 429, `broadcast from ${xff}`);
    }
  } finally {
    await api.close();
  }
});

test('rate limits behind a trusted proxy (TRUST_PROXY=1): the client is the address the proxy saw', async (ctx) => {
  const api = await limited(ctx, 1);
  try {
    const read = async (xff: string) => (await chainGet(api, '/cosmos/nothing', { 'X-Forwarded-For': xff })).status;
    for (let i = 0; i < 4; i++) assert.is(await read('198.51.100.1'), 501);
    assert.is(await read('198.51.100.1'), 429);
    assert.is(await read('10.0.0.1, 198.51.100.1'), 429, 'an entry the client added in front changes nothing');
    assert.is(await read('198.51.100.2'), 501, 'another client has its own budget');
    const broadcast = async (xff: string) =>
      (await fetch(`${api.url}${TXS}`, { method: 'POST', headers: { 'X-Forwarded-For': xff }, body: '{}' })).status;
    assert.is(await broadcast('198.51.100.1'), 400, 'the broadcast budget is apart from the reads');
    assert.is(await broadcast('198.51.100.1'), 400);
    assert.is(await broadcast('198.51.100.1'), 429);
    assert.is(await broadcast('198.51.100.3'), 400);
  } finally {
    await api.close();
  }
});

test('the limits default to 100 reads and 10 broadcasts per 60 s per client, X-Forwarded-For not believed', () => {
  const config = loadConfig({});
  assert.is(config.CHAIN_API_READ_LIMIT, 100);
  assert.is(config.CHAIN_API_BROADCAST_LIMIT, 10);
  assert.is(config.RATE_LIMIT_WINDOW_S, 60);
  assert.is(config.TRUST_PROXY, 0);
});

test('GET /health on the node health port: CometBFT answer while the node answers, a JSON-RPC 503 when not', async (ctx) => {
  const health = await startNodeHealth({ chain: ctx.running.chain, host: '127.0.0.1', port: 0 });
  const port = await closedPort();
  const deadChain = createChainClient(`http://127.0.0.1:${port}`);
  const dead = await startNodeHealth({ chain: deadChain, host: '127.0.0.1', port: 0 });
  try {
    const ok = await fetch(health.url);
    const text = await ok.text();
    assert.is(ok.status, 200);
    assert.is(ok.headers.get('content-type'), JSON_TYPE);
    assert.is(
      JSON.stringify(JSON.parse(text)),
      JSON.stringify(fixture('cometbft-health')),
      'the recorded answer, key order too',
    );

    const down = await fetch(dead.url);
    const body = (await down.json()) as { jsonrpc: string; id: number; error: { code: number; message: string } };
    assert.is(down.status, 503);
    assert.equal(Object.keys(body), ['jsonrpc', 'id', 'error']);
    assert.is(body.jsonrpc, '2.0');
    assert.is(body.id, -1);
    assert.type(body.error.code, 'number');
    assert.type(body.error.message, 'string');
    assert.not.match(JSON.stringify(body), new RegExp(`${port}|127\\.0\\.0\\.1|ECONNREFUSED|fetch failed`));

    // the node goes away and comes back: the answer follows it
    await ctx.devnet.pause();
    try {
      assert.is((await fetch(health.url)).status, 503);
    } finally {
      await ctx.devnet.resume();
    }
    assert.is((await fetch(health.url)).status, 200);

    const other = await fetch(health.url.replace('/health', '/status'));
    assert.is(other.status, 404);
    assert.is(((await other.json()) as { error: { code: number } }).error.code, -32601);
    const malformed = await rawRequest(health.url, 'GET /health x y\r\n\r\n');
    assert.is(malformed.status, 400);
    assert.is(malformed.contentType, JSON_TYPE);
    assert.is(JSON.parse(malformed.body).error.code, -32600);
  } finally {
    await health.close();
    await dead.close();
    deadChain.disconnect();
  }
});

test('the node health port under generated requests: any path, query, method or body is a JSON 200 (GET /health) or 404, and it keeps serving', async (ctx) => {
  const health = await startNodeHealth({ chain: ctx.running.chain, host: '127.0.0.1', port: 0 });
  const base = health.url.replace('/health', '');
  const paths = fc.oneof(
    fc.constantFrom('/health', '/health/', '/Health', '/status', '/', '//health', '/health?x=1', '/health#a'),
    fc
      .array(fc.oneof(fc.constantFrom('health', '..', '.', '%00', '%2F', ''), fc.webSegment()), { maxLength: 4 })
      .map((segments) => `/${segments.join('/')}`),
  );
  const queries = fc.oneof(
    fc.constant(''),
    fc.webQueryParameters().map((q) => `?${q}`),
  );
  const methods = fc.constantFrom('GET', 'GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD');
  try {
    await holds(
      fc.asyncProperty(paths, queries, methods, fc.string({ maxLength: 200 }), async (path, q, method, body) => {
        const r: Request = { method, path: `${path}${q}`, ...(method === 'GET' || method === 'HEAD' ? {} : { body }) };
        const a = await send(base, r);
        // what fetch sends: its URL parser resolves `.`/`..` and drops a fragment
        const served = new URL(`${base}${r.path}`).pathname === '/health' && method === 'GET';
        assert.is(a.status, served ? 200 : 404, `${describe(r)} → ${a.status} ${a.text}`);
        if (method !== 'HEAD') assert.ok(JSON.parse(a.text), describe(r));
      }),
      80,
    );
    assert.is((await fetch(health.url)).status, 200, 'still serving');
  } finally {
    await health.close();
  }
});

test.run();
