// The CometBFT JSON-RPC protocol itself: URI and POST forms, CometBFT's error messages for
// bad input, tx_search forms with pagination and order, broadcast_tx_commit, the websocket
// NewBlock subscription, and the pause/resume fault hook.
import net from 'node:net';
import { toBase64, toHex } from '@cosmjs/encoding';
import { Comet38Client, Tendermint37Client, WebsocketClient } from '@cosmjs/tendermint-rpc';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Devnet } from '../../src/devnet/index.ts';
import {
  cometClient,
  type RpcAnswer,
  type RpcResult,
  rpc,
  rpcResult,
  signingClient,
  startDevnet,
} from '../helpers/devnet.ts';
import { getJson } from '../helpers/http.ts';
import { waitFor, within } from '../helpers/wait.ts';

let devnet: Devnet;

test.before(async () => {
  devnet = await startDevnet({ blockMs: 0, tradesPerBlock: 6 });
  for (let i = 0; i < 4; i++) await devnet.produceBlock();
  devnet.generator.setRate(0);
});
test.after(async () => {
  await devnet.close();
  // @cosmjs/socket's ReconnectingSocket schedules a reconnect even after disconnect(), which
  // keeps the process alive forever; end it once uvu has printed its summary.
  setTimeout(() => process.exit(), 200);
});

/** The method a URI-form path calls: `/block?height=2` calls `block`. */
type MethodOf<Path extends string> = Path extends `/${infer Method}?${string}`
  ? Method
  : Path extends `/${infer Method}`
    ? Method
    : never;

/** A GET of the URI form (`/method?param=value`), its answer typed by the method. */
const get = <Path extends string>(path: Path) =>
  getJson<RpcAnswer<RpcResult<MethodOf<Path>>>>(`${devnet.rpcUrl}${path}`);

/** The result of a URI-form call that must succeed; an error answer throws, saying what it was. */
const getResult = async <Path extends string>(path: Path) => {
  const { body } = await get(path);
  if (body.result === undefined) throw new Error(`${path} answered ${JSON.stringify(body.error)}`);
  return body.result;
};

test('rpc: GET /health is an empty result with id -1', async () => {
  const { status, body } = await get('/health');
  assert.is(status, 200);
  assert.equal(body, { jsonrpc: '2.0', id: -1, result: {} });
});

test('rpc: GET /status and /block?height= answer in the URI form', async () => {
  const status = await getResult('/status');
  assert.is(status.node_info.network, 'native-devnet-1');
  assert.is(status.sync_info.latest_block_height, String(devnet.height()));
  const block = await getResult('/block?height=2');
  assert.is(block.block.header.height, '2');
  assert.is(block.block.last_commit.height, '1');
  const results = await getResult('/block_results?height=2');
  assert.is(results.height, '2');
  assert.is(results.txs_results.length, block.block.data.txs.length);
});

test('rpc: bad heights get CometBFT errors, never a crash', async () => {
  const negative = await rpc(devnet, 'block', { height: '-3' });
  assert.equal(negative.error, {
    code: -32603,
    message: 'Internal error',
    data: 'height must be greater than 0, but got -3',
  });
  const zero = await rpc(devnet, 'block_results', { height: '0' });
  assert.is(zero.error?.data, 'height must be greater than 0, but got 0');
  const ahead = await rpc(devnet, 'block', { height: '99' });
  assert.is(
    ahead.error?.data,
    `height 99 must be less than or equal to the current blockchain height ${devnet.height()}`,
  );
  const uri = await get('/block?height=99');
  assert.is(uri.status, 500);
  assert.is(uri.body.id, -1);
  const garbage = await rpc(devnet, 'block', { height: 'abc' });
  assert.is(garbage.error?.code, -32602);
  assert.is(garbage.error?.message, 'Invalid params');
});

