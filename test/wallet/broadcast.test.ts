// POST /api/wallet/broadcast against the devnet: transactions signed with cosmjs and posted as
// raw bytes get the chain's CheckTx code (0, 4, 5, 8, 11, 32); the same bytes again, 20 at
// once, or through a second API process on the same server database reach the node once; a
// broadcast the node never answered may be retried; bodies are checked before anything is sent.
import net from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BODY_LIMIT_BYTES } from '../../src/api/http/body.ts';
import type { LaunchpadApi } from '../../src/api/launchpad/server.ts';
import { migrate } from '../../src/db/migrate.ts';
import { createServerDatabase } from '../../src/db/postgres.ts';
import type { Devnet } from '../../src/devnet/index.ts';
import { freshServerDatabase, openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { queryClient, randomAddress, signingClient, startDevnet } from '../helpers/devnet.ts';
import { withBlocks } from '../helpers/indexing.ts';
import { get } from '../helpers/launchpad-api.ts';
import { openSse } from '../helpers/sse.ts';
import { sleep } from '../helpers/wait.ts';
import { countingChain, post, send, signTx, startWalletApi } from '../helpers/wallet.ts';

interface Ctx {
  t: TestDatabase;
  devnet: Devnet;
  chain: ReturnType<typeof countingChain>;
  api: LaunchpadApi;
}

const test = suite<Ctx>('wallet: broadcast', {} as Ctx);
const BROADCAST = '/api/wallet/broadcast';

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
  ctx.devnet = await startDevnet();
  ctx.chain = countingChain(ctx.devnet);
  ctx.api = await startWalletApi(ctx.t.db, ctx.devnet, ctx.chain, { broadcast: { waitMs: 10_000 } });
});

test.after(async (ctx) => {
  for (const step of [() => ctx.api?.close(), () => ctx.devnet?.close(), () => ctx.t?.dispose()])
    await step()?.catch(() => {});
  ctx.chain?.disconnect();
});

/** Makes blocks until the devnet has committed `hash`; the committed tx's result code. */
async function committed(devnet: Devnet, hash: string): Promise<number> {
  const { comet } = await queryClient(devnet);
  try {
    const deadline = Date.now() + 10_000;
    for (;;) {
      await devnet.produceBlock();
      const found = await comet.txSearchAll({ query: `tx.hash='${hash}'` });
      if (found.txs[0]) return found.txs[0].result.code;
      if (Date.now() > deadline) assert.unreachable(`tx ${hash} not committed within 10 s`);
      await sleep(20);
    }
  } finally {
    comet.disconnect();
  }
}

test('code 0: the tx is broadcast once, lands on chain, and its hash is the chain hash', async (ctx) => {
  const to = randomAddress();
  const tx = await signTx(ctx.devnet, 1, (from) => [send(from, to, 4321n)]);
  const before = ctx.chain.broadcasts;
  const { status, body, headers } = await post(ctx.api, BROADCAST, { tx_bytes: tx.base64 });
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(body, { tx_hash: tx.hash, code: 0, raw_log: '' });
  assert.is(headers.get('access-control-allow-origin'), '*');
  assert.ok(headers.get('x-ratelimit-limit'), 'the Launchpad API rate limit applies');
  assert.is(ctx.chain.broadcasts - before, 1);
  assert.is(await committed(ctx.devnet, tx.hash), 0);
  const { query, comet } = await queryClient(ctx.devnet);
  assert.is((await query.bank.balance(to, 'unative')).amount, '4321');
  comet.disconnect();
});

