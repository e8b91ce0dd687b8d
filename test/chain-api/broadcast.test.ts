// The Chain API's POST /cosmos/tx/v1beta1/txs and /simulate against the devnet: transactions
// signed with cosmjs are broadcast (SYNC and ASYNC; BLOCK on a Tendermint 0.34 devnet), land on
// chain and are then served by GET /cosmos/tx/v1beta1/txs/{hash}; CheckTx's verdict, a
// duplicate, unsupported modes and
// every malformed body; simulate equal to the node's own Simulate on the same bytes.
import { sha256 } from '@cosmjs/crypto';
import { fromBase64, toBase64, toHex } from '@cosmjs/encoding';
import type { EncodeObject } from '@cosmjs/proto-signing';
import { SimulateRequest, SimulateResponse } from 'cosmjs-types/cosmos/tx/v1beta1/service';
import { TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { blockWaitLimit } from '../../src/api/chain/routes/broadcast.ts';
import { BODY_LIMIT_BYTES } from '../../src/api/http/body.ts';
import { createChainClient } from '../../src/chain/client.ts';
import type { Devnet } from '../../src/devnet/index.ts';
import {
  type ChainCtx,
  chainGet,
  chainPost,
  closeChainApi,
  openChainApi,
  startTestChainApi,
} from '../helpers/chain-api.ts';
import { feeFor, queryClient, randomAddress, rpcResult, signingClient, startDevnet } from '../helpers/devnet.ts';
import { withBlocks } from '../helpers/indexing.ts';
import { RECORDED, startRecordedChain } from '../helpers/recorded-chain.ts';
import { assertShape } from '../helpers/rest-shape.ts';
import { sleep, waitFor } from '../helpers/wait.ts';

const test = suite<ChainCtx>('chain API: broadcast and simulate', {} as ChainCtx);

test.before(openChainApi);
test.after(closeChainApi);

const TXS = '/cosmos/tx/v1beta1/txs';
const SIMULATE = '/cosmos/tx/v1beta1/simulate';
const hashOf = (bytes: Uint8Array) => toHex(sha256(bytes)).toUpperCase();

/** Polls `probe` until it yields a value or `withinMs` pass; fails saying what was awaited. */
async function eventually<T>(what: string, withinMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) assert.unreachable(`${what}: not within ${withinMs} ms`);
    await sleep(50);
  }
}

const send = (from: string, to: string, amount: bigint): EncodeObject => ({
  typeUrl: '/cosmos.bank.v1beta1.MsgSend',
  value: { fromAddress: from, toAddress: to, amount: [{ denom: 'unative', amount: String(amount) }] },
});

/** Account `index` signs `messages` (sequence `+ skip` when asked), without broadcasting. */
async function signed(
  ctx: ChainCtx,
  index: number,
  messages: (address: string) => EncodeObject[],
  { gas = 200_000, fee = feeFor(gas), skip = 0, devnet = ctx.devnet } = {},
) {
  const { client, address } = await signingClient(devnet, index);
  try {
    const account = (await client.getAccount(address))!;
    const raw = await client.sign(address, messages(address), fee, '', {
      accountNumber: account.accountNumber,
      sequence: account.sequence + skip,
      chainId: devnet.chainId,
    });
    return { address, bytes: TxRaw.encode(raw).finish() };
  } finally {
    client.disconnect();
  }
}

/** The txs the devnet's mempool holds (`num_unconfirmed_txs`). */
const mempoolSize = async (devnet: Devnet) => Number((await rpcResult(devnet, 'num_unconfirmed_txs')).n_txs);

/** Makes blocks until the devnet has committed `hash`; its height. */
async function landed(ctx: ChainCtx, hash: string): Promise<number> {
  const { comet } = await queryClient(ctx.devnet);
  try {
    return await eventually(`tx ${hash} committed`, 10_000, async () => {
      await ctx.devnet.produceBlock();
      const found = await comet.txSearchAll({ query: `tx.hash='${hash}'` });
      return found.txs[0]?.height;
    });
  } finally {
    comet.disconnect();
  }
}