test('rpc: unknown methods, invalid JSON and invalid requests get JSON-RPC errors', async () => {
  assert.is((await rpc(devnet, 'no_such_method')).error?.code, -32601);
  const broken = await fetch(devnet.rpcUrl, { method: 'POST', body: '{"jsonrpc":' });
  assert.is(((await broken.json()) as RpcAnswer<unknown>).error?.code, -32700);
  const invalid = await fetch(devnet.rpcUrl, { method: 'POST', body: JSON.stringify({ id: 1, method: 'status' }) });
  assert.is(((await invalid.json()) as RpcAnswer<unknown>).error?.code, -32600);
  const batch = await fetch(devnet.rpcUrl, {
    method: 'POST',
    body: JSON.stringify([
      { jsonrpc: '2.0', id: 1, method: 'health' },
      { jsonrpc: '2.0', id: 2, method: 'nope' },
    ]),
  });
  const answers = (await batch.json()) as RpcAnswer<unknown>[];
  assert.equal(
    answers.map((a) => [a.id, a.result ? 'ok' : a.error?.code]),
    [
      [1, 'ok'],
      [2, -32601],
    ],
  );
  assert.is(
    (await rpc(devnet, 'tx', { hash: toBase64(new Uint8Array(32)) })).error?.data,
    `tx (${'00'.repeat(32)}) not found`,
  );
  // a JSON body's bytes are base64, also when that begins "0x" or "0X" (one hash in ~2,000)
  for (const start of [
    [0xd1, 0x70],
    [0xd3, 0x10],
  ]) {
    const hash = new Uint8Array(32).fill(7);
    hash.set(start);
    const base64 = toBase64(hash);
    assert.match(base64, /^0[xX]/);
    assert.is((await rpc(devnet, 'tx', { hash: base64 })).error?.data, `tx (${toHex(hash).toUpperCase()}) not found`);
  }
});

test('rpc: tx_search pages through matches in ascending and descending order', async () => {
  const query = "message.action='/cosmwasm.wasm.v1.MsgExecuteContract'";
  const all = await rpcResult(devnet, 'tx_search', { query, per_page: '100' });
  const total = Number(all.total_count);
  assert.ok(total >= 20, `generator txs expected, got ${total}`);
  const asc: string[] = [];
  for (let page = 1; page <= Math.ceil(total / 7); page++) {
    const result = await rpcResult(devnet, 'tx_search', { query, page: String(page), per_page: '7', order_by: 'asc' });
    assert.is(result.total_count, String(total));
    asc.push(...result.txs.map((t) => t.hash));
  }
  assert.equal(
    asc,
    all.txs.map((t) => t.hash),
  );
  const heights = all.txs.map((t) => Number(t.height) * 1000 + t.index);
  assert.equal(
    heights,
    [...heights].sort((a, b) => a - b),
  );
  const desc = (await rpcResult(devnet, 'tx_search', { query, per_page: '100', order_by: 'desc' })).txs.map(
    (t) => t.hash,
  );
  assert.equal(desc, [...asc].reverse());
  const beyond = await rpc(devnet, 'tx_search', { query, page: '99', per_page: '7' });
  assert.is(beyond.error?.data, `page should be within [1, ${Math.ceil(total / 7)}] range, given 99`);
});

test('rpc: tx_search by tx.height, tx.hash, ranges and event attributes', async () => {
  const block = await rpcResult(devnet, 'block', { height: '3' });
  const byHeight = await rpcResult(devnet, 'tx_search', { query: 'tx.height=3' });
  assert.is(byHeight.txs.length, block.block.data.txs.length);
  const first = byHeight.txs[0];
  const byHash = await rpcResult(devnet, 'tx_search', { query: `tx.hash='${first.hash}'` });
  assert.equal(
    byHash.txs.map((t) => t.hash),
    [first.hash],
  );
  const range = await rpcResult(devnet, 'tx_search', { query: 'tx.height>=2 AND tx.height<=3', per_page: '100' });
  assert.ok(range.txs.every((t) => t.height === '2' || t.height === '3'));
  const contract = await rpcResult(devnet, 'tx_search', {
    query: `wasm._contract_address='${devnet.contracts.launchpad}' AND tx.height=3`,
  });
  assert.ok(contract.txs.every((t) => t.height === '3'));
  const uri = await getResult(`/tx_search?query="tx.height=3"&per_page=2`);
  assert.is(uri.total_count, byHeight.total_count);
  const tx = await getResult(`/tx?hash=0x${first.hash}`);
  assert.is(tx.hash, first.hash);
  assert.is((await rpc(devnet, 'tx_search', { query: 'tx.height=' })).error?.code, -32603);
});

