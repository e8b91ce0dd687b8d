// GET /cosmos/tx/v1beta1/txs/{hash}, /txs (search) and /txs/block/{height} over HTTP: txs
// from the index equal to the node's (cosmjs reading the devnet), in the gateway's shape;
// each filter form finds what the node's own tx_search finds; pages visit every tx once;
// a second Chain API whose index starts later reads older txs and blocks through from the
// node; every error case; the same answers once the chain index is in the columnstore.

import zlib from 'node:zlib';
import { sha256 } from '@cosmjs/crypto';
import { fromHex, toBase64, toHex, toUtf8 } from '@cosmjs/encoding';
import { decodeTxRaw } from '@cosmjs/proto-signing';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TxRow } from '../../src/api/chain/read-through.ts';
import type { ChainApi } from '../../src/api/chain/server.ts';
import {
  createSpanReader,
  newestPageHolds,
  pageIsFinal,
  type SearchRequest,
  SPAN_TTL_MS,
} from '../../src/api/chain/tx-search.ts';
import { type ChainClient, createChainClient } from '../../src/chain/client.ts';
import type { Queryable } from '../../src/db/types.ts';
import {
  besideIndexer,
  type ChainCtx,
  chainGet,
  chainPost,
  closeChainApi,
  openChainApi,
  startTestChainApi,
} from '../helpers/chain-api.ts';
import {
  batchCompression,
  compressChainIndex,
  hasLz4,
  openTestDatabase,
  type TestDatabase,
} from '../helpers/database.ts';
import { feeFor, randomAddress, signingClient } from '../helpers/devnet.ts';
import { recordErrors } from '../helpers/hostile.ts';
import { assertEncodings, getRaw } from '../helpers/http.ts';
import { produceTraffic, startIndexer, withBlocks } from '../helpers/indexing.ts';
import { assertShape, fixture, shapeDifferences } from '../helpers/rest-shape.ts';

interface Late {
  t: TestDatabase;
  chain: ChainClient;
  api: ChainApi;
  from: number;
}

interface Sent {
  hash: string;
  height: number;
}

type Ctx = ChainCtx & {
  late: Late;
  a1: string;
  a2: string;
  a3: string;
  r1: string;
  r2: string;
  tx1: Sent;
  tx2: Sent;
  failed: Sent;
  series: Sent[];
  /** A height with at least 3 generator txs. */
  busy: number;
};
const test = suite<Ctx>('chain API: transactions', {} as Ctx);
const TXS = '/cosmos/tx/v1beta1/txs';
/** A final answer that prints events: immutable, but a day in the base64 of a Tendermint 0.34 chain (which an upgrade ends). */
const finalWithEvents = (ctx: { devnet: { cometVersion: string } }) =>
  ctx.devnet.cometVersion === '0.34' ? 'public, max-age=86400' : 'public, max-age=31536000, immutable';
const EXECUTE = '/cosmwasm.wasm.v1.MsgExecuteContract';
const q = encodeURIComponent;
const MESSAGES_DIFFER = ['tx.body.messages', 'tx_response.tx.body.messages'];
/** SDK 0.50 leaves `logs` empty (the events carry everything); the fixtures come from older nodes. */
const NO_LOGS = ['tx_response.logs'];

/** What the later index's API logged as errors: shown with an answer it should not have given. */
const lateErrors = recordErrors();

test.before(async (ctx) => {
  await openChainApi(ctx);
  const one = await signingClient(ctx.devnet, 1);
  const two = await signingClient(ctx.devnet, 2);
  const three = await signingClient(ctx.devnet, 3);
  ctx.a1 = one.address;
  ctx.a2 = two.address;
  ctx.a3 = three.address;
  ctx.r1 = randomAddress();
  ctx.r2 = randomAddress();
  const send = async (c: typeof one, to: string, amount: string, memo = '') => {
    const r = await withBlocks(
      ctx.devnet,
      c.client.sendTokens(c.address, to, [{ denom: 'unative', amount }], 'auto', memo),
    );
    return { hash: r.transactionHash, height: r.height, code: r.code };
  };
  ctx.tx1 = await send(one, ctx.r1, '5', 'first');
  ctx.tx2 = await send(two, ctx.r1, '6');
  ctx.series = [];
  for (let i = 1; i <= 7; i++) ctx.series.push(await send(one, ctx.r2, String(i)));
  // a send above the balance: in a block, code 5
  const failed = await withBlocks(
    ctx.devnet,
    three.client.sendTokens(
      three.address,
      ctx.r1,
      [
        { denom: 'unative', amount: '1' },
        { denom: 'nothing', amount: '9' },
      ],
      {
        amount: [{ denom: 'unative', amount: '2000' }],
        gas: '200000',
      },
    ),
  );
  assert.ok(failed.code !== 0, 'the failing send failed');
  ctx.failed = { hash: failed.transactionHash, height: failed.height };
  for (const c of [one, two, three]) c.client.disconnect();
  await produceTraffic(ctx.devnet, 3, 4);
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
  const [busy] = await ctx.t.db.query<{ height: number }>(
    'SELECT height FROM txs GROUP BY height HAVING count(*) >= 3 ORDER BY height LIMIT 1',
  );
  assert.ok(busy, 'a block with 3 txs or more');
  ctx.busy = Number(busy!.height);
  // an index that starts after the series: the sends above are older than it
  const from = ctx.series.at(-1)!.height + 1;
  const t = await openTestDatabase();
  const running = startIndexer(t.db, ctx.devnet, { pollIntervalMs: 100, startHeight: from });
  await running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
  await running.stop();
  const chain = createChainClient(ctx.devnet.rpcUrl);
  ctx.late = { t, chain, api: await startTestChainApi(t, chain, { logger: lateErrors.logger }), from };
});

test.after(async (ctx) => {
  await ctx.late?.api.close();
  ctx.late?.chain.disconnect();
  await ctx.late?.t.dispose();
  await closeChainApi(ctx);
});

const hashOf = (tx: Uint8Array) => toHex(sha256(tx)).toUpperCase();

/** The node's tx_search, every page, in height order. */
async function nodeSearch(ctx: Ctx, query: string): Promise<string[]> {
  const found = await ctx.running.chain.comet.txSearchAll({ query, order_by: 'asc' });
  return found.txs.map((t) => toHex(t.hash).toUpperCase());
}

/** Every page of a search through next_key; the hashes in the order served. */
async function searchAll(api: ChainApi, params: string, limit = 3): Promise<{ hashes: string[]; pages: number }> {
  const hashes: string[] = [];
  let key: string | null = null;
  let pages = 0;
  do {
    const page = `${params}&pagination.limit=${limit}${key ? `&pagination.key=${q(key)}` : ''}`;
    const { status, body } = await chainGet(api, `${TXS}?${page}`);
    assert.is(status, 200, page);
    assert.ok(body.txs.length <= limit);
    assert.is(body.txs.length, body.tx_responses.length);
    hashes.push(...body.tx_responses.map((r: { txhash: string }) => r.txhash));
    key = body.pagination.next_key;
    if (key) assert.match(key, /^[A-Za-z0-9+/]+=*$/);
    pages++;
    assert.ok(pages < 1000);
  } while (key);
  assert.is(new Set(hashes).size, hashes.length, 'no tx twice');
  return { hashes, pages };
}