const balance = (ctx: ChainCtx, address: string) => balanceOn(ctx.devnet, address);

async function balanceOn(devnet: Devnet, address: string): Promise<bigint> {
  const { query, comet } = await queryClient(devnet);
  try {
    return BigInt((await query.bank.balance(address, 'unative')).amount);
  } finally {
    comet.disconnect();
  }
}

test('BROADCAST_MODE_SYNC: CheckTx passed, the SDK answer; the tx lands and GET txs/{hash} serves it', async (ctx) => {
  const to = randomAddress();
  const tx = await signed(ctx, 1, (from) => [send(from, to, 1234n)]);
  const { status, body } = await chainPost(ctx.api, TXS, { tx_bytes: toBase64(tx.bytes), mode: 'BROADCAST_MODE_SYNC' });
  assert.is(status, 200, JSON.stringify(body));
  assertShape(body, 'tx-broadcast-sync');
  assert.equal(body.tx_response, {
    height: '0',
    txhash: hashOf(tx.bytes),
    codespace: '',
    code: 0,
    data: '',
    raw_log: '',
    logs: [],
    info: '',
    gas_wanted: '0',
    gas_used: '0',
    tx: null,
    timestamp: '',
    events: [],
  });

  const height = await landed(ctx, body.tx_response.txhash);
  assert.is(await balance(ctx, to), 1234n, 'the recipient holds what was sent');
  // served from the index once indexed (read through from the node before that)
  const served = await eventually(`GET ${TXS}/{hash} answers 200`, 20_000, async () => {
    const answer = await chainGet(ctx.api, `${TXS}/${body.tx_response.txhash}`);
    return answer.status === 200 ? answer.body : undefined;
  });
  assert.is(served.tx_response.txhash, hashOf(tx.bytes));
  assert.is(served.tx_response.height, String(height));
  assert.is(served.tx_response.code, 0);
  assert.equal(served.tx.body.messages[0], {
    '@type': '/cosmos.bank.v1beta1.MsgSend',
    from_address: tx.address,
    to_address: to,
    amount: [{ denom: 'unative', amount: '1234' }],
  });
});

test('BROADCAST_MODE_ASYNC: answered before CheckTx with the hash and code 0; the tx lands', async (ctx) => {
  const to = randomAddress();
  const tx = await signed(ctx, 2, (from) => [send(from, to, 77n)]);
  const { status, body } = await chainPost(ctx.api, TXS, {
    tx_bytes: toBase64(tx.bytes),
    mode: 'BROADCAST_MODE_ASYNC',
  });
  assert.is(status, 200, JSON.stringify(body));
  assertShape(body, 'tx-broadcast-sync');
  assert.is(body.tx_response.txhash, hashOf(tx.bytes));
  assert.is(body.tx_response.code, 0);
  assert.is(body.tx_response.height, '0');
  await landed(ctx, body.tx_response.txhash);
  assert.is(await balance(ctx, to), 77n);
});

test('SYNC: a tx CheckTx refuses is a 200 with the node code, codespace and log, exactly as the node says', async (ctx) => {
  const tx = await signed(ctx, 3, (from) => [send(from, from, 1n)], { skip: 5 });
  const { status, body } = await chainPost(ctx.api, TXS, { tx_bytes: toBase64(tx.bytes), mode: 'BROADCAST_MODE_SYNC' });
  assert.is(status, 200, JSON.stringify(body));
  assertShape(body, 'tx-broadcast-sync');
  // the same bytes straight to the node: CheckTx refused them, so they were not kept
  const { comet } = await queryClient(ctx.devnet);
  const direct = await comet.broadcastTxSync({ tx: tx.bytes });
  comet.disconnect();
  assert.is(direct.code, 32);
  assert.is(body.tx_response.code, direct.code);
  assert.is(body.tx_response.codespace, direct.codespace);
  assert.is(body.tx_response.raw_log, direct.log);
  assert.match(body.tx_response.raw_log, /account sequence mismatch/);
  assert.is(body.tx_response.txhash, toHex(direct.hash).toUpperCase());

  const poor = await signed(ctx, 3, (from) => [send(from, from, 1n)], {
    fee: { amount: [{ denom: 'unative', amount: '1' }], gas: '200000' },
  });
  const cheap = await chainPost(ctx.api, TXS, { tx_bytes: toBase64(poor.bytes), mode: 'BROADCAST_MODE_SYNC' });
  assert.is(cheap.status, 200);
  assert.is(cheap.body.tx_response.code, 13);
  assert.is(cheap.body.tx_response.codespace, 'sdk');
  assert.match(cheap.body.tx_response.raw_log, /insufficient fee/);
});