test('rpc: blockchain, validators and genesis', async () => {
  const chain = await rpcResult(devnet, 'blockchain', { minHeight: '1', maxHeight: String(devnet.height()) });
  assert.is(chain.last_height, String(devnet.height()));
  assert.equal(
    chain.block_metas.map((m) => Number(m.header.height)),
    Array.from({ length: devnet.height() }, (_, i) => devnet.height() - i),
  );
  const comet = await cometClient(devnet);
  const validators = await comet.validatorsAll();
  assert.is(validators.total, 3, 'the bonded validators');
  const genesis = await comet.genesis();
  assert.is(genesis.chainId, 'native-devnet-1');
  assert.is(genesis.validators.length, 3);
  comet.disconnect();
});

test('rpc: broadcast_tx_commit waits for the block and returns the result', async () => {
  const { client, address } = await signingClient(devnet, 2);
  const raw = await client.sign(
    address,
    [
      {
        typeUrl: '/cosmos.bank.v1beta1.MsgSend',
        value: { fromAddress: address, toAddress: address, amount: [{ denom: 'unative', amount: '1' }] },
      },
    ],
    { amount: [{ denom: 'unative', amount: '2000' }], gas: '200000' },
    '',
  );
  const mempool = async () => Number((await rpcResult(devnet, 'num_unconfirmed_txs')).n_txs);
  const waiting = await mempool();
  const pending = rpcResult(devnet, 'broadcast_tx_commit', { tx: toBase64(TxRaw.encode(raw).finish()) });
  assert.ok(await waitFor(async () => (await mempool()) > waiting, 5_000), 'the tx reached the mempool within 5 s');
  await devnet.produceBlock();
  const result = await within(pending, 5_000, 'broadcast_tx_commit to answer after the block');
  assert.is(result.check_tx.code, 0);
  // CometBFT 0.34 and 0.37 name the block's result deliver_tx; 0.38 tx_result.
  assert.is((devnet.cometVersion === '0.38' ? result.tx_result : result.deliver_tx)?.code, 0);
  assert.is(result.height, String(devnet.height()));
  client.disconnect();
});

test('websocket: subscribeNewBlock delivers each new block to cosmjs', async () => {
  const socket = new WebsocketClient(devnet.rpcUrl.replace(/^http/, 'ws'), (error) =>
    assert.unreachable(String(error)),
  );
  const comet = devnet.cometVersion === '0.38' ? Comet38Client.create(socket) : Tendermint37Client.create(socket);
  const heights: number[] = [];
  const before = devnet.subscriptions();
  const done = new Promise<void>((resolve, reject) => {
    const subscription = comet.subscribeNewBlock().subscribe({
      next: (block) => {
        heights.push(block.header.height);
        if (heights.length === 2) {
          subscription.unsubscribe();
          resolve();
        }
      },
      error: reject,
    });
  });
  assert.ok(await waitFor(() => devnet.subscriptions() === before + 1, 5_000), 'subscribed within 5 s');
  const first = await devnet.produceBlock();
  await devnet.produceBlock();
  await within(done, 5_000, 'two NewBlock events');
  assert.equal(heights, [first, first + 1]);
  // xstream stops the subscription (and cosmjs sends `unsubscribe`) on a timer; disconnect after it.
  assert.ok(await waitFor(() => devnet.subscriptions() === before, 5_000), 'unsubscribed within 5 s');
  comet.disconnect();
});

test('fault hook: a paused devnet refuses connections and resumes on the same port', async () => {
  const port = Number(new URL(devnet.rpcUrl).port);
  const connect = () =>
    new Promise<string>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.on('connect', () => {
        socket.destroy();
        resolve('connected');
      });
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    });
  await devnet.pause();
  assert.is(await connect(), 'ECONNREFUSED');
  const heightWhilePaused = await devnet.produceBlock();
  await devnet.resume();
  assert.is(await connect(), 'connected');
  assert.is(
    (await getResult('/status')).sync_info.latest_block_height,
    String(heightWhilePaused),
    'blocks went on while paused',
  );
});

test.run();