const searchHashes = async (api: ChainApi, params: string) => {
  const { status, body } = await chainGet(api, `${TXS}?${params}`);
  assert.is(status, 200, params);
  return body.tx_responses.map((r: { txhash: string }) => r.txhash) as string[];
};

test('a tx by hash is the node’s: messages, signer, fee, signatures, result, events, time', async (ctx) => {
  const { status, body } = await chainGet(ctx.api, `${TXS}/${ctx.tx1.hash.toLowerCase()}`);
  assert.is(status, 200);
  const node = await ctx.running.chain.comet.tx({ hash: fromHex(ctx.tx1.hash) });
  const raw = decodeTxRaw(node.tx);
  const r = body.tx_response;
  assert.is(r.txhash, ctx.tx1.hash);
  assert.is(r.height, String(node.height));
  assert.is(r.code, 0);
  assert.is(r.codespace, node.result.codespace ?? '');
  assert.is(r.raw_log, node.result.log ?? '');
  // SDK 0.50 writes no log; an older SDK's message log is parsed into `logs`, every field present
  const written = node.result.log ? (JSON.parse(node.result.log) as { msg_index?: number; log?: string }[]) : [];
  const logs = written.map((l) => ({ msg_index: l.msg_index ?? 0, log: l.log ?? '', ...l }));
  assert.equal(r.logs, logs);
  assert.is(r.gas_wanted, String(node.result.gasWanted));
  assert.is(r.gas_used, String(node.result.gasUsed));
  // as the node prints them on its own RPC: base64 on Tendermint 0.34 (as the gateway of SDK
  // 0.45 and 0.46 prints them too), text from 0.37
  const wire = (await (await fetch(`${ctx.devnet.rpcUrl}/tx?hash=0x${ctx.tx1.hash}`)).json()) as {
    result: { tx_result: { events: { type: string; attributes: { key: string; value: string }[] }[] } };
  };
  assert.equal(
    r.events,
    wire.result.tx_result.events.map((e) => ({
      type: e.type,
      attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: true })),
    })),
  );
  if ((await ctx.running.chain.ready()) === '0.34')
    assert.is(r.events[0].attributes[0].key, toBase64(toUtf8('spender')));
  const { block } = await ctx.running.chain.comet.block(node.height);
  assert.is(r.timestamp, `${(block.header.time as Date).toISOString().slice(0, 19)}Z`);
  assert.equal(body.tx.body.messages, [
    {
      '@type': '/cosmos.bank.v1beta1.MsgSend',
      from_address: ctx.a1,
      to_address: ctx.r1,
      amount: [{ denom: 'unative', amount: '5' }],
    },
  ]);
  assert.is(body.tx.body.memo, 'first');
  assert.is(body.tx.body.timeout_height, '0');
  const signer = raw.authInfo.signerInfos[0]!;
  assert.equal(body.tx.auth_info.signer_infos, [
    {
      public_key: {
        '@type': '/cosmos.crypto.secp256k1.PubKey',
        key: toBase64(PubKey.decode(signer.publicKey!.value).key),
      },
      mode_info: { single: { mode: 'SIGN_MODE_DIRECT' } },
      sequence: signer.sequence.toString(),
    },
  ]);
  assert.equal(body.tx.auth_info.fee, {
    amount: raw.authInfo.fee!.amount.map((c) => ({ denom: c.denom, amount: c.amount })),
    gas_limit: raw.authInfo.fee!.gasLimit.toString(),
    payer: '',
    granter: '',
  });
  assert.is(body.tx.auth_info.tip, null);
  assert.equal(
    body.tx.signatures,
    raw.signatures.map((s) => toBase64(s)),
  );
  assert.equal(r.tx, { '@type': '/cosmos.tx.v1beta1.Tx', ...body.tx });
  assertShape(body, 'tx-by-hash', { ignore: MESSAGES_DIFFER, empty: NO_LOGS });
});

test('a contract call prints its msg as JSON, its funds as coins', async (ctx) => {
  const [hash] = await nodeSearch(ctx, `message.action='${EXECUTE}'`);
  const { status, body } = await chainGet(ctx.api, `${TXS}/${hash}`);
  assert.is(status, 200);
  const [message] = body.tx.body.messages;
  const decoded = decodeTxRaw((await ctx.running.chain.comet.tx({ hash: fromHex(hash!) })).tx);
  const { MsgExecuteContract } = await import('cosmjs-types/cosmwasm/wasm/v1/tx');
  const node = MsgExecuteContract.decode(decoded.body.messages[0]!.value);
  assert.equal(message, {
    '@type': EXECUTE,
    sender: node.sender,
    contract: node.contract,
    msg: JSON.parse(Buffer.from(node.msg).toString('utf8')),
    funds: node.funds.map((c) => ({ denom: c.denom, amount: c.amount })),
  });
  assertShape(body, 'tx-by-hash', { ignore: MESSAGES_DIFFER, empty: NO_LOGS });
});

test('simulate prints its events as the node’s protocol has them: base64 keys and values on Tendermint 0.34', async (ctx) => {
  const { client, address } = await signingClient(ctx.devnet, 3);
  let bytes: Uint8Array;
  try {
    const account = (await client.getAccount(address))!;
    const message = {
      typeUrl: '/cosmos.bank.v1beta1.MsgSend',
      value: { fromAddress: address, toAddress: randomAddress(), amount: [{ denom: 'unative', amount: '7' }] },
    };
    const raw = await client.sign(address, [message], feeFor(200_000), '', {
      accountNumber: account.accountNumber,
      sequence: account.sequence,
      chainId: ctx.devnet.chainId,
    });
    bytes = TxRaw.encode(raw).finish();
  } finally {
    client.disconnect();
  }
  const { status, body } = await chainPost(ctx.api, '/cosmos/tx/v1beta1/simulate', { tx_bytes: toBase64(bytes) });
  assert.is(status, 200, JSON.stringify(body));
  const base64 = (await ctx.running.chain.ready()) === '0.34';
  const keys = body.result.events.flatMap((e: { attributes: { key: string }[] }) => e.attributes.map((a) => a.key));
  assert.ok(keys.length > 0);
  const text = keys.map((k: string) => (base64 ? Buffer.from(k, 'base64').toString('utf8') : k));
  assert.ok(text.includes('sender') && text.includes('amount'), text.join());
  if (base64) assert.ok(!keys.includes('sender'), 'keys in base64');
});

test('a failed tx: its code and raw_log as the node has them', async (ctx) => {
  const { body } = await chainGet(ctx.api, `${TXS}/${ctx.failed.hash}`);
  const node = await ctx.running.chain.comet.tx({ hash: fromHex(ctx.failed.hash) });
  assert.ok(node.result.code !== 0);
  assert.is(body.tx_response.code, node.result.code);
  assert.is(body.tx_response.codespace, node.result.codespace ?? '');
  assert.is(body.tx_response.raw_log, node.result.log);
  assert.ok(body.tx_response.raw_log.length > 0);
  // the ante handler's events stay: it is found by its sender
  const query = `message.sender='${ctx.a3}'`;
  const found = (await searchAll(ctx.api, `events=${q(query)}`)).hashes;
  assert.equal(found, await nodeSearch(ctx, query));
  assert.ok(found.includes(ctx.failed.hash));
});

