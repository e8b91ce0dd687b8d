// GET /api/chain and the wallet balance on chains whose native coin is not the devnet's: an API
// started with another coin (6 or 18 decimals) says that coin, with the account prefix and the
// indexed chain's id, and answers an address's balance of that coin's denom from the node's
// bank; the test helpers' default is the devnet's coin; a coin that cannot be one stops the start.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LaunchpadApi } from '../../src/api/launchpad/server.ts';
import { type ChainClient, createChainClient } from '../../src/chain/client.ts';
import type { NativeCoin } from '../../src/chain/native-coin.ts';
import type { Devnet } from '../../src/devnet/index.ts';
import { indexSource } from '../../src/indexer/indexer.ts';
import { ServiceError } from '../../src/internal/errors.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { queryClient, startDevnet, wallet } from '../helpers/devnet.ts';
import { produceTraffic, startIndexer } from '../helpers/indexing.ts';
import { DEVNET_NATIVE, get, startApi } from '../helpers/launchpad-api.ts';
import { RECORDED, startRecordedChain } from '../helpers/recorded-chain.ts';
import { startWalletApi } from '../helpers/wallet.ts';

const OSMO: NativeCoin = { denom: 'uosmo', display: 'OSMO', decimals: 6 };
const INJ: NativeCoin = { denom: 'inj', display: 'INJ', decimals: 18 };

interface Ctx {
  t: TestDatabase;
  devnet: Devnet;
  running: ReturnType<typeof startIndexer>;
  /** a chain client whose bank balance queries are recorded in `asked` (their denoms) */
  chain: ChainClient;
  asked: string[];
  /** what /api/chain answered before the index held a block */
  before: { status: number; body: unknown };
  /** account 0 of the devnet, which holds unative */
  holder: string;
  apis: LaunchpadApi[];
}

const test = suite<Ctx>('launchpad API: the chain and its native coin', { apis: [] } as unknown as Ctx);

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
  ctx.devnet = await startDevnet();
  ctx.chain = createChainClient(ctx.devnet.rpcUrl, { timeoutMs: 3_000 });
  ctx.asked = [];
  const bank = ctx.chain.queries.bank as { balance: ChainClient['queries']['bank']['balance'] };
  const balance = bank.balance.bind(bank);
  bank.balance = (address, denom) => {
    ctx.asked.push(denom);
    return balance(address, denom);
  };
  ctx.holder = (await (await wallet(0)).getAccounts())[0]!.address;
  // an API on the empty index: no chain id yet
  const early = await startApi(ctx.t.db, { native: OSMO });
  try {
    const { status, body } = await get(early, '/api/chain');
    ctx.before = { status, body };
  } finally {
    await early.close();
  }
  await produceTraffic(ctx.devnet, 2, 1);
  ctx.running = startIndexer(ctx.t.db, ctx.devnet, { pollIntervalMs: 100 });
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
});

test.after(async (ctx) => {
  for (const api of ctx.apis) await api.close().catch(() => {});
  await ctx.running?.stop().catch(() => {});
  ctx.chain?.disconnect();
  await ctx.devnet?.close().catch(() => {});
  await ctx.t?.dispose().catch(() => {});
});

/** An API serving the wallet routes with `native` (the indexer's own status when `live`). */
async function walletApi(ctx: Ctx, native: NativeCoin, live = false): Promise<LaunchpadApi> {
  const api = await startWalletApi(
    ctx.t.db,
    ctx.devnet,
    ctx.chain,
    {},
    { native, index: indexSource(ctx.t.db, live ? ctx.running.indexer : undefined) },
  );
  ctx.apis.push(api);
  return api;
}

