// The RPC client's raw answers (`callBody`, what the indexer reads blocks with): a result's
// bytes come back as the node sent them, and what is not an answer is retried or typed as
// `call` does it.
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateSync, gzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HeightNotAvailableError, NodeUnreachableError } from '../../src/chain/errors.ts';
import { createRpcClient, readAnswer } from '../../src/chain/rpc-client.ts';

const test = suite('raw answers of the RPC client');

type Reply = { status: number; body: string; headers?: Record<string, string> };

/** A node on 127.0.0.1 that gives the replies in turn (the last one from then on). */
async function node(replies: Reply[]) {
  let served = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const reply = replies[Math.min(served++, replies.length - 1)]!;
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers });
      res.end(reply.body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, served: () => served, close: () => new Promise((r) => server.close(r)) };
}

const result = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { height: '5', txs_results: [{ code: 0 }] } });
const fast = { minRetryMs: 5, maxRetryMs: 20 };

test("a result comes back as the node's bytes, unparsed", async () => {
  const n = await node([{ status: 200, body: `  ${result}\n` }]);
  const rpc = createRpcClient(n.url, fast);
  try {
    const body = await rpc.callBody('block_results', { height: '5' });
    assert.ok(Buffer.isBuffer(body));
    assert.is(body.toString(), `  ${result}\n`);
    assert.equal(readAnswer(body), { result: { height: '5', txs_results: [{ code: 0 }] } });
  } finally {
    rpc.disconnect();
    await n.close();
  }
});

test("a proxy's page, a cut-short body and a 502 are retried by the client, as `call` retries them", async () => {
  const n = await node([
    { status: 200, body: '<html>upstream busy</html>' },
    { status: 200, body: result.slice(0, 40) },
    { status: 502, body: 'bad gateway' },
    { status: 429, body: '', headers: { 'retry-after': '0' } },
    { status: 200, body: result },
  ]);
  const rpc = createRpcClient(n.url, fast);
  try {
    const body = await rpc.callBody('block_results', { height: '5' });
    assert.is(body.toString(), result);
    assert.is(n.served(), 5);
    assert.is(rpc.stats.retries, 4);
    assert.is(rpc.stats.rateLimited, 1);
  } finally {
    rpc.disconnect();
    await n.close();
  }
});

test('a page that never becomes an answer fails as a node not answering, after the attempts', async () => {
  const n = await node([{ status: 200, body: '<html>maintenance</html>' }]);
  const rpc = createRpcClient(n.url, { ...fast, attempts: 3 });
  try {
    const failure = await rpc.callBody('block', { height: '5' }).catch((e) => e);
    assert.instance(failure, NodeUnreachableError);
    assert.match(failure.message, /block: the node's answer is not JSON-RPC \(HTTP 200\)/);
    assert.is(n.served(), 3);
  } finally {
    rpc.disconnect();
    await n.close();
  }
});

test("the node's JSON-RPC errors: on a 500 typed at once and not retried; on a 200 left to the reader", async () => {
  const error = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    error: { code: -32603, message: 'Internal error', data: 'height 5 is not available, lowest height is 90' },
  });
  const n500 = await node([{ status: 500, body: error }]);
  const n200 = await node([{ status: 200, body: error }]);
  const a = createRpcClient(n500.url, fast);
  const b = createRpcClient(n200.url, fast);
  try {
    const failure = await a.callBody('block', { height: '5' }).catch((e) => e);
    assert.instance(failure, HeightNotAvailableError);
    assert.is(failure.nodeHeight, 90);
    assert.is(n500.served(), 1, 'not retried');
    const body = await b.callBody('block', { height: '5' });
    assert.ok('error' in readAnswer(body), 'the reader types it (src/indexer/read-block.ts)');
    assert.is(n200.served(), 1);
  } finally {
    a.disconnect();
    b.disconnect();
    await n500.close();
    await n200.close();
  }
});

test('gzipped and deflated answers, behind redirects, and how the client names itself', async () => {
  const big = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    result: { height: '5', txs_results: Array.from({ length: 2000 }, (_, i) => ({ code: 0, log: `tx ${i}` })) },
  });
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    seen.push(req.headers);
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const asked = JSON.parse(Buffer.concat(body).toString());
      // a provider that moved: the old path sends the call on, twice; the new one gzips
      if (req.url === '/') res.writeHead(308, { location: '/moved' }).end();
      else if (req.url === '/moved') res.writeHead(307, { location: '/rpc/' }).end();
      else if (asked.method !== 'block_results') res.writeHead(400).end();
      else if (req.headers['user-agent'] === 'explorer/2')
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'deflate' }).end(deflateSync(big));
      else if (/\bgzip\b/.test(req.headers['accept-encoding'] ?? ''))
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync(big));
      else res.writeHead(200, { 'content-type': 'application/json' }).end(big);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const rpc = createRpcClient(url, fast);
    try {
      const body = await rpc.callBody('block_results', { height: '5' });
      assert.is(body.toString(), big, 'inflated, after two redirects with the call intact');
      assert.is(seen.length, 3);
      assert.ok(seen.every((h) => h['user-agent'] === 'launchpad-index'));
      assert.match(seen[2]!['accept-encoding'] ?? '', /gzip/);
    } finally {
      rpc.disconnect();
    }
    seen.length = 0;
    // an operator's headers (CHAIN_RPC_HEADERS) replace the client's own, whatever their case
    const named = createRpcClient(url, { ...fast, headers: { 'User-Agent': 'explorer/2', 'X-Api-Key': 'k' } });
    try {
      assert.is((await named.callBody('block_results', { height: '5' })).toString(), big, 'a deflated answer too');
      assert.ok(seen.every((h) => h['user-agent'] === 'explorer/2' && h['x-api-key'] === 'k'));
    } finally {
      named.disconnect();
    }
  } finally {
    await new Promise((r) => server.close(r));
  }
});

test.run();