test('SYNC: the same tx again is the SDK answer for a tx already in the mempool (code 19)', async (ctx) => {
  const tx = await signed(ctx, 4, (from) => [send(from, randomAddress(), 5n)]);
  const first = await chainPost(ctx.api, TXS, { tx_bytes: toBase64(tx.bytes), mode: 'BROADCAST_MODE_SYNC' });
  assert.is(first.body.tx_response.code, 0);
  const again = await chainPost(ctx.api, TXS, { tx_bytes: toBase64(tx.bytes), mode: 'BROADCAST_MODE_SYNC' });
  assert.is(again.status, 200, JSON.stringify(again.body));
  assertShape(again.body, 'tx-broadcast-sync');
  assert.is(again.body.tx_response.code, 19);
  assert.is(again.body.tx_response.codespace, 'sdk');
  assert.is(again.body.tx_response.txhash, hashOf(tx.bytes));
  await landed(ctx, hashOf(tx.bytes));
  // committed: still a duplicate
  const later = await chainPost(ctx.api, TXS, { tx_bytes: toBase64(tx.bytes), mode: 'BROADCAST_MODE_ASYNC' });
  assert.is(later.body.tx_response.code, 19);
});

test('field names and enums as jsonpb reads them: txBytes, the mode as its number', async (ctx) => {
  const tx = await signed(ctx, 3, (from) => [send(from, from, 1n)], { skip: 9 });
  for (const mode of [2, 3]) {
    const { status, body } = await chainPost(ctx.api, TXS, { txBytes: toBase64(tx.bytes), mode });
    assert.is(status, 200, JSON.stringify(body));
    assert.is(body.tx_response.txhash, hashOf(tx.bytes));
    assert.is(body.tx_response.code, mode === 2 ? 32 : 0, 'SYNC reports CheckTx, ASYNC does not wait for it');
  }
});