test('CheckTx refusals carry the chain code and log: 32, 11, 4, 5 (and 8 for a key that is not the signer)', async (ctx) => {
  const cases: { name: string; code: number; log: RegExp; tx: () => Promise<{ base64: string; hash: string }> }[] = [
    {
      name: 'wrong sequence',
      code: 32,
      log: /account sequence mismatch/,
      tx: () => signTx(ctx.devnet, 2, (from) => [send(from, from, 1n)], { skip: 3 }),
    },
    {
      name: 'gas limit below what the ante handler uses',
      code: 11,
      log: /out of gas/,
      tx: () => signTx(ctx.devnet, 2, (from) => [send(from, from, 1n)], { gas: 1_000 }),
    },
    {
      name: 'signed for another chain id',
      code: 4,
      log: /signature verification failed/,
      tx: () => signTx(ctx.devnet, 2, (from) => [send(from, from, 1n)], { chainId: 'another-chain-1' }),
    },
    {
      name: 'signed for another account number',
      code: 4,
      log: /signature verification failed/,
      tx: () => signTx(ctx.devnet, 2, (from) => [send(from, from, 1n)], { accountNumberDelta: 1 }),
    },
    {
      // the SDK's answer for a message whose signer is not the key that signed: invalid pubkey
      name: 'signed by another account than the message names',
      code: 8,
      log: /pubKey does not match signer address/,
      tx: async () => {
        const victim = await signingClient(ctx.devnet, 3);
        victim.client.disconnect();
        return signTx(ctx.devnet, 2, () => [send(victim.address, randomAddress(), 1n)]);
      },
    },
  ];
  for (const c of cases) {
    const tx = await c.tx();
    const { status, body } = await post(ctx.api, BROADCAST, { tx_bytes: tx.base64 });
    assert.is(status, 200, `${c.name}: ${JSON.stringify(body)}`);
    assert.is(body.tx_hash, tx.hash, c.name);
    assert.is(body.code, c.code, `${c.name}: ${body.raw_log}`);
    assert.match(body.raw_log, c.log, c.name);
  }

  // insufficient funds: an account holding less than the fee it offers
  const poor = await signingClient(ctx.devnet, 40);
  const rich = await signingClient(ctx.devnet, 4);
  await withBlocks(
    ctx.devnet,
    rich.client.sendTokens(rich.address, poor.address, [{ denom: 'unative', amount: '5000' }], 'auto'),
  );
  rich.client.disconnect();
  poor.client.disconnect();
  const tx = await signTx(ctx.devnet, 40, (from) => [send(from, from, 1n)], {
    fee: { amount: [{ denom: 'unative', amount: '20000' }], gas: '200000' },
  });
  const { body } = await post(ctx.api, BROADCAST, { tx_bytes: tx.base64 });
  assert.is(body.code, 5, body.raw_log);
  assert.match(body.raw_log, /insufficient funds/);
});

test('the same bytes again: the first answer, without a second broadcast; a rejection stays the same', async (ctx) => {
  const tx = await signTx(ctx.devnet, 5, (from) => [send(from, randomAddress(), 10n)]);
  const before = ctx.chain.broadcasts;
  const first = await post(ctx.api, BROADCAST, { tx_bytes: tx.base64 });
  assert.is(first.body.code, 0);
  const again = await post(ctx.api, BROADCAST, { tx_bytes: tx.base64 });
  assert.equal(again.body, first.body, 'not the mempool duplicate (19) a second broadcast would get');
  assert.is(ctx.chain.broadcasts - before, 1);
  await committed(ctx.devnet, tx.hash);
  const later = await post(ctx.api, BROADCAST, { tx_bytes: tx.base64 });
  assert.equal(later.body, first.body, 'still the first answer once committed');
  assert.is(ctx.chain.broadcasts - before, 1);

  const refused = await signTx(ctx.devnet, 5, (from) => [send(from, from, 1n)], { skip: 7 });
  const no = await post(ctx.api, BROADCAST, { tx_bytes: refused.base64 });
  assert.is(no.body.code, 32);
  const noAgain = await post(ctx.api, BROADCAST, { tx_bytes: refused.base64 });
  assert.equal(noAgain.body, no.body);
  assert.is(ctx.chain.broadcasts - before, 2);
  const [row] = await ctx.t.db.query<{ repeats: number }>('SELECT repeats FROM broadcasts WHERE tx_hash = $1', [
    tx.hash,
  ]);
  assert.is(Number(row!.repeats), 2);
});