test('unknown and malformed hashes', async (ctx) => {
  const unknown = toHex(sha256(new TextEncoder().encode('nobody'))); // lower case, as sent
  for (const api of [ctx.api, ctx.late.api]) {
    const { status, body } = await chainGet(api, `${TXS}/${unknown}`);
    assert.is(status, 404);
    assert.equal(body, { code: 5, message: `tx not found: ${unknown}`, details: [] });
    assertShape(body, 'error-tx-not-found');
  }
  for (const [hash, message] of [
    ['xyz', "encoding/hex: invalid byte: U+0078 'x'"],
    ['ABC', 'encoding/hex: odd length hex string'],
    ['ABCD', 'invalid tx hash ABCD: a tx hash is 32 bytes (64 hex digits)'],
    [`${ctx.tx1.hash}00`, `invalid tx hash ${ctx.tx1.hash}00: a tx hash is 32 bytes (64 hex digits)`],
  ] as const) {
    const { status, body } = await chainGet(ctx.api, `${TXS}/${hash}`);
    assert.is(status, 400, hash);
    assert.equal(body, { code: 3, message, details: [] });
  }
});

test('a tx is final: ETag and Cache-Control immutable, 304 for a client that holds it, gzip to one that takes it; an unknown hash is not kept', async (ctx) => {
  const path = `${TXS}/${ctx.tx1.hash}`;
  const { json, etag } = await assertEncodings(`${ctx.api.url}${path}`);
  const first = await chainGet(ctx.api, path);
  assert.is(first.status, 200);
  assert.equal(first.body, JSON.parse(json.toString('utf8')));
  assert.is(first.headers.get('etag'), `W/${etag}`, 'fetch takes gzip: the weak ETag of that form');
  assert.is(first.headers.get('cache-control'), finalWithEvents(ctx));
  assert.is((await getRaw(`${ctx.api.url}${path.toLowerCase()}`)).headers.etag, etag, 'any case of the hash');
  // a cache revalidating it is told the same lifetime (a 304's headers replace those it holds)
  const revalidated = await chainGet(ctx.api, path, { 'If-None-Match': etag });
  assert.is(revalidated.status, 304);
  assert.is(revalidated.headers.get('cache-control'), finalWithEvents(ctx));
  const through = await chainGet(ctx.late.api, path);
  assert.is(through.status, 200, 'read through from the node by an index that does not hold it');
  assert.is(through.headers.get('cache-control'), 'public, max-age=60', 'not the final form: the index keeps no data');
  const unknown = await chainGet(ctx.api, `${TXS}/${'AB'.repeat(32)}`);
  assert.is(unknown.status, 404);
  assert.is(unknown.headers.get('cache-control'), 'no-store', 'a tx not seen yet may come: kept by no cache');
});

test('a tx older than the index is read through from the node', async (ctx) => {
  const [low] = await ctx.late.t.db.query<{ low: number }>('SELECT min(height) AS low FROM txs');
  assert.ok(Number(low!.low) >= ctx.late.from && ctx.tx1.height < ctx.late.from, 'tx1 is older than the late index');
  for (const sent of [ctx.tx1, ctx.failed, ...ctx.series]) {
    const indexed = await chainGet(ctx.api, `${TXS}/${sent.hash}`);
    const through = await chainGet(ctx.late.api, `${TXS}/${sent.hash.toLowerCase()}`);
    assert.is(through.status, 200, `${JSON.stringify(through.body)}: ${lateErrors.serverErrors.at(-1) ?? ''}`);
    // the node also has the result's data, which the index does not keep
    const node = await ctx.running.chain.comet.tx({ hash: fromHex(sent.hash) });
    assert.is(through.body.tx_response.data, toHex(node.result.data ?? new Uint8Array()).toUpperCase());
    assert.is(indexed.body.tx_response.data, '');
    through.body.tx_response.data = '';
    assert.equal(through.body, indexed.body);
  }
});

test('each filter form finds what the node’s tx_search finds', async (ctx) => {
  const forms: [string, string][] = [
    [`events=${q(`message.sender='${ctx.a1}'`)}`, `message.sender='${ctx.a1}'`],
    [`events=${q(`transfer.recipient='${ctx.r1}'`)}`, `transfer.recipient='${ctx.r1}'`],
    [`events=${q(`message.action='${EXECUTE}'`)}`, `message.action='${EXECUTE}'`],
    [`events=${q(`message.action='/cosmos.bank.v1beta1.MsgSend'`)}`, `message.action='/cosmos.bank.v1beta1.MsgSend'`],
    [`events=${q(`tx.height=${ctx.busy}`)}`, `tx.height=${ctx.busy}`],
    [`events=${q(`tx.height='${ctx.busy}'`)}`, `tx.height=${ctx.busy}`],
    // SDK 0.45 clients send values unquoted
    [`events=${q(`transfer.recipient=${ctx.r2}`)}`, `transfer.recipient='${ctx.r2}'`],
    // SDK 0.50 clients send a query
    [`query=${q(`message.sender='${ctx.a2}'`)}`, `message.sender='${ctx.a2}'`],
    [`query=${q(`tx.height = ${ctx.tx2.height}`)}`, `tx.height=${ctx.tx2.height}`],
  ];
  for (const [params, query] of forms) {
    const expected = await nodeSearch(ctx, query);
    assert.ok(expected.length > 0, query);
    assert.equal((await searchAll(ctx.api, params)).hashes, expected, params);
  }
  assert.equal(await nodeSearch(ctx, `transfer.recipient='${ctx.r1}'`), [ctx.tx1.hash, ctx.tx2.hash]);
  const { block } = await ctx.running.chain.comet.block(ctx.busy);
  assert.equal(await searchHashes(ctx.api, `events=${q(`tx.height=${ctx.busy}`)}`), block.txs.map(hashOf));
});