/** Asserts a 400 in the gateway's shape, code 3, whose message matches `message`. */
async function refused(ctx: ChainCtx, path: string, body: unknown, message: RegExp) {
  const answer = await chainPost(ctx.api, path, body);
  assert.is(
    answer.status,
    400,
    `${JSON.stringify(body)?.slice(0, 100)} → ${answer.status} ${JSON.stringify(answer.body)}`,
  );
  assert.is(answer.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.equal(Object.keys(answer.body), ['code', 'message', 'details']);
  assert.is(answer.body.code, 3);
  assert.equal(answer.body.details, []);
  assert.match(answer.body.message, message);
}

test('broadcast modes other than SYNC and ASYNC: 400 code 3 saying which are supported', async (ctx) => {
  const tx = await signed(ctx, 3, (from) => [send(from, from, 1n)], { skip: 11 });
  for (const [mode, named] of [
    ['BROADCAST_MODE_BLOCK', 'BROADCAST_MODE_BLOCK'],
    ['BROADCAST_MODE_UNSPECIFIED', 'BROADCAST_MODE_UNSPECIFIED'],
    [undefined, 'BROADCAST_MODE_UNSPECIFIED'],
    [null, 'BROADCAST_MODE_UNSPECIFIED'],
    [1, 'BROADCAST_MODE_BLOCK'],
    [0, 'BROADCAST_MODE_UNSPECIFIED'],
    ['sync', '"sync"'],
    ['block', '"block"'],
    [7, '7'],
    [true, 'true'],
    // names every object has: not modes
    ['toString', '"toString"'],
    ['constructor', '"constructor"'],
    ['__proto__', '"__proto__"'],
  ] as const) {
    const escaped = named.replace(/"/g, '\\"');
    await refused(
      ctx,
      TXS,
      { tx_bytes: toBase64(tx.bytes), mode },
      new RegExp(
        `^unsupported broadcast mode ${escaped}[;:] .*supported: BROADCAST_MODE_SYNC .* and BROADCAST_MODE_ASYNC`,
      ),
    );
  }
  // BLOCK on this chain (CometBFT 0.38, SDK 0.50): refused saying why
  await refused(
    ctx,
    TXS,
    { tx_bytes: toBase64(tx.bytes), mode: 'BROADCAST_MODE_BLOCK' },
    /^unsupported broadcast mode BROADCAST_MODE_BLOCK: removed in SDK 0\.47 \(CometBFT 0\.37\), which this chain runs or follows; supported:/,
  );
});

test('BROADCAST_MODE_BLOCK on a Tendermint 0.34 chain (SDK 0.45 and 0.46 have it): the block’s result as the node has it, events in base64; CheckTx’s refusal; the node giving up waiting is a 504', async (ctx) => {
  const devnet = await startDevnet({ cometVersion: '0.34' });
  const chain = createChainClient(devnet.rpcUrl, { attempts: 1 });
  const api = await startTestChainApi(ctx.t, chain);
  try {
    const to = randomAddress();
    const tx = await signed(ctx, 1, (from) => [send(from, to, 4321n)], { devnet });
    const { status, body } = await withBlocks(
      devnet,
      chainPost(api, TXS, { tx_bytes: toBase64(tx.bytes), mode: 'BROADCAST_MODE_BLOCK' }),
    );
    assert.is(status, 200, JSON.stringify(body));
    assertShape(body, 'tx-broadcast-block-sdk045', { empty: ['tx_response.logs'] });
    // the node's own record of the tx, in its wire form
    const wire = (await (await fetch(`${devnet.rpcUrl}/tx?hash=0x${hashOf(tx.bytes)}`)).json()) as {
      result: { height: string; tx_result: Record<string, unknown> & { events: { attributes: unknown[] }[] } };
    };
    const result = wire.result.tx_result;
    const r = body.tx_response;
    assert.is(r.txhash, hashOf(tx.bytes));
    assert.is(r.height, wire.result.height);
    assert.is(r.code, 0);
    assert.is(r.raw_log, result.log);
    assert.is(r.gas_used, result.gas_used);
    assert.is(r.gas_wanted, result.gas_wanted);
    assert.is(r.tx, null);
    assert.equal(r.events, result.events);
    assert.ok(r.events.length > 0);
    assert.is(r.events[0].attributes[0].key, toBase64(new TextEncoder().encode('spender')), 'keys in base64');
    assert.is(await balanceOn(devnet, to), 4321n);

    // the mode by number; CheckTx refuses a wrong sequence: its verdict, height 0
    const stale = await signed(ctx, 1, (from) => [send(from, to, 1n)], { devnet, skip: 5 });
    const refusedTx = await chainPost(api, TXS, { tx_bytes: toBase64(stale.bytes), mode: 1 });
    assert.is(refusedTx.status, 200, JSON.stringify(refusedTx.body));
    assert.is(refusedTx.body.tx_response.height, '0');
    assert.is(refusedTx.body.tx_response.code, 32);
    assert.match(refusedTx.body.tx_response.raw_log, /account sequence mismatch/);

    // the node's answer does not come within CHAIN_RPC_TIMEOUT_MS once the tx was sent: a 504
    // that says it may have been accepted (a 503 would say nothing was sent)
    const impatient = createChainClient(devnet.rpcUrl, { attempts: 1, timeoutMs: 300 });
    const impatientApi = await startTestChainApi(ctx.t, impatient);
    try {
      const sent = await signed(ctx, 7, (from) => [send(from, to, 1n)], { devnet });
      const unanswered = await chainPost(impatientApi, TXS, {
        tx_bytes: toBase64(sent.bytes),
        mode: 'BROADCAST_MODE_BLOCK',
      });
      assert.is(unanswered.status, 504, JSON.stringify(unanswered.body));
      assert.match(
        unanswered.body.message,
        new RegExp(
          `^no answer from the node while it waited for the tx's block .*: the tx ${hashOf(sent.bytes)} may have been accepted`,
        ),
      );
    } finally {
      await impatientApi.close();
      impatient.disconnect();
    }

    // no block comes within the node's wait: each of the 4 that wait (a quarter of the client's
    // 16 slots) is a 504 code 4 naming its tx, and lands later; a fifth at once is a 503 (they
    // hold the node client's slots)
    const limit = blockWaitLimit(chain.concurrency);
    assert.is(limit, 4);
    const waiting = await Promise.all(
      [2, 3, 4, 5, 6].map((index) => signed(ctx, index, (from) => [send(from, to, 9n)], { devnet })),
    );
    const post = (bytes: Uint8Array, on = api) =>
      chainPost(on, TXS, { tx_bytes: toBase64(bytes), mode: 'BROADCAST_MODE_BLOCK' });
    const held = await mempoolSize(devnet);
    const waits = waiting.slice(0, limit).map((tx) => post(tx.bytes));
    // they wait once the node has them all (each counted as waiting before it is sent)
    assert.ok(await waitFor(async () => (await mempoolSize(devnet)) === held + limit, 10_000));
    const fifth = await post(waiting[limit]!.bytes);
    assert.is(fifth.status, 503, JSON.stringify(fifth.body));
    assert.is(fifth.body.code, 14);
    assert.is(fifth.headers.get('retry-after'), '1');
    assert.match(fifth.body.message, /^4 BROADCAST_MODE_BLOCK broadcasts are waiting .*CHAIN_RPC_CONCURRENCY/);
    for (const [i, late] of (await Promise.all(waits)).entries()) {
      assert.is(late.status, 504, JSON.stringify(late.body));
      assert.is(late.body.code, 4);
      assert.match(
        late.body.message,
        new RegExp(
          `^timed out waiting for tx to be included in a block: the tx ${hashOf(waiting[i]!.bytes)} may have been accepted`,
        ),
      );
    }
    await devnet.produceBlock();
    assert.is(await balanceOn(devnet, to), 4321n + 1n + 9n * 4n, 'the txs no answer came for land in the next block');

    // a client of 4 slots lets one BLOCK broadcast wait: a second at once is the 503
    const narrow = createChainClient(devnet.rpcUrl, { attempts: 1, concurrency: 4 });
    const narrowApi = await startTestChainApi(ctx.t, narrow);
    try {
      const [first, second] = await Promise.all(
        [2, 3].map((index) => signed(ctx, index, (from) => [send(from, to, 5n)], { devnet })),
      );
      const before = await mempoolSize(devnet);
      const alone = post(first!.bytes, narrowApi);
      assert.ok(await waitFor(async () => (await mempoolSize(devnet)) === before + 1, 10_000));
      const refusedSecond = await post(second!.bytes, narrowApi);
      assert.is(refusedSecond.status, 503, JSON.stringify(refusedSecond.body));
      assert.match(refusedSecond.body.message, /^1 BROADCAST_MODE_BLOCK broadcast is waiting /);
      assert.is((await alone).status, 504);
      await devnet.produceBlock();
      assert.is(
        await balanceOn(devnet, to),
        4321n + 1n + 9n * 4n + 5n,
        'the one that waited lands, the refused one not',
      );
    } finally {
      await narrowApi.close();
      narrow.disconnect();
    }
  } finally {
    await api.close();
    chain.disconnect();
    await devnet.close();
  }
});

test('BLOCK on a node that never took the tx (a provider’s 429, 401 or 503): 503, not the 504 that says it may land', async (ctx) => {
  const tx = await signed(ctx, 8, (from) => [send(from, from, 1n)]);
  for (const refusal of [429, 401, 503]) {
    const node = await startRecordedChain({
      ...RECORDED.tm034(),
      rateLimit: { count: Number.MAX_SAFE_INTEGER, retryAfter: '0', method: 'broadcast_tx_commit', status: refusal },
    });
    const chain = createChainClient(node.url, { attempts: 1 });
    const api = await startTestChainApi(ctx.t, chain, { accountPrefix: 'inj' });
    try {
      const { status, body } = await chainPost(api, TXS, {
        tx_bytes: toBase64(tx.bytes),
        mode: 'BROADCAST_MODE_BLOCK',
      });
      assert.is(status, 503, `${refusal}: ${JSON.stringify(body)}`);
      assert.is(body.code, 14);
    } finally {
      await api.close();
      chain.disconnect();
      await node.close();
    }
  }
});

test('bodies that are not a broadcast request: 400 code 3 with the reason', async (ctx) => {
  const tx = await signed(ctx, 3, (from) => [send(from, from, 1n)], { skip: 13 });
  const good = toBase64(tx.bytes);
  const mode = 'BROADCAST_MODE_SYNC';
  const withBytes = (bytes: Uint8Array) => ({ tx_bytes: toBase64(bytes), mode });
  const cases: [body: unknown, message: RegExp][] = [
    ['', /^the request body is not JSON/],
    ['{"tx_bytes": ', /^the request body is not JSON/],
    ['tx_bytes=abc', /^the request body is not JSON/],
    ['null', /^the request body must be a JSON object/],
    ['[]', /^the request body must be a JSON object/],
    ['"abc"', /^the request body must be a JSON object/],
    [{ mode }, /^invalid empty tx: tx_bytes is required/],
    [{ tx_bytes: '', mode }, /^invalid empty tx/],
    [{ tx_bytes: null, mode }, /^invalid empty tx/],
    [{ tx_bytes: 12, mode }, /^tx_bytes must be a base64 string$/],
    [{ tx_bytes: [1, 2], mode }, /^tx_bytes must be a base64 string$/],
    [{ tx_bytes: 'abc', mode }, /^tx_bytes is not base64/],
    [{ tx_bytes: '!!!!', mode }, /^tx_bytes is not base64/],
    [{ tx_bytes: good.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), mode }, /^tx_bytes is not base64/],
    [{ tx_bytes: `${good.slice(0, 8)}\n${good.slice(8)}`, mode }, /^tx_bytes is not base64/],
    [withBytes(new TextEncoder().encode('hello world, not a transaction')), /^tx parse error: tx_bytes is not a TxRaw/],
    [withBytes(new Uint8Array([0xff, 0xff, 0xff])), /^tx parse error: tx_bytes is not a TxRaw/],
    // a valid tx with bytes after it: an unknown field, a truncated one
    [withBytes(new Uint8Array([...tx.bytes, 0x20, 0x01])), /^tx parse error: .*not canonical/],
    [withBytes(new Uint8Array([...tx.bytes, 0x0a, 0x05, 0x01])), /^tx parse error: tx_bytes is not a TxRaw/],
    // the body after the auth info and signatures: fields out of order
    [
      withBytes(
        new Uint8Array([
          ...TxRaw.encode({ ...TxRaw.decode(tx.bytes), bodyBytes: new Uint8Array() }).finish(),
          ...TxRaw.encode({ ...TxRaw.decode(tx.bytes), authInfoBytes: new Uint8Array(), signatures: [] }).finish(),
        ]),
      ),
      /^tx parse error: .*not canonical/,
    ],
    // a TxRaw whose body and auth info are not a TxBody and an AuthInfo
    [
      withBytes(TxRaw.encode({ ...TxRaw.decode(tx.bytes), bodyBytes: new Uint8Array([0x0a, 0x09, 0x01]) }).finish()),
      /^tx parse error: tx_bytes is not a TxRaw: its body does not decode/,
    ],
    [
      withBytes(TxRaw.encode({ ...TxRaw.decode(tx.bytes), bodyBytes: new Uint8Array([0x30, 0x01]) }).finish()),
      /^tx parse error: tx_bytes is not a TxRaw: its body does not decode: unknown field 6/,
    ],
    [
      withBytes(TxRaw.encode({ ...TxRaw.decode(tx.bytes), authInfoBytes: new Uint8Array([0x10, 0x01]) }).finish()),
      /^tx parse error: tx_bytes is not a TxRaw: its auth info does not decode: field 2 has wire type 0/,
    ],
    [{ tx_bytes: good, mode, memo: 'x' }, /^unknown field "memo" in cosmos\.tx\.v1beta1\.BroadcastTxRequest$/],
    [`{"tx_bytes":"${good}","mode":"${mode}","__proto__":{"mode":2}}`, /^unknown field "__proto__"/],
  ];
  for (const [body, message] of cases) await refused(ctx, TXS, body, message);
  // SDK 0.53's unordered tx (body fields 4 and 5) is the node's to judge, not refused as unknown
  const raw = TxRaw.decode(tx.bytes);
  const unordered = TxBody.encode({
    ...TxBody.decode(raw.bodyBytes),
    unordered: true,
    timeoutTimestamp: { seconds: 2_000_000_000n, nanos: 0 },
  }).finish();
  const judged = await chainPost(ctx.api, TXS, withBytes(TxRaw.encode({ ...raw, bodyBytes: unordered }).finish()));
  assert.not.match(JSON.stringify(judged.body), /unknown field/, JSON.stringify(judged.body));
});

test('a body past the limit is a 413 in the gateway shape, declared or streamed', async (ctx) => {
  const big = `{"tx_bytes":"${'A'.repeat(BODY_LIMIT_BYTES)}","mode":"BROADCAST_MODE_SYNC"}`;
  const declared = await chainPost(ctx.api, TXS, big);
  assert.is(declared.status, 413);
  assert.equal(declared.body, {
    code: 8,
    message: `the request body is larger than ${BODY_LIMIT_BYTES} bytes`,
    details: [],
  });
  // chunked, no Content-Length: refused once the bytes pass the limit
  const chunk = new TextEncoder().encode('A'.repeat(64 * 1024));
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent === 0) controller.enqueue(new TextEncoder().encode('{"tx_bytes":"'));
      if (sent > BODY_LIMIT_BYTES * 2) return controller.close();
      sent += chunk.length;
      controller.enqueue(chunk);
    },
  });
  const res = await fetch(`${ctx.api.url}${TXS}`, {
    method: 'POST',
    body: stream,
    headers: { 'Content-Type': 'application/json' },
    duplex: 'half',
  } as RequestInit);
  assert.is(res.status, 413);
  assert.is(((await res.json()) as { code: number }).code, 8);
  // the largest body within the limit is read (and refused for what it says, not its size)
  const fits = `{"tx_bytes":"${'A'.repeat(BODY_LIMIT_BYTES - 64)}","mode":"BROADCAST_MODE_SYNC"}`;
  const within = await chainPost(ctx.api, TXS, fits);
  assert.is(within.status, 400);
  assert.match(within.body.message, /^tx parse error/);
});