test('20 concurrent submissions of one tx reach the node once and all get its answer', async (ctx) => {
  const tx = await signTx(ctx.devnet, 6, (from) => [send(from, randomAddress(), 11n)]);
  const before = ctx.chain.broadcasts;
  const answers = await Promise.all(
    Array.from({ length: 20 }, () => post(ctx.api, BROADCAST, { tx_bytes: tx.base64 })),
  );
  for (const a of answers) {
    assert.is(a.status, 200, JSON.stringify(a.body));
    assert.equal(a.body, { tx_hash: tx.hash, code: 0, raw_log: '' });
  }
  assert.is(ctx.chain.broadcasts - before, 1);
  assert.is(await committed(ctx.devnet, tx.hash), 0);
});

test('node unreachable: 503 JSON and nothing remembered; the same bytes broadcast once it is back', async (ctx) => {
  const tx = await signTx(ctx.devnet, 7, (from) => [send(from, randomAddress(), 12n)]);
  await ctx.devnet.pause();
  let down: Awaited<ReturnType<typeof post>>;
  try {
    down = await post(ctx.api, BROADCAST, { tx_bytes: tx.base64 });
  } finally {
    await ctx.devnet.resume();
  }
  assert.is(down.status, 503, JSON.stringify(down.body));
  assert.equal(down.body, { error: 'Service unavailable: the chain node cannot be reached' });
  assert.is(down.headers.get('retry-after'), '5');
  const up = await post(ctx.api, BROADCAST, { tx_bytes: tx.base64 });
  assert.equal(up.body, { tx_hash: tx.hash, code: 0, raw_log: '' });
  assert.is(await committed(ctx.devnet, tx.hash), 0);
});

test('bodies are checked before anything is sent: 400 for JSON, base64 and TxRaw, 413 past the limit', async (ctx) => {
  const before = ctx.chain.broadcasts;
  for (const [body, message] of [
    ['{not json', /must be JSON/],
    ['[1]', /JSON object/],
    [{}, /tx_bytes is required/],
    [{ tx_bytes: 42 }, /base64 string/],
    [{ tx_bytes: 'not*base64!' }, /not base64/],
    [{ tx_bytes: 'AAAA' }, /not a TxRaw/],
    [{ tx_bytes: Buffer.from('hello world, not a transaction').toString('base64') }, /not a TxRaw/],
  ] as const) {
    const answer = await post(ctx.api, BROADCAST, body);
    assert.is(answer.status, 400, JSON.stringify(body));
    assert.is(answer.body.error, 'Invalid request body');
    assert.match(answer.body.details[0].message, message);
  }
  const huge = await post(ctx.api, BROADCAST, { tx_bytes: 'A'.repeat(BODY_LIMIT_BYTES) });
  assert.is(huge.status, 413);
  assert.is(huge.body.error, 'Request body too large');
  assert.is(ctx.chain.broadcasts, before, 'nothing reached the node');

  const preflight = await fetch(`${ctx.api.url}${BROADCAST}`, {
    method: 'OPTIONS',
    headers: {
      Origin: 'https://wallet.example',
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'content-type',
    },
  });
  assert.is(preflight.status, 204);
  assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/);
  assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /content-type/i);
});