test('conditions combine with AND: several events=, a query, or both', async (ctx) => {
  const recipient = `transfer.recipient='${ctx.r1}'`;
  const sender = `message.sender='${ctx.a2}'`;
  assert.equal(await searchHashes(ctx.api, `events=${q(recipient)}&events=${q(sender)}`), [ctx.tx2.hash]);
  assert.equal(await searchHashes(ctx.api, `query=${q(`${recipient} AND ${sender}`)}`), [ctx.tx2.hash]);
  assert.equal(await searchHashes(ctx.api, `events=${q(recipient)}&query=${q(sender)}`), [ctx.tx2.hash]);
  assert.equal(await searchHashes(ctx.api, `query=${q(`${recipient} AND tx.height=${ctx.tx1.height}`)}`), [
    ctx.tx1.hash,
  ]);
  assert.equal(
    await searchHashes(
      ctx.api,
      `query=${q(`${recipient} AND message.sender='${ctx.a1}' AND message.action='/cosmos.bank.v1beta1.MsgSend'`)}`,
    ),
    [ctx.tx1.hash],
  );
  assert.equal(
    await searchHashes(
      ctx.api,
      `events=${q(`tx.height=${ctx.tx1.height}`)}&events=${q(`tx.height=${ctx.tx2.height}`)}`,
    ),
    [],
  );
  assert.equal(await searchHashes(ctx.api, `events=${q(`transfer.recipient='${ctx.r2}'`)}&events=${q(sender)}`), []);
  // one height however it is written; one condition however often it is repeated
  const atHeight = await searchHashes(ctx.api, `events=${q(`tx.height=${ctx.tx1.height}`)}`);
  assert.ok(atHeight.includes(ctx.tx1.hash));
  assert.equal(
    await searchHashes(ctx.api, `query=${q(`tx.height=${ctx.tx1.height} AND tx.height=00${ctx.tx1.height}`)}`),
    atHeight,
  );
  assert.equal(
    await searchHashes(
      ctx.api,
      Array(40)
        .fill(`events=${q(recipient)}`)
        .join('&'),
    ),
    [ctx.tx1.hash, ctx.tx2.hash],
  );
});

test('at most 8 distinct event conditions in one search (each is a join): 400 code 3 past that', async (ctx) => {
  const others = (n: number) => Array.from({ length: n }, (_, i) => `message.sender='${randomAddress()}${i}'`);
  const eight = [`transfer.recipient='${ctx.r1}'`, ...others(7)];
  const { status, body } = await chainGet(ctx.api, `${TXS}?query=${q(eight.join(' AND '))}`);
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(body.tx_responses, []);
  for (const nine of [
    `query=${q([...eight, `message.action='x'`].join(' AND '))}`,
    [...eight, `message.action='x'`].map((c) => `events=${q(c)}`).join('&'),
    `query=${q(others(60).join(' AND '))}`,
  ]) {
    const refused = await chainGet(ctx.api, `${TXS}?${nine}`);
    assert.is(refused.status, 400);
    assert.is(refused.body.code, 3);
    assert.match(refused.body.message, /too many conditions: \d+ event conditions besides tx\.height; at most 8/);
  }
});

test('order and pages: next_key visits every tx once, both directions', async (ctx) => {
  const series = ctx.series.map((s) => s.hash);
  const recipient = `events=${q(`transfer.recipient='${ctx.r2}'`)}`;
  const asc = await searchAll(ctx.api, recipient);
  assert.equal(asc.hashes, series);
  assert.is(asc.pages, 3);
  for (const desc of ['order_by=ORDER_BY_DESC', 'order_by=2', 'order_by=ORDER_BY_DESC&pagination.reverse=true']) {
    assert.equal((await searchAll(ctx.api, `${recipient}&${desc}`)).hashes, [...series].reverse(), desc);
  }
  // a node's tx search reads no pagination.reverse: a wallet's history sends it with ORDER_BY_DESC
  assert.equal((await searchAll(ctx.api, `${recipient}&pagination.reverse=true`)).hashes, series, 'reverse alone');
  assert.equal((await searchAll(ctx.api, `${recipient}&order_by=ORDER_BY_ASC`, 1)).hashes, series);
  assert.equal((await searchAll(ctx.api, `${recipient}&order_by=1`, 7)).hashes, series);
  // txs of one block: the cursor steps through tx indexes
  const { block } = await ctx.running.chain.comet.block(ctx.busy);
  const busy = `events=${q(`tx.height=${ctx.busy}`)}`;
  assert.equal((await searchAll(ctx.api, busy, 1)).hashes, block.txs.map(hashOf));
  assert.equal((await searchAll(ctx.api, `${busy}&order_by=ORDER_BY_DESC`, 2)).hashes, block.txs.map(hashOf).reverse());
  const action = `events=${q(`message.action='${EXECUTE}'`)}`;
  assert.equal((await searchAll(ctx.api, action, 2)).hashes, await nodeSearch(ctx, `message.action='${EXECUTE}'`));
});

test('totals: counted on every page but a key page, as a node counts tx_search; offsets; SDK 0.47 page/limit', async (ctx) => {
  const series = ctx.series.map((s) => s.hash);
  const recipient = `events=${q(`transfer.recipient='${ctx.r2}'`)}`;
  const get = async (params: string) => (await chainGet(ctx.api, `${TXS}?${recipient}&${params}`)).body;
  const counted = await get('pagination.limit=3&pagination.count_total=true');
  assert.equal(counted.pagination.total, '7');
  assert.is(counted.total, '7');
  const notAsked = await get('pagination.limit=3');
  assert.is(notAsked.pagination.total, '7', 'a wallet pages by the total without asking for it');
  assert.is(notAsked.total, '7');
  // a wallet's history, as Station asks for it
  const station = await get('pagination.reverse=true&order_by=ORDER_BY_DESC&pagination.limit=3');
  assert.equal(
    station.tx_responses.map((r: { txhash: string }) => r.txhash),
    [...series].reverse().slice(0, 3),
  );
  assert.is(station.total, '7');
  const keyPage = await get(`pagination.key=${q(notAsked.pagination.next_key)}&pagination.count_total=true`);
  assert.is(keyPage.total, '0');
  assert.equal(
    keyPage.tx_responses.map((r: { txhash: string }) => r.txhash),
    series.slice(3),
  );
  const plain = await get('');
  assert.is(plain.total, '7');
  assert.is(plain.pagination.next_key, null);
  const offset = await get('pagination.offset=2&pagination.limit=3');
  assert.equal(
    offset.tx_responses.map((r: { txhash: string }) => r.txhash),
    series.slice(2, 5),
  );
  assert.ok(offset.pagination.next_key);
  const legacy = await get('page=2&limit=3');
  assert.equal(
    legacy.tx_responses.map((r: { txhash: string }) => r.txhash),
    series.slice(3, 6),
  );
  assert.is(legacy.total, '7');
  const last = await get('page=3&limit=3');
  assert.equal(
    last.tx_responses.map((r: { txhash: string }) => r.txhash),
    series.slice(6),
  );
  assert.is(last.pagination.next_key, null);
  // a page holds at most 100
  const capped = await get('pagination.limit=1000');
  assert.is(capped.txs.length, 7);
});

test('the shape of a node’s search answer (txs-search.json; pagination an object, total beside it)', async (ctx) => {
  const { body } = await chainGet(ctx.api, `${TXS}?events=${q(`transfer.recipient='${ctx.r1}'`)}`);
  assertShape(body, 'txs-search', {
    nullable: ['pagination'],
    empty: ['tx_responses[].logs'],
    ignore: ['txs[].body.messages', 'tx_responses[].tx.body.messages'],
  });
  assert.equal(Object.keys(body.pagination), ['next_key', 'total']);
  assert.is(body.txs.length, 2);
  for (let i = 0; i < 2; i++)
    assert.equal(body.tx_responses[i].tx, { '@type': '/cosmos.tx.v1beta1.Tx', ...body.txs[i] });
  const byHash = await chainGet(ctx.api, `${TXS}/${ctx.tx2.hash}`);
  assert.equal(body.tx_responses[1], byHash.body.tx_response);
});