/** The devnet's own Simulate answer for `bytes` (through a cosmjs client of its own). */
async function nodeSimulate(ctx: ChainCtx, bytes: Uint8Array) {
  const { query, comet } = await queryClient(ctx.devnet);
  try {
    const request = SimulateRequest.encode(SimulateRequest.fromPartial({ txBytes: bytes })).finish();
    return SimulateResponse.decode((await query.queryAbci('/cosmos.tx.v1beta1.Service/Simulate', request)).value);
  } catch (error) {
    return error as Error;
  } finally {
    comet.disconnect();
  }
}

test('simulate: the node Simulate on the same bytes, in the SDK JSON; nothing changes on chain', async (ctx) => {
  const to = randomAddress();
  const tx = await signed(ctx, 5, (from) => [send(from, to, 999n)]);
  const before = await balance(ctx, tx.address);
  const { status, body } = await chainPost(ctx.api, SIMULATE, { tx_bytes: toBase64(tx.bytes) });
  assert.is(status, 200, JSON.stringify(body));
  // v0.45 recorded answer: no msg_responses yet; data is empty on this chain (null, as jsonpb prints empty bytes)
  assertShape(body, 'tx-simulate-sdk045', { ignore: ['result.msg_responses'], nullable: ['result.data'] });
  const node = await nodeSimulate(ctx, tx.bytes);
  assert.not.instance(node, Error);
  const direct = node as SimulateResponse;
  assert.is(body.gas_info.gas_used, direct.gasInfo!.gasUsed.toString());
  assert.ok(Number(body.gas_info.gas_used) > 0);
  assert.is(body.gas_info.gas_wanted, direct.gasInfo!.gasWanted.toString());
  assert.is(body.result.log, direct.result!.log);
  assert.equal(
    body.result.events,
    direct.result!.events.map((e) => ({
      type: e.type,
      attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: a.index })),
    })),
  );
  const transfer = body.result.events.find((e: { type: string }) => e.type === 'transfer');
  assert.ok(transfer, 'a transfer event');
  assert.equal(body.result.msg_responses, [{ '@type': '/cosmos.bank.v1beta1.MsgSendResponse' }]);
  assert.is(await balance(ctx, tx.address), before, 'a simulation spends nothing');
  assert.is(await balance(ctx, to), 0n);
  // the simulated gas is enough to broadcast the tx for real
  const gas = Math.ceil(Number(body.gas_info.gas_used) * 1.3);
  const real = await signed(ctx, 5, (from) => [send(from, to, 999n)], { gas });
  const sent = await chainPost(ctx.api, TXS, { tx_bytes: toBase64(real.bytes), mode: 'BROADCAST_MODE_SYNC' });
  assert.is(sent.body.tx_response.code, 0);
  await landed(ctx, sent.body.tx_response.txhash);
  assert.is(await balance(ctx, to), 999n);
});