test('two API processes on one server database: 20 submissions split between them reach the node once', async (ctx) => {
  const serverUrl = process.env.TEST_DATABASE_URL;
  if (!serverUrl) {
    console.log('  skipped: two API processes share a database only on a server (run with --db server)');
    return;
  }
  const fresh = await freshServerDatabase(serverUrl);
  const dbs = [createServerDatabase({ url: fresh.url }), createServerDatabase({ url: fresh.url })];
  const chains = [countingChain(ctx.devnet), countingChain(ctx.devnet)];
  const apis: LaunchpadApi[] = [];
  try {
    await migrate(dbs[0]!);
    for (let i = 0; i < 2; i++) apis.push(await startWalletApi(dbs[i]!, ctx.devnet, chains[i]!));
    const tx = await signTx(ctx.devnet, 8, (from) => [send(from, randomAddress(), 13n)]);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(apis[i % 2]!, BROADCAST, { tx_bytes: tx.base64 })),
    );
    for (const a of answers) assert.equal(a.body, { tx_hash: tx.hash, code: 0, raw_log: '' });
    assert.is(chains[0]!.broadcasts + chains[1]!.broadcasts, 1);
    assert.is(await committed(ctx.devnet, tx.hash), 0);
  } finally {
    for (const api of apis) await api.close();
    for (const chain of chains) chain.disconnect();
    for (const db of dbs) await db.close();
    await fresh.dispose();
  }
});

test('a refusal whose log holds U+0000 is recorded (as U+FFFD) and answered the same to every submission', async (ctx) => {
  // a fee denom with a U+0000: the node's log names it
  const tx = await signTx(ctx.devnet, 5, (from) => [send(from, from, 1n)], {
    fee: { amount: [{ denom: 'u\0native', amount: '2000' }], gas: '200000' },
  });
  const first = await post(ctx.api, BROADCAST, { tx_bytes: tx.base64 });
  assert.is(first.status, 200, JSON.stringify(first.body));
  assert.ok(first.body.code !== 0, first.body.raw_log);
  assert.match(first.body.raw_log, /u\uFFFDnative/);
  const repeat = await post(ctx.api, BROADCAST, { tx_bytes: tx.base64 });
  assert.equal(repeat.body, first.body);
  const [row] = await ctx.t.db.query<{ raw_log: string }>('SELECT raw_log FROM broadcasts WHERE tx_hash = $1', [
    tx.hash,
  ]);
  assert.is(row!.raw_log, first.body.raw_log);
});

/** Writes `head` to the server, leaves the request unfinished, and reads what it answers until it closes. */
function unfinished(url: string, head: string): Promise<{ text: string; ms: number }> {
  const { hostname, port } = new URL(url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = net.connect(Number(port), hostname, () => socket.write(head));
    socket.on('data', (chunk) => (text += chunk));
    socket.on('close', () => resolve({ text, ms: performance.now() - started }));
    socket.on('error', reject);
  });
}

test('a request still arriving after the request timeout is a 408 JSON; an SSE stream outlives it', async (ctx) => {
  const api = await startWalletApi(ctx.t.db, ctx.devnet, ctx.chain, {}, { requestTimeoutMs: 1000 });
  const stream = await openSse(`${api.url}/api/sse/feed`);
  try {
    const cases = [
      // a body that never finishes: the broadcast route is reading it
      `POST /api/wallet/broadcast HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"tx_bytes":`,
      `POST /api/wallet/broadcast HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"tx_`,
      // headers that never finish
      'GET /api/health HTTP/1.1\r\nHost: x\r\n',
    ];
    const answers = await Promise.all(cases.map((head) => unfinished(api.url, head)));
    for (const [i, { text, ms }] of answers.entries()) {
      assert.match(text, /^HTTP\/1\.1 408 /, `case ${i}: ${text.slice(0, 200)}`);
      assert.equal(JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)), {
        error: 'The request did not arrive in time',
      });
      assert.ok(ms >= 900 && ms < 10_000, `case ${i}: answered after ${Math.round(ms)} ms`);
    }
    // the stream, opened before, is still open and still served
    assert.is(stream.status, 200);
    assert.is(await Promise.race([stream.ended, sleep(500).then(() => 'open')]), 'open');
    assert.is((await get(api, '/api/health')).status, 200);
  } finally {
    stream.close();
    await api.close();
  }
});

test.run();