test('a search page is gzipped for a client that takes gzip, and the same JSON as it is for one that does not', async (ctx) => {
  const url = `${ctx.api.url}${TXS}?events=${q(`transfer.recipient='${ctx.r1}'`)}`;
  const gzipped = await getRaw(url, { 'Accept-Encoding': 'gzip, deflate, br' });
  assert.is(gzipped.status, 200);
  assert.is(gzipped.headers['content-encoding'], 'gzip');
  assert.is(gzipped.headers.vary, 'Accept-Encoding');
  const json = zlib.gunzipSync(gzipped.body);
  assert.ok(gzipped.body.length < json.length / 2, `${json.length} bytes, ${gzipped.body.length} gzipped`);
  for (const refuses of [{}, { 'Accept-Encoding': 'gzip;q=0, identity' }] as Record<string, string>[]) {
    const plain = await getRaw(url, refuses);
    assert.is(plain.status, 200);
    assert.is(plain.headers['content-encoding'], undefined, JSON.stringify(refuses));
    assert.is(plain.headers.vary, 'Accept-Encoding');
    assert.is(Number(plain.headers['content-length']), plain.body.length);
    assert.ok(plain.body.equals(json), 'the same JSON in both forms');
  }
  assert.is(JSON.parse(json.toString('utf8')).txs.length, 2);
});

test('a search page that can never change is kept and says so (ETag, immutable, 304); one that can change says max-age=1', async (ctx) => {
  const CHANGING = 'public, max-age=1';
  const sender = `events=${q(`message.sender='${ctx.a1}'`)}&pagination.limit=3`;
  // a first page counts its total, which grows with the index: it can change
  const top = await getRaw(`${ctx.api.url}${TXS}?${sender}`);
  assert.is(top.headers['cache-control'], CHANGING, 'its total grows');
  const page = JSON.parse(top.body.toString('utf8'));
  assert.is(page.txs.length, 3);
  assert.ok(page.pagination.next_key);
  // the page after it by its key: the index starts at height 1 and has the match after the
  // page, so nothing can join its 3 txs
  const second = `${sender}&pagination.key=${q(page.pagination.next_key)}`;
  const first = await assertEncodings(`${ctx.api.url}${TXS}?${second}`);
  const again = await getRaw(`${ctx.api.url}${TXS}?${second}`);
  assert.is(again.headers['cache-control'], finalWithEvents(ctx));
  assert.ok(again.body.equals(first.json), 'the same bytes, kept');
  const held = await getRaw(
    `${ctx.api.url}${TXS}?pagination.key=${q(page.pagination.next_key)}&pagination.limit=3&events=${q(`message.sender='${ctx.a1}'`)}`,
    { 'If-None-Match': first.etag },
  );
  assert.is(held.status, 304, 'the same page asked another way, by a client that holds it');
  // a key this search did not give (the position of no match) is answered, but its page is not kept
  const madeUp = new Uint8Array(12);
  new DataView(madeUp.buffer).setBigUint64(0, BigInt(ctx.tx1.height));
  new DataView(madeUp.buffer).setUint32(8, 9999);
  const invented = await getRaw(`${ctx.api.url}${TXS}?${sender}&pagination.key=${q(toBase64(madeUp))}`);
  assert.is(invented.status, 200);
  assert.ok(JSON.parse(invented.body.toString('utf8')).pagination.next_key, 'a page with a match after it');
  assert.is(invented.headers['cache-control'], CHANGING);
  // the next page, by key, both directions
  const next = await getRaw(`${ctx.api.url}${TXS}?${sender}&pagination.key=${q(page.pagination.next_key)}`);
  assert.is(next.headers['cache-control'], finalWithEvents(ctx));
  const newest = await getRaw(`${ctx.api.url}${TXS}?${sender}&order_by=ORDER_BY_DESC`);
  assert.is(newest.status, 200);
  assert.is(newest.headers['cache-control'], CHANGING, 'the newest first: new txs come on top');
  // a page that can change has an ETag too: rendered again for a client that holds it, then 304
  const again304 = await getRaw(`${ctx.api.url}${TXS}?${sender}&order_by=ORDER_BY_DESC`, {
    'If-None-Match': newest.headers.etag!,
  });
  assert.is(again304.status, 304);
  assert.is(again304.headers['cache-control'], CHANGING);
  const older = JSON.parse(newest.body.toString('utf8')).pagination.next_key as string;
  const below = await getRaw(`${ctx.api.url}${TXS}?${sender}&order_by=ORDER_BY_DESC&pagination.key=${q(older)}`);
  assert.is(below.headers['cache-control'], finalWithEvents(ctx), 'below a key, newest first');
  // pages that can change: the last (more may match later), a counted total, an index that may be backfilled below
  const { hashes } = await searchAll(ctx.api, `events=${q(`message.sender='${ctx.a1}'`)}`, 3);
  const lastKey = JSON.parse(
    (
      await getRaw(
        `${ctx.api.url}${TXS}?events=${q(`message.sender='${ctx.a1}'`)}&pagination.limit=${hashes.length - 1}`,
      )
    ).body.toString('utf8'),
  ).pagination.next_key as string;
  const last = await getRaw(`${ctx.api.url}${TXS}?${sender}&pagination.key=${q(lastKey)}`);
  assert.is(JSON.parse(last.body.toString('utf8')).pagination.next_key, null, 'the last page');
  assert.is(last.headers['cache-control'], CHANGING, 'the last page: a new match would join it');
  const counted = await getRaw(`${ctx.api.url}${TXS}?${sender}&pagination.count_total=true`);
  assert.is(counted.headers['cache-control'], CHANGING, 'its total grows');
  const late = `events=${q(`message.action='${EXECUTE}'`)}&pagination.limit=2`;
  const lateFirst = await getRaw(`${ctx.late.api.url}${TXS}?${late}`);
  const latePage = JSON.parse(lateFirst.body.toString('utf8'));
  assert.ok(latePage.pagination.next_key);
  assert.is(lateFirst.headers['cache-control'], CHANGING, 'an index from a later height: a backfill may add older txs');
  const lateNext = await getRaw(`${ctx.late.api.url}${TXS}?${late}&pagination.key=${q(latePage.pagination.next_key)}`);
  assert.is(lateNext.headers['cache-control'], finalWithEvents(ctx), 'from a key within the index');
});