test('simulate: a tx the chain would refuse is code 2 with the node reason (HTTP 400)', async (ctx) => {
  const tx = await signed(ctx, 6, (from) => [send(from, randomAddress(), 10n ** 30n)]);
  const { status, body } = await chainPost(ctx.api, SIMULATE, { tx_bytes: toBase64(tx.bytes) });
  const node = await nodeSimulate(ctx, tx.bytes);
  assert.instance(node, Error, 'the node refuses the simulation');
  const reason = /^Query failed with \(\d+\): ([\s\S]*)$/.exec((node as Error).message)![1]!;
  assert.match(reason, /insufficient funds/);
  assert.is(status, 400);
  assert.equal(body, { code: 2, message: reason, details: [] });

  const wrongSequence = await signed(ctx, 6, (from) => [send(from, from, 1n)], { skip: 3 });
  const second = await chainPost(ctx.api, SIMULATE, { tx_bytes: toBase64(wrongSequence.bytes) });
  assert.is(second.status, 400);
  assert.is(second.body.code, 2);
  assert.match(second.body.message, /account sequence mismatch/);
});

test('simulate: bad bodies are 400 code 3; the deprecated tx field is refused with what to send', async (ctx) => {
  const tx = await signed(ctx, 6, (from) => [send(from, from, 1n)], { skip: 7 });
  await refused(ctx, SIMULATE, {}, /^invalid empty tx/);
  await refused(
    ctx,
    SIMULATE,
    { tx: { body: { messages: [] } } },
    /deprecated tx field is not supported: send .* tx_bytes/,
  );
  await refused(ctx, SIMULATE, { tx_bytes: 'abc' }, /^tx_bytes is not base64/);
  await refused(ctx, SIMULATE, { tx_bytes: toBase64(fromBase64('aGVsbG8=')) }, /^tx parse error/);
  await refused(ctx, SIMULATE, { tx_bytes: toBase64(tx.bytes), mode: 'BROADCAST_MODE_SYNC' }, /^unknown field "mode"/);
  await refused(ctx, SIMULATE, 'not json', /^the request body is not JSON/);
  // with tx_bytes, a tx field next to it is ignored, as the SDK does
  const both = await chainPost(ctx.api, SIMULATE, { txBytes: toBase64(tx.bytes), tx: { body: {} } });
  assert.is(both.status, 400);
  assert.is(both.body.code, 2, 'simulated (and refused for its sequence), not refused for its fields');
});

test.run();
