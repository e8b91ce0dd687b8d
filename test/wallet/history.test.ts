// GET /api/wallet/transactions and GET /api/wallet/balance against an indexed devnet: a
// wallet's history is every tx it sent or received a transfer in, newest first, once each,
// in pages that partition it, in the rowstore and the columnstore; parameters out of bounds
// are 400; a balance is the node's.
import { fromBech32, toBech32 } from '@cosmjs/encoding';
import { DirectSecp256k1HdWallet } from '@cosmjs/proto-signing';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LaunchpadApi } from '../../src/api/launchpad/server.ts';
import type { ChainClient } from '../../src/chain/client.ts';
import type { Devnet } from '../../src/devnet/index.ts';
import { compressChainIndex, openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { queryClient, randomAddress, signingClient, startDevnet } from '../helpers/devnet.ts';
import { startIndexer, withBlocks } from '../helpers/indexing.ts';
import { get } from '../helpers/launchpad-api.ts';
import { countingChain, startWalletApi } from '../helpers/wallet.ts';

interface Ctx {
  t: TestDatabase;
  devnet: Devnet;
  running: ReturnType<typeof startIndexer>;
  chain: ChainClient;
  api: LaunchpadApi;
  /** account 9's address, and the hashes of its txs (sent or received), newest first */
  address: string;
  expected: string[];
}

const test = suite<Ctx>('wallet: transactions and balance', {} as Ctx);

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
  ctx.devnet = await startDevnet();
  ctx.running = startIndexer(ctx.t.db, ctx.devnet, { pollIntervalMs: 100 });
  ctx.chain = countingChain(ctx.devnet);
  ctx.api = await startWalletApi(ctx.t.db, ctx.devnet, ctx.chain);

  // account 9 sends, receives, and sends to itself; other accounts' txs around it
  const me = await signingClient(ctx.devnet, 9);
  const other = await signingClient(ctx.devnet, 2);
  ctx.address = me.address;
  const steps: (() => Promise<unknown>)[] = [
    () => me.client.sendTokens(me.address, randomAddress(), [{ denom: 'unative', amount: '1' }], 'auto', 'first'),
    () => other.client.sendTokens(other.address, me.address, [{ denom: 'unative', amount: '2' }], 'auto'),
    () => other.client.sendTokens(other.address, randomAddress(), [{ denom: 'unative', amount: '3' }], 'auto'),
    () => me.client.sendTokens(me.address, me.address, [{ denom: 'unative', amount: '4' }], 'auto', 'to myself'),
  ];
  for (let round = 0; round < 3; round++) for (const step of steps) await withBlocks(ctx.devnet, step());
  me.client.disconnect();
  other.client.disconnect();
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);

  // what the node's own tx index says is the address's
  const { comet } = await queryClient(ctx.devnet);
  const found = new Map<string, { height: number; index: number }>();
  for (const query of [`message.sender='${ctx.address}'`, `transfer.recipient='${ctx.address}'`])
    for (const tx of (await comet.txSearchAll({ query })).txs)
      found.set(Buffer.from(tx.hash).toString('hex').toUpperCase(), { height: tx.height, index: tx.index });
  comet.disconnect();
  ctx.expected = [...found].sort(([, a], [, b]) => b.height - a.height || b.index - a.index).map(([hash]) => hash);
});

test.after(async (ctx) => {
  for (const step of [
    () => ctx.api?.close(),
    () => ctx.running?.stop(),
    () => ctx.devnet?.close(),
    () => ctx.t?.dispose(),
  ])
    await step()?.catch(() => {});
  ctx.chain?.disconnect();
});

/** The same account under another chain's prefix: valid bech32, not this chain's. */
const foreign = (address: string) => toBech32('cosmos', fromBech32(address, 256).data);

const history = (api: LaunchpadApi, query: string) => get(api, `/api/wallet/transactions?${query}`);