test('which pages are final: from a key it gave (or the start) to the match after it, all within the index', () => {
  const check = (req: Partial<SearchRequest>, next?: number, span = { first: 10, last: 100 }) => {
    const full = { conditions: [], descending: false, offset: 0, limit: 3, countTotal: false, ...req };
    // a key page begins with the match the key names
    const rows = full.cursor ? [{ height: full.cursor.height, tx_index: full.cursor.txIndex } as TxRow] : [];
    return pageIsFinal(full, { rows, next: next === undefined ? undefined : { height: next, txIndex: 0 } }, span);
  };
  const fromOne = { first: 1, last: 100 };
  assert.ok(check({}, 50, fromOne), 'from the chain’s start');
  assert.ok(check({ offset: 30 }, 50, fromOne), 'an offset from the chain’s start');
  assert.not.ok(check({}, 50), 'from the start of an index that a backfill may extend below');
  assert.ok(check({ cursor: { height: 10, txIndex: 0 } }, 50));
  assert.not.ok(check({ cursor: { height: 9, txIndex: 0 } }, 50), 'from below the index');
  assert.not.ok(check({ cursor: { height: 20, txIndex: 0 } }), 'no match after it');
  assert.not.ok(check({ cursor: { height: 20, txIndex: 0 } }, 101), 'the match after it past the index (not read yet)');
  assert.not.ok(check({ cursor: { height: 20, txIndex: 0 }, countTotal: true }, 50), 'a total');
  const madeUp = pageIsFinal(
    { conditions: [], descending: false, offset: 0, limit: 3, countTotal: false, cursor: { height: 20, txIndex: 7 } },
    { rows: [{ height: 20, tx_index: 8 } as TxRow], next: { height: 50, txIndex: 0 } },
    { first: 10, last: 100 },
  );
  assert.not.ok(madeUp, 'a key that names no match');
  assert.ok(check({ conditions: [{ key: 'tx.height', value: '40' }] }, 40), 'one height, within the index');
  assert.not.ok(check({ conditions: [{ key: 'tx.height', value: '5' }] }, 5), 'one height, below it');
  assert.not.ok(check({ descending: true }, 50), 'the newest first');
  assert.ok(check({ descending: true, cursor: { height: 90, txIndex: 0 } }, 50));
  assert.not.ok(check({ descending: true, cursor: { height: 101, txIndex: 0 } }, 50), 'from above the tip');
  assert.not.ok(check({ descending: true, cursor: { height: 90, txIndex: 0 } }, 9), 'down to below the index');
  assert.ok(check({ descending: true, conditions: [{ key: 'tx.height', value: '40' }] }, 40));
});

test('which pages of the newest first hold until the next block: a backfill cannot reach them', () => {
  const holds = (req: Partial<SearchRequest>, next?: number, span = { first: 10, last: 100 }) =>
    newestPageHolds(
      { conditions: [], descending: true, offset: 0, limit: 3, countTotal: false, ...req },
      { rows: [], next: next === undefined ? undefined : { height: next, txIndex: 0 } },
      span,
    );
  assert.ok(holds({}, 50), 'the match after it within the index');
  assert.ok(holds({}, 10));
  assert.not.ok(holds({}, 9), 'the match after it below the index’s first height (read through a backfill)');
  assert.not.ok(holds({}), 'every match on the page: a backfill below may add more');
  assert.ok(holds({}, undefined, { first: 1, last: 100 }), 'every match, from height 1');
  assert.not.ok(holds({ countTotal: true }, 50), 'a total');
  assert.not.ok(holds({ descending: false }, 50), 'the oldest first');
  assert.not.ok(holds({ cursor: { height: 90, txIndex: 0 } }, 50), 'a key page (final or not, decided by pageIsFinal)');
  assert.not.ok(holds({ conditions: [{ key: 'tx.height', value: '40' }] }, 40), 'one height');
});

test('the newest first follows each block: at once beside the indexer, within a quarter second from another process', async (ctx) => {
  const newest = (api: ChainApi) =>
    chainGet(api, `${TXS}?events=${q(`transfer.recipient='${ctx.r1}'`)}&order_by=ORDER_BY_DESC&pagination.limit=1`);
  // a Chain API that only reads the index (no indexer in its process), on the same database
  const reader = await startTestChainApi(ctx.t, ctx.running.chain);
  try {
    const [before, readerBefore] = [await newest(ctx.api), await newest(reader)];
    assert.equal(readerBefore.body, before.body);
    const sent = await sendIndexed(ctx, '3', 'on top');
    // beside the indexer: on the page as soon as its block is committed
    assert.is((await newest(ctx.api)).body.tx_responses[0].txhash, sent.transactionHash);
    // elsewhere: once the span it keeps (a quarter second) is read again
    let seen = '';
    for (let tries = 0; tries < 50 && seen !== sent.transactionHash; tries++) {
      seen = (await newest(reader)).body.tx_responses[0].txhash;
      if (seen !== sent.transactionHash) await new Promise((r) => setTimeout(r, 100));
    }
    assert.is(seen, sent.transactionHash);
  } finally {
    await reader.close();
  }
});

test('the index’s span is read once a quarter second, and again at once when the indexer beside it moves on', async (ctx) => {
  let reads = 0;
  const counted: Queryable = {
    query: (text, params) => {
      reads++;
      return ctx.t.db.query(text as string, params);
    },
    exec: (script) => ctx.t.db.exec(script),
    copyIn: (...args) => ctx.t.db.copyIn(...args),
  };
  let indexed: number | null = null;
  let now = 0;
  const span = createSpanReader(
    counted,
    () => indexed,
    () => now,
  );
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
  const first = span();
  assert.is(span(), first, 'asked twice at once: one read');
  const held = await first;
  assert.ok(held && held.last >= held.first, 'the index’s heights');
  assert.is(held!.last, ctx.running.indexer.status().indexedHeight);
  indexed = held!.last;
  await span();
  assert.is(reads, 1, 'the indexer beside it is where the span ends: kept');
  indexed = held!.last + 1;
  await span();
  assert.is(reads, 2, 'the indexer committed a block beyond it: read again');
  indexed = null;
  now += SPAN_TTL_MS - 1;
  await span();
  assert.is(reads, 2, 'a quarter second old at most: kept');
  now += 1;
  await span();
  assert.is(reads, 3, 'a quarter second old: read again');
  // a read on its way when the indexer commits a block is not the answer after that commit
  indexed = held!.last;
  now += SPAN_TTL_MS;
  const begun = span();
  indexed = held!.last + 1;
  assert.is.not(span(), begun, 'read again: the indexer committed while the read was on its way');
  await Promise.all([begun, span()]);
  assert.is(reads, 5, 'the second read is the one kept');
});