test('GET /api/chain: the configured coin, the account prefix and the indexed chain id', async (ctx) => {
  assert.equal(ctx.before, {
    status: 200,
    body: { chain_id: null, account_prefix: null, native: OSMO },
  });
  for (const [native, live] of [
    [OSMO, true],
    [INJ, false],
  ] as const) {
    const { status, headers, body } = await get(await walletApi(ctx, native, live), '/api/chain');
    assert.is(status, 200);
    assert.is(headers.get('content-type'), 'application/json; charset=utf-8');
    assert.ok(headers.get('x-ratelimit-remaining'), 'counted like every API route');
    assert.equal(
      body,
      { chain_id: ctx.devnet.chainId, account_prefix: 'native', native },
      `${native.denom}, from ${live ? "the indexer's status" : 'the stored index'}`,
    );
  }
  // the test helpers start an API with the devnet's coin
  const plain = await startApi(ctx.t.db);
  ctx.apis.push(plain);
  assert.equal((await get(plain, '/api/chain')).body, {
    chain_id: ctx.devnet.chainId,
    account_prefix: null,
    native: DEVNET_NATIVE,
  });
});

test("GET /api/wallet/balance: the address's balance of the configured denom, from the node's bank", async (ctx) => {
  const { query, comet } = await queryClient(ctx.devnet);
  const held = (await query.bank.balance(ctx.holder, 'unative')).amount;
  comet.disconnect();
  assert.ok(BigInt(held) > 0n, 'the devnet account holds unative');

  const devnetApi = await walletApi(ctx, DEVNET_NATIVE);
  assert.equal((await get(devnetApi, `/api/wallet/balance?address=${ctx.holder}`)).body, {
    address: ctx.holder,
    balance: held,
  });
  // the devnet's bank holds no other denom: the same address has none of another chain's coin
  for (const native of [OSMO, INJ]) {
    const api = await walletApi(ctx, native);
    ctx.asked.length = 0;
    const { status, body } = await get(api, `/api/wallet/balance?address=${ctx.holder}`);
    assert.is(status, 200);
    assert.equal(body, { address: ctx.holder, balance: '0' }, `no ${native.denom} on the devnet`);
    assert.equal(ctx.asked, [native.denom], `the bank was asked for ${native.denom}`);
  }
  // a node that refuses the query (here one without the bank's query path): 502 in its words
  const { version, blocks } = RECORDED.comet038();
  const node = await startRecordedChain({ version, blocks });
  const chain = createChainClient(node.url);
  try {
    const refusing = await startWalletApi(ctx.t.db, ctx.devnet, chain);
    ctx.apis.push(refusing);
    const { status, body } = await get(refusing, `/api/wallet/balance?address=${ctx.holder}`);
    assert.is(status, 502);
    assert.equal(body, { error: 'The chain node refused the query', details: [{ message: 'unknown query path' }] });
  } finally {
    chain.disconnect();
    await node.close();
  }
});

test('a native coin that cannot be one stops the start, saying what is wrong', async (ctx) => {
  const bad: [Partial<NativeCoin>, RegExp][] = [
    [{ denom: '' }, /denom must be a Cosmos SDK denom/],
    [{ denom: 'u osmo' }, /denom must be a Cosmos SDK denom/],
    [{ display: '' }, /display must not be empty/],
    [{ decimals: 6.5 }, /decimals must be a whole number/],
    [{ decimals: -1 }, /decimals must be from 0 to 36/],
    [{ decimals: 37 }, /decimals must be from 0 to 36/],
  ];
  for (const [change, message] of bad) {
    const native = { ...OSMO, ...change };
    try {
      const api = await startApi(ctx.t.db, { native });
      ctx.apis.push(api);
      assert.unreachable(`${JSON.stringify(native)} was accepted`);
    } catch (error) {
      assert.instance(error, ServiceError, JSON.stringify(native));
      assert.match((error as Error).message, message);
    }
  }
  // the edges are accepted
  for (const native of [
    { denom: 'ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2', display: 'ATOM', decimals: 6 },
    { denom: 'abc', display: 'A', decimals: 0 },
    { ...INJ, decimals: 36 },
  ]) {
    const api = await startApi(ctx.t.db, { native });
    ctx.apis.push(api);
    assert.equal((await get(api, '/api/chain')).body.native, native);
  }
});

test.run();