test('the whole history: newest first, a tx sent to oneself once, what a wallet shows of each', async (ctx) => {
  assert.is(ctx.expected.length, 9, 'three rounds of: sent, received, sent to itself');
  const { status, body } = await history(ctx.api, `address=${ctx.address}`);
  assert.is(status, 200, JSON.stringify(body));
  assert.equal(Object.keys(body), ['address', 'page', 'limit', 'total', 'has_more', 'next_cursor', 'transactions']);
  assert.is(body.next_cursor, null, 'the last page');
  assert.is(body.address, ctx.address);
  assert.is(body.page, 1);
  assert.is(body.limit, 20);
  assert.is(body.total, 9);
  assert.is(body.has_more, false);
  assert.equal(
    body.transactions.map((t: { tx_hash: string }) => t.tx_hash),
    ctx.expected,
  );
  const self = body.transactions.find((t: { memo: string }) => t.memo === 'to myself');
  assert.equal(Object.keys(self), ['tx_hash', 'height', 'time', 'code', 'messages', 'fee', 'memo']);
  assert.equal(self.messages, ['/cosmos.bank.v1beta1.MsgSend']);
  assert.is(self.code, 0);
  assert.is(self.fee.length, 1);
  assert.is(self.fee[0].denom, 'unative');
  assert.match(self.fee[0].amount, /^[1-9]\d*$/);
  assert.match(self.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.is(typeof self.height, 'number');
});

test('pages of 2 partition the history in order; past the end is empty', async (ctx) => {
  const seen: string[] = [];
  for (let page = 1; ; page++) {
    const { status, body } = await history(ctx.api, `address=${ctx.address}&limit=2&page=${page}`);
    assert.is(status, 200);
    assert.is(body.page, page);
    assert.is(body.total, 9);
    seen.push(...body.transactions.map((t: { tx_hash: string }) => t.tx_hash));
    assert.is(body.has_more, seen.length < 9, `has_more on page ${page}`);
    if (!body.has_more) break;
    assert.is(body.transactions.length, 2);
  }
  assert.equal(seen, ctx.expected);
  const past = await history(ctx.api, `address=${ctx.address}&limit=2&page=6`);
  assert.equal(past.body.transactions, []);
  assert.is(past.body.has_more, false);
});

test('pages by cursor partition the history in order, and new txs meanwhile neither repeat a row nor move the pages', async (ctx) => {
  const first = (await history(ctx.api, `address=${ctx.address}&limit=4`)).body;
  assert.is(first.page, 1);
  assert.match(first.next_cursor, /^\d+-\d+$/);
  // a tx of the address arrives between two pages: by page it would repeat a row, by cursor not
  const other = await signingClient(ctx.devnet, 3);
  const sent = await withBlocks(
    ctx.devnet,
    other.client.sendTokens(other.address, ctx.address, [{ denom: 'unative', amount: '5' }], 'auto'),
  );
  other.client.disconnect();
  await ctx.running.indexer.waitForHeight(sent.height, 30_000);
  const seen = first.transactions.map((t: { tx_hash: string }) => t.tx_hash);
  let cursor = first.next_cursor as string | null;
  while (cursor) {
    const { status, body } = await history(ctx.api, `address=${ctx.address}&limit=4&cursor=${cursor}`);
    assert.is(status, 200, JSON.stringify(body));
    assert.is(body.page, null, 'asked by cursor');
    assert.is(body.total, 10, 'the new tx is counted');
    seen.push(...body.transactions.map((t: { tx_hash: string }) => t.tx_hash));
    assert.is(body.has_more, body.next_cursor !== null);
    cursor = body.next_cursor;
  }
  assert.equal(seen, ctx.expected, 'every tx once, in order, none of the newer');
  const byPage = (await history(ctx.api, `address=${ctx.address}&limit=4&page=2`)).body;
  assert.is(byPage.transactions[0].tx_hash, ctx.expected[3], 'by page, the newer tx moved the rows along');
  assert.is(
    (await history(ctx.api, `address=${ctx.address}&limit=1`)).body.transactions[0].tx_hash,
    sent.transactionHash,
  );
  ctx.expected.unshift(sent.transactionHash);
});

test('the chain index in the columnstore: the same history, whole, in pages and by cursor', async (ctx) => {
  const whole = (await history(ctx.api, `address=${ctx.address}`)).body;
  const paged = (await history(ctx.api, `address=${ctx.address}&limit=4&page=2`)).body;
  const after = `address=${ctx.address}&limit=4&cursor=${(await history(ctx.api, `address=${ctx.address}&limit=3`)).body.next_cursor}`;
  const byCursor = (await history(ctx.api, after)).body;
  assert.is(byCursor.transactions.length, 4);
  const compressed = await compressChainIndex(ctx.t.db);
  assert.ok(compressed.txs > 0 && compressed.refs > 0, 'chunks of txs and of the attribute index were compressed');
  assert.equal((await history(ctx.api, `address=${ctx.address}`)).body, whole);
  assert.equal((await history(ctx.api, `address=${ctx.address}&limit=4&page=2`)).body, paged);
  assert.equal((await history(ctx.api, after)).body, byCursor);
  assert.equal(
    whole.transactions.map((t: { tx_hash: string }) => t.tx_hash),
    ctx.expected,
  );
});

test('an address with no txs: an empty history; bounds and malformed input are 400 naming the parameter', async (ctx) => {
  const none = await history(ctx.api, `address=${randomAddress()}`);
  assert.is(none.status, 200);
  assert.equal([none.body.total, none.body.transactions, none.body.has_more], [0, [], false]);
  const a = `address=${ctx.address}`;
  for (const [query, parameter] of [
    [`${a}&limit=0`, 'limit'],
    [`${a}&limit=101`, 'limit'],
    [`${a}&limit=2.5`, 'limit'],
    [`${a}&limit=ten`, 'limit'],
    [`${a}&limit=-1`, 'limit'],
    [`${a}&page=0`, 'page'],
    [`${a}&page=1.5`, 'page'],
    [`${a}&page=1e3`, 'page'],
    [`${a}&page=`, 'page'],
    [`${a}&cursor=`, 'cursor'],
    [`${a}&cursor=abc`, 'cursor'],
    [`${a}&cursor=12`, 'cursor'],
    [`${a}&cursor=0-1`, 'cursor'],
    [`${a}&cursor=12-65536`, 'cursor'],
    [`${a}&cursor=2147483648-0`, 'cursor'],
    [`${a}&cursor=12-1&page=2`, 'cursor'],
    ['limit=5', 'address'],
    [`address=${ctx.address.toUpperCase()}`, 'address'],
    [`address=${ctx.address.slice(0, -1)}x`, 'address'],
    [`address=${foreign(ctx.address)}`, 'address'],
  ]) {
    const { status, body } = await history(ctx.api, query!);
    assert.is(status, 400, query);
    assert.is(body.error, 'Invalid query parameters', query);
    assert.is(body.details[0].parameter, parameter, query);
  }
});

test('balance: the node bank balance; a fresh address holds "0"; malformed is 400; node down is 503', async (ctx) => {
  const { query, comet } = await queryClient(ctx.devnet);
  const held = (await query.bank.balance(ctx.address, 'unative')).amount;
  comet.disconnect();
  const mine = await get(ctx.api, `/api/wallet/balance?address=${ctx.address}`);
  assert.is(mine.status, 200);
  assert.equal(mine.body, { address: ctx.address, balance: held });

  const fresh = (await (await DirectSecp256k1HdWallet.generate(12, { prefix: 'native' })).getAccounts())[0]!.address;
  const unseen = await get(ctx.api, `/api/wallet/balance?address=${fresh}`);
  assert.is(unseen.status, 200);
  assert.equal(unseen.body, { address: fresh, balance: '0' });

  for (const bad of ['', 'native1', foreign(ctx.address), `${ctx.address}q`]) {
    const { status, body } = await get(ctx.api, `/api/wallet/balance?address=${bad}`);
    assert.is(status, 400, bad);
    assert.is(body.details[0].parameter, 'address');
  }

  await ctx.devnet.pause();
  try {
    const down = await get(ctx.api, `/api/wallet/balance?address=${ctx.address}`);
    assert.is(down.status, 503);
    assert.equal(down.body, { error: 'Service unavailable: the chain node cannot be reached' });
    assert.is(down.headers.get('retry-after'), '5');
  } finally {
    await ctx.devnet.resume();
  }
});

test.run();