test('search errors', async (ctx) => {
  const expect = async (params: string, message: string | RegExp) => {
    const { status, body } = await chainGet(ctx.api, `${TXS}${params}`);
    assert.is(status, 400, params);
    assert.is(body.code, 3, params);
    assert.equal(body.details, []);
    if (typeof message === 'string') assert.is(body.message, message, params);
    else assert.match(body.message, message, params);
  };
  await expect('', 'must declare at least one event to search');
  assert.equal(
    (await chainGet(ctx.api, `${TXS}?order_by=ORDER_BY_DESC`)).body,
    fixture('error-txs-must-declare-event-sdk047'),
  );
  const le = await chainGet(ctx.api, `${TXS}?events=${q('tx.height<=10')}`);
  assert.equal(le.body, fixture('error-txs-invalid-event-sdk046'));
  await expect(
    `?events=${q('message.sender')}`,
    'invalid event; event message.sender should be of the format: {eventType}.{eventAttribute}={value}',
  );
  await expect(`?events=${q("message.sender=''a b'")}`, /should be of the format/);
  const keys = /message\.sender, message\.action, transfer\.recipient, tx\.height/;
  await expect(`?events=${q("wasm._contract_address='native1x'")}`, keys);
  await expect(`?events=${q("transfer.sender='native1x'")}`, keys);
  await expect(`?query=${q(`message.sender='${ctx.a1}' AND coin_spent.spender='x'`)}`, keys);
  await expect(`?query=${q('tx.height > 5')}`, /only = \(equality\)/);
  await expect(`?query=${q('tx.height EXISTS')}`, /only = \(equality\)/);
  await expect(`?query=${q('nonsense')}`, /invalid query/);
  await expect(`?query=${q("message.sender='a' OR message.sender='b'")}`, /invalid query/);
  await expect(`?events=${q('tx.height=abc')}`, /tx\.height must be a non-negative integer/);
  const ok = `events=${q(`transfer.recipient='${ctx.r2}'`)}`;
  await expect(`?${ok}&order_by=SIDEWAYS`, 'type mismatch, parameter: order_by, error: SIDEWAYS is not valid');
  await expect(`?${ok}&pagination.key=AAAA`, /invalid pagination.key/);
  // a 12-byte key whose tx index is beyond a PostgreSQL integer was not made by this search
  await expect(`?${ok}&pagination.key=${q('AAAAAAAAAAX/////')}`, /invalid pagination.key/);
  // PostgreSQL's text holds no NUL: a value with one is refused, not sent to the database
  await expect(`?events=${q("message.sender='abc\0'")}`, /cannot contain a NUL character/);
  await expect(`?query=${q("message.action='a\0b'")}`, /cannot contain a NUL character/);
  await expect(`?${ok}&pagination.key=AAAAAAAAAAAAAAAA&pagination.offset=1`, /either offset or key/);
  await expect(`?${ok}&pagination.limit=x`, /type mismatch, parameter: pagination.limit/);
  await expect(`?${ok}&page=-1`, /type mismatch, parameter: page/);
});

test('a block’s txs: GetBlockWithTxs from the index, pages, read through below the index', async (ctx) => {
  const { status, body } = await chainGet(ctx.api, `${TXS}/block/${ctx.busy}`);
  assert.is(status, 200);
  const { block } = await ctx.running.chain.comet.block(ctx.busy);
  const hashes = block.txs.map(hashOf);
  const singles = await Promise.all(hashes.map(async (h) => (await chainGet(ctx.api, `${TXS}/${h}`)).body.tx));
  assert.equal(body.txs, singles);
  const plainBlock = (await chainGet(ctx.api, `/cosmos/base/tendermint/v1beta1/blocks/${ctx.busy}`)).body;
  assert.equal(body.block_id, plainBlock.block_id);
  assert.equal(body.block, plainBlock.block);
  assert.equal(body.pagination, { next_key: null, total: String(hashes.length) });
  assertShape({ block_id: body.block_id, block: body.block }, 'blocks-height', { ignore: ['sdk_block'] });
  // no recorded GetBlockWithTxs answer: its txs are a search answer's txs, its pagination a page's
  const search = fixture('txs-search') as { txs: unknown[] };
  const page = fixture('staking-validators') as { pagination: unknown };
  assert.equal(shapeDifferences(body.txs, search.txs, { ignore: ['[].body.messages'] }), []);
  assert.equal(shapeDifferences(body.pagination, page.pagination), []);

  // pages through next_key, offsets, reverse
  const seen: unknown[] = [];
  let key: string | null = null;
  do {
    const page: { txs: unknown[]; pagination: { next_key: string | null } } = (
      await chainGet(ctx.api, `${TXS}/block/${ctx.busy}?pagination.limit=2${key ? `&pagination.key=${q(key)}` : ''}`)
    ).body;
    assert.ok(page.txs.length <= 2);
    seen.push(...page.txs);
    key = page.pagination.next_key;
  } while (key);
  assert.equal(seen, singles);
  const second = (await chainGet(ctx.api, `${TXS}/block/${ctx.busy}?pagination.offset=1&pagination.limit=1`)).body;
  assert.equal(second.txs, [singles[1]]);
  const reversed = (await chainGet(ctx.api, `${TXS}/block/${ctx.busy}?pagination.reverse=true`)).body;
  assert.equal(reversed.txs, [...singles].reverse());
  const beyond = await chainGet(ctx.api, `${TXS}/block/${ctx.busy}?pagination.offset=${hashes.length}`);
  assert.is(beyond.status, 400);
  assert.is(beyond.body.code, 3);
  assert.is(beyond.headers.get('cache-control'), 'no-store', 'an error is kept by no cache');
  assert.is((await chainGet(ctx.api, `${TXS}/block/${ctx.busy}?pagination.offset=${hashes.length}`)).status, 400);

  // final once the block exists: kept, ETag and immutable, 304 for a client that holds a page
  const pageUrl = `${ctx.api.url}${TXS}/block/${ctx.busy}?pagination.limit=2`;
  // the block's txs as base64 (their signatures random bytes) beside them: ~half of it gzipped
  const { json, etag } = await assertEncodings(pageUrl, { gzipAtMost: 0.75 });
  assert.equal(JSON.parse(json.toString('utf8')).txs, singles.slice(0, 2));
  const kept = await getRaw(pageUrl);
  assert.is(kept.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.ok(kept.body.equals(json));
  assert.is((await getRaw(pageUrl, { 'If-None-Match': etag })).status, 304);
  const other = await getRaw(`${ctx.api.url}${TXS}/block/${ctx.busy}?pagination.limit=2&pagination.reverse=true`);
  assert.not.equal(other.headers.etag, etag, 'another page, another answer');

  // below the late index: read through from the node, the same answer
  for (const height of [ctx.tx1.height, ctx.series[3]!.height, ctx.busy]) {
    const indexed = await chainGet(ctx.api, `${TXS}/block/${height}`);
    const through = await chainGet(ctx.late.api, `${TXS}/block/${height}`);
    assert.is(through.status, 200);
    assert.equal(through.body, indexed.body, `height ${height}`);
  }
  assert.ok(ctx.tx1.height < ctx.late.from);
});

test('a block’s txs: height errors', async (ctx) => {
  const tip = (await ctx.running.chain.comet.status()).syncInfo.latestBlockHeight;
  for (const api of [ctx.api, ctx.late.api]) {
    for (const height of [0, -2, tip + 10]) {
      const { status, body } = await chainGet(api, `${TXS}/block/${height}`);
      assert.is(status, 400, String(height));
      assert.equal(body, {
        code: 3,
        message: `requested height ${height} but height must not be less than 1 or greater than the current height ${tip}: invalid height`,
        details: [],
      });
    }
    const abc = await chainGet(api, `${TXS}/block/abc`);
    assert.is(abc.status, 400);
    assert.equal(abc.body, fixture('error-block-height-not-a-number'));
  }
});

test('a node that cannot be reached: indexed txs answer; a hash the index lacks is 503', async (ctx) => {
  const uncached = await startTestChainApi(ctx.late.t, ctx.late.chain, { cacheBytes: 0 });
  await ctx.devnet.pause();
  try {
    assert.is((await chainGet(uncached, `${TXS}/${await lateHash(ctx)}`)).status, 200);
    // tx1 is older than the late index: read through before, it was not kept (not its final form)
    for (const api of [ctx.late.api, uncached]) {
      const older = await chainGet(api, `${TXS}/${ctx.tx1.hash}`);
      assert.is(older.status, 503);
      assert.equal(older.body, { code: 14, message: 'the chain node cannot be reached', details: [] });
    }
    const search = await chainGet(ctx.late.api, `${TXS}?events=${q(`message.action='${EXECUTE}'`)}`);
    assert.is(search.status, 200);
    assert.ok(search.body.txs.length > 0);
  } finally {
    await ctx.devnet.resume();
    await uncached.close();
  }
});

test('a Chain API that has not read the node’s protocol yet: indexed txs answer with events as text, kept by no cache, until the node says', async (ctx) => {
  const path = `${TXS}/${await lateHash(ctx)}`;
  const search = `${TXS}?events=${q(`message.action='${EXECUTE}'`)}&pagination.limit=1`;
  let textKey: string;
  // started while its node cannot be reached
  await ctx.devnet.pause();
  const fresh = createChainClient(ctx.devnet.rpcUrl, { attempts: 1 });
  const api = await startTestChainApi(ctx.late.t, fresh);
  try {
    const unsure = await chainGet(api, path);
    assert.is(unsure.status, 200);
    assert.is(unsure.headers.get('cache-control'), 'public, max-age=60', 'not known to be its final form');
    textKey = unsure.body.tx_response.events[0].attributes[0].key;
    const page = await chainGet(api, search);
    assert.is(page.status, 200);
    assert.is(page.headers.get('cache-control'), 'public, max-age=1');
  } finally {
    await ctx.devnet.resume();
  }
  try {
    const known = await chainGet(api, path);
    assert.is(known.status, 200);
    assert.is(known.headers.get('cache-control'), finalWithEvents(ctx));
    assert.equal(known.body, (await chainGet(ctx.late.api, path)).body);
    const [attribute] = known.body.tx_response.events[0].attributes;
    const base64 = (await fresh.ready()) === '0.34';
    assert.is(base64 ? Buffer.from(attribute.key, 'base64').toString('utf8') : attribute.key, textKey);
    if (base64) assert.is.not(attribute.key, textKey);
  } finally {
    await api.close();
    fresh.disconnect();
  }
});

test('the chain index in the columnstore: every tx by hash, a search’s pages and a block’s txs answer as from the rowstore, and blocks indexed after go on', async (ctx) => {
  const paths = [
    ...[ctx.tx1, ctx.tx2, ctx.failed, ...ctx.series].map((s) => `${TXS}/${s.hash}`),
    ...[`message.sender='${ctx.a1}'`, `transfer.recipient='${ctx.r1}'`, `message.action='${EXECUTE}'`].flatMap((e) => [
      `${TXS}?events=${q(e)}&pagination.limit=3&pagination.count_total=true`,
      `${TXS}?events=${q(e)}&pagination.limit=3&pagination.offset=3&order_by=ORDER_BY_DESC`,
    ]),
    `${TXS}?events=${q(`message.sender='${ctx.a1}'`)}&events=${q(`transfer.recipient='${ctx.r2}'`)}`,
    `${TXS}/block/${ctx.busy}?pagination.limit=2&pagination.offset=1`,
  ];
  const before = await Promise.all(paths.map((p) => chainGet(ctx.api, p)));
  for (const [i, r] of before.entries()) assert.is(r.status, 200, paths[i]);
  const compressed = await compressChainIndex(ctx.t.db);
  assert.ok(compressed.txs > 0 && compressed.refs > 0, 'chunks of txs and of the attribute index were compressed');
  // each compressed batch's events are compressed again with LZ4 where the server has it (0021), else pglz
  const lz4 = await hasLz4(ctx.t.db);
  assert.equal(await batchCompression(ctx.t.db, 'txs', ['events']), [lz4 ? 'lz4' : 'pglz'], "the batches' events");
  // a new API: nothing it answers was kept rendered from the rowstore
  // a Chain API of the indexer's process, whose caches are empty
  const cold = await startTestChainApi(ctx.t, ctx.running.chain, besideIndexer(ctx.running));
  try {
    for (const [i, p] of paths.entries()) assert.equal((await chainGet(cold, p)).body, before[i]!.body, p);
    // the newest first, asked twice before the next block: kept for that block
    const newestUrl = `${ctx.api.url}${TXS}?events=${q(`transfer.recipient='${ctx.r1}'`)}&order_by=ORDER_BY_DESC&pagination.limit=1`;
    const newestBefore = await getRaw(newestUrl);
    assert.is(newestBefore.headers['cache-control'], 'public, max-age=1');
    // the indexer writes on into the compressed chunk; what it writes is found by hash and by search
    const after = await sendIndexed(ctx, '9', 'after');
    const found = await chainGet(cold, `${TXS}/${after.transactionHash}`);
    assert.is(found.body.tx.body.memo, 'after');
    const search = await chainGet(cold, `${TXS}?events=${q(`transfer.recipient='${ctx.r1}'`)}&order_by=ORDER_BY_DESC`);
    assert.is(search.body.tx_responses[0].txhash, after.transactionHash);
    // the page kept for the block before is not the answer once a newer block is indexed
    const newestAfter = JSON.parse((await getRaw(newestUrl)).body.toString('utf8'));
    assert.is(newestAfter.tx_responses[0].txhash, after.transactionHash);
    assert.is.not(JSON.parse(newestBefore.body.toString('utf8')).tx_responses[0].txhash, after.transactionHash);
    // a search page kept as final (nothing could join it) is what a fresh read gives after the sender's newer tx
    const top = `${TXS}?events=${q(`message.sender='${ctx.a1}'`)}&pagination.limit=3`;
    const kept = `${top}&pagination.key=${q((await chainGet(cold, top)).body.pagination.next_key)}`;
    const [fresh, served] = [await chainGet(cold, kept), await chainGet(ctx.api, kept)];
    assert.is(served.headers.get('cache-control'), finalWithEvents(ctx));
    assert.equal(fresh.body, served.body);
    assert.is(fresh.headers.get('etag'), served.headers.get('etag'));
  } finally {
    await cold.close();
  }
});

/** A send from the first account to r1 in a new block, once the indexer has committed it. */
async function sendIndexed(ctx: Ctx, amount: string, memo: string) {
  const one = await signingClient(ctx.devnet, 1);
  const sent = await withBlocks(
    ctx.devnet,
    one.client.sendTokens(one.address, ctx.r1, [{ denom: 'unative', amount }], 'auto', memo),
  );
  one.client.disconnect();
  await ctx.running.indexer.waitForHeight(sent.height, 30_000);
  return sent;
}

async function lateHash(ctx: Ctx): Promise<string> {
  const [row] = await ctx.late.t.db.query<{ hash: string }>(
    "SELECT upper(encode(hash, 'hex')) AS hash FROM txs LIMIT 1",
  );
  return row!.hash;
}

test.run();
