// GET /api/wallet/tokens against the devnet: launchpad buys and sells, graduation, AMM swaps,
// an AMM-born token and plain CW20 transfers, sends and burns signed with cosmjs. For many
// addresses the holdings equal the token contracts' own `balance` answers for every known
// token; what the index cannot vouch for (tokens created before the index's first height) is
// read from the contract and nothing else is; a backfill and blocks indexed again change nothing.
import { fromBech32, toBase64, toBech32, toUtf8 } from '@cosmjs/encoding';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LaunchpadApi, LaunchpadApiOptions } from '../../src/api/launchpad/server.ts';
import { type ChainClient, createChainClient } from '../../src/chain/client.ts';
import type { Devnet } from '../../src/devnet/index.ts';
import { backfill } from '../../src/indexer/backfill.ts';
import { indexSource } from '../../src/indexer/indexer.ts';
import { silentLogger } from '../../src/internal/logger.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { attr, randomAddress, startDevnet, wasmClient } from '../helpers/devnet.ts';
import { produceTraffic, setOraclePrice, startIndexer, withBlocks } from '../helpers/indexing.ts';
import { get, startApi } from '../helpers/launchpad-api.ts';
import { waitFor } from '../helpers/wait.ts';

type User = Awaited<ReturnType<typeof wasmClient>>;

interface Ctx {
  t: TestDatabase;
  devnet: Devnet;
  running: ReturnType<typeof startIndexer>;
  api: LaunchpadApi;
  /** Answers the tests' own balance questions (not counted). */
  reader: ChainClient;
  /** The API's chain client: counts the balance queries into `queried`. */
  counted: ChainClient;
  /** Tokens the API asked for a balance, in order. */
  queried: string[];
  users: User[];
  liveStart: number;
  /** Created before the index's first height, bought by users[0] before and after it. */
  early: string;
  /** Launched in the index: users[1] got some, passed all of it on, and holds none. */
  moon: string;
  /** Started on the AMM (create_token_pool) in the index. */
  direct: string;
  /** A stranger who received tokens. */
  stranger: string;
}

const test = suite<Ctx>('wallet: holdings', {} as Ctx);
const NATIVE = 1_000_000n;
const native = (amount: bigint) => [{ denom: 'unative', amount: amount.toString() }];
const hook = (msg: unknown) => toBase64(toUtf8(JSON.stringify(msg)));

async function balanceOf(chain: ChainClient, token: string, address: string): Promise<bigint> {
  return BigInt((await chain.smartQuery<{ balance: string }>(token, { balance: { address } })).balance);
}

/** Signs and waits for the tx, making blocks until it is in one. */
const run = <T>(ctx: Ctx, call: Promise<T>) => withBlocks(ctx.devnet, call);

async function launch(ctx: Ctx, user: User, symbol: string): Promise<string> {
  const result = await run(
    ctx,
    user.execute(
      ctx.devnet.contracts.launchpad,
      { create_token: { name: `${symbol} coin`, symbol, image: '', description: '' } },
      native(NATIVE),
    ),
  );
  return attr(result.events, 'wasm-token_created')[0]!.token_address!;
}

const buy = (ctx: Ctx, user: User, token: string, amount: bigint) =>
  run(ctx, user.execute(ctx.devnet.contracts.launchpad, { buy: { token_address: token } }, native(amount)));

async function indexed(ctx: Ctx): Promise<void> {
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 60_000);
  const fetched = async () =>
    (await ctx.t.db.query(`SELECT 1 FROM tokens WHERE NOT metadata_fetched LIMIT 1`)).length === 0;
  assert.ok(await waitFor(fetched, 10_000, 50), 'every token has its metadata');
}

/** An API process on the test database with the wallet routes, its contract queries counted. */
const walletApi = (ctx: Ctx, options: Partial<LaunchpadApiOptions> = {}) =>
  startApi(ctx.t.db, {
    index: indexSource(ctx.t.db, ctx.running.indexer),
    wallet: { chain: ctx.counted, accountPrefix: 'native', launchpad: ctx.devnet.contracts.launchpad },
    ...options,
  });

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
  ctx.devnet = await startDevnet();
  ctx.reader = createChainClient(ctx.devnet.rpcUrl);
  ctx.users = await Promise.all([1, 2, 3].map((i) => wasmClient(ctx.devnet, i)));
  const [u1, u2, u3] = ctx.users as [User, User, User];
  ctx.stranger = randomAddress();
  await setOraclePrice(ctx.devnet, 5_000_000n); // graduation at 2,400 NATIVE of reserves
  // before the index: traffic, and a token users[0] buys
  await produceTraffic(ctx.devnet, 10, 8);
  ctx.early = await launch(ctx, u1, 'EARLY');
  await buy(ctx, u1, ctx.early, 40n * NATIVE);
  ctx.liveStart = ctx.devnet.height() + 1;

  ctx.running = startIndexer(ctx.t.db, ctx.devnet, { startHeight: ctx.liveStart, pollIntervalMs: 50 });
  const chain = createChainClient(ctx.devnet.rpcUrl);
  ctx.queried = [];
  ctx.counted = {
    ...chain,
    smartQuery: (contract, query) => {
      if ('balance' in query) ctx.queried.push(contract);
      return chain.smartQuery(contract, query);
    },
  };
  // answers stay cached until the index's commits drop them (no TTL within a test run)
  ctx.api = await walletApi(ctx, { holdingsCacheMs: 600_000 });

  // in the index: the early token traded again (now known, created before the index)
  await buy(ctx, u1, ctx.early, 10n * NATIVE);
  // a launch whose tokens go from hand to hand: users[1] ends with none of them
  ctx.moon = await launch(ctx, u1, 'MOON');
  await buy(ctx, u1, ctx.moon, 200n * NATIVE);
  const bought = await balanceOf(ctx.reader, ctx.moon, u1.address);
  await run(ctx, u1.execute(ctx.moon, { transfer: { recipient: u2.address, amount: (bought / 4n).toString() } }));
  await run(ctx, u2.execute(ctx.moon, { transfer: { recipient: u3.address, amount: (bought / 4n).toString() } }));
  await run(ctx, u3.execute(ctx.moon, { transfer: { recipient: ctx.stranger, amount: '12345' } }));
  // a sell is a CW20 send to the launchpad
  await run(
    ctx,
    u1.execute(ctx.moon, {
      send: { contract: ctx.devnet.contracts.launchpad, amount: (bought / 8n).toString(), msg: hook({ sell: {} }) },
    }),
  );
  await run(ctx, u1.execute(ctx.moon, { burn: { amount: '1000' } }));
  // a token born on the AMM, bought through it
  const created = await run(
    ctx,
    u2.execute(
      ctx.devnet.contracts.amm,
      { create_token_pool: { name: 'Direct', symbol: 'DIRECT', image: '', description: '' } },
      native(500n * NATIVE),
    ),
  );
  ctx.direct = attr(created.events, 'wasm').find((e) => e.action === 'create_token_pool')!.token_address!;
  await run(ctx, u3.execute(ctx.devnet.contracts.amm, { swap: { token_address: ctx.direct } }, native(20n * NATIVE)));
  // generated traffic until a token graduates, then AMM swaps of it both ways by users[0]
  await produceTraffic(ctx.devnet, 20, 10);
  for (let i = 0; i < 40 && ctx.devnet.ledger.graduations.length === 0; i++) await produceTraffic(ctx.devnet, 5, 10);
  const graduated = ctx.devnet.ledger.graduations[0]?.token;
  assert.ok(graduated, 'a token graduated');
  await run(ctx, u1.execute(ctx.devnet.contracts.amm, { swap: { token_address: graduated } }, native(30n * NATIVE)));
  const got = await balanceOf(ctx.reader, graduated, u1.address);
  await run(
    ctx,
    u1.execute(graduated, {
      send: { contract: ctx.devnet.contracts.amm, amount: (got / 3n).toString(), msg: hook({ swap: {} }) },
    }),
  );
  await produceTraffic(ctx.devnet, 5, 10);
  await indexed(ctx);
});

test.after(async (ctx) => {
  for (const step of [
    () => ctx.api?.close(),
    () => ctx.running?.stop(),
    async () => {
      ctx.reader?.disconnect();
      for (const u of ctx.users ?? []) u.client.disconnect();
    },
    () => ctx.devnet?.close(),
    () => ctx.t?.dispose(),
  ])
    await step()?.catch(() => {});
});

interface HoldingJson {
  address: string;
  name: string | null;
  symbol: string | null;
  balance: string;
  price_unative: string;
  graduated: boolean;
}

async function knownTokens(ctx: Ctx) {
  return ctx.t.db.query<{
    address: string;
    name: string | null;
    symbol: string | null;
    price: string;
    graduated: boolean;
  }>(`SELECT address, name, symbol, current_price::text AS price, graduated FROM tokens ORDER BY address`);
}

/** Every address the tests look at: the users, every trader, a stranger, an empty wallet, the contracts. */
function addressesOf(ctx: Ctx): string[] {
  return [
    ...new Set([
      ...ctx.users.map((u) => u.address),
      ...ctx.devnet.ledger.trades.map((t) => t.trader),
      ctx.stranger,
      randomAddress(),
      ctx.devnet.contracts.launchpad,
      ctx.devnet.contracts.amm,
    ]),
  ];
}

async function holdingsOf(ctx: Ctx, address: string, api = ctx.api): Promise<HoldingJson[]> {
  const answer = await get(api, `/api/wallet/tokens?address=${address}`);
  assert.is(answer.status, 200, JSON.stringify(answer.body));
  assert.is(answer.body.address, address);
  return answer.body.tokens;
}

/** The API's holdings of each address are exactly the non-zero `balance` answers of the known tokens' contracts. */
async function assertHoldingsMatchContracts(ctx: Ctx, api = ctx.api): Promise<number> {
  const tokens = await knownTokens(ctx);
  const byAddress = new Map(tokens.map((t) => [t.address, t]));
  let held = 0;
  for (const address of addressesOf(ctx)) {
    const expected = new Map<string, string>();
    await Promise.all(
      tokens.map(async (t) => {
        const balance = await balanceOf(ctx.reader, t.address, address);
        if (balance !== 0n) expected.set(t.address, balance.toString());
      }),
    );
    const holdings = await holdingsOf(ctx, address, api);
    assert.equal(
      Object.fromEntries(holdings.map((h) => [h.address, h.balance])),
      Object.fromEntries([...expected].sort()),
      `holdings of ${address}`,
    );
    assert.is(holdings.length, expected.size, `each token once for ${address}`);
    for (const h of holdings) {
      const t = byAddress.get(h.address)!;
      assert.equal(h, {
        address: t.address,
        name: t.name,
        symbol: t.symbol,
        balance: h.balance,
        price_unative: t.price,
        graduated: t.graduated,
      });
    }
    const values = holdings.map((h) => BigInt(h.balance) * BigInt(h.price_unative));
    for (let i = 1; i < values.length; i++) assert.ok(values[i - 1]! >= values[i]!, 'highest value first');
    held += holdings.length;
  }
  return held;
}

/** Known tokens created before `height` (or never seen created): the index cannot vouch for them. */
async function createdBefore(ctx: Ctx, height: number): Promise<string[]> {
  const createdAt = new Map(ctx.devnet.ledger.launches.map((l) => [l.token, l.height]));
  return (await knownTokens(ctx))
    .map((t) => t.address)
    .filter((t) => (createdAt.get(t) ?? 0) < height)
    .sort();
}

/** The tokens an API process (with nothing cached) asks a balance of to answer for `address`. */
async function queriesFor(ctx: Ctx, address: string): Promise<string[]> {
  const api = await walletApi(ctx);
  try {
    ctx.queried.length = 0;
    await holdingsOf(ctx, address, api);
    return [...ctx.queried].sort();
  } finally {
    await api.close();
  }
}

/** Waits until the long-lived API has heard the index's last commits: it answers as a new process does. */
async function apiHeardTheIndex(ctx: Ctx): Promise<void> {
  const api = await walletApi(ctx);
  try {
    const addresses = [...ctx.users.map((u) => u.address), ctx.stranger];
    const same = async () => {
      for (const a of addresses)
        if (JSON.stringify(await holdingsOf(ctx, a)) !== JSON.stringify(await holdingsOf(ctx, a, api))) return false;
      return true;
    };
    await waitFor(same, 5_000, 50);
  } finally {
    await api.close();
  }
}

test('holdings equal the token contracts’ balance answers for every address and known token', async (ctx) => {
  const [u1, u2, u3] = ctx.users as [User, User, User];
  const held = await assertHoldingsMatchContracts(ctx);
  assert.ok(held >= 30, `${held} holdings compared`);
  // what each user should notice
  const tokensOf = async (address: string) => (await holdingsOf(ctx, address)).map((h) => h.address);
  assert.ok((await tokensOf(u1.address)).includes(ctx.early), 'a token bought before the index began is held');
  assert.not.ok((await tokensOf(u2.address)).includes(ctx.moon), 'a token passed on in full is absent');
  assert.ok((await tokensOf(u3.address)).includes(ctx.moon));
  assert.ok((await tokensOf(u3.address)).includes(ctx.direct), 'a token born on the AMM is held');
  assert.equal(await holdingsOf(ctx, randomAddress()), [], 'an empty wallet holds nothing');
  const [moon] = (await holdingsOf(ctx, ctx.stranger)).filter((h) => h.address === ctx.moon);
  assert.is(moon?.balance, '12345');
});

test('only tokens the index cannot vouch for are read from their contracts', async (ctx) => {
  const unvouched = await createdBefore(ctx, ctx.liveStart);
  assert.ok(unvouched.includes(ctx.early), 'the token created before the index is known');
  assert.ok(unvouched.length < (await knownTokens(ctx)).length, 'tokens launched in the index are vouched for');
  for (const u of ctx.users) assert.equal(await queriesFor(ctx, u.address), unvouched, `queries for ${u.address}`);
  assert.equal(await queriesFor(ctx, randomAddress()), unvouched, 'an empty wallet: the same queries');
  // the contracts that received a token's supply at instantiation are read from the contract
  const launchedHere = ctx.devnet.ledger.launches.filter((l) => l.height >= ctx.liveStart);
  const known = new Set((await knownTokens(ctx)).map((t) => t.address));
  for (const [holder, source] of [
    [ctx.devnet.contracts.launchpad, 'launchpad'],
    [ctx.devnet.contracts.amm, 'amm'],
  ] as const) {
    const own = launchedHere.filter((l) => l.source === source && known.has(l.token)).map((l) => l.token);
    assert.ok(own.length > 0, `${source} created tokens in the index`);
    assert.equal(await queriesFor(ctx, holder), [...new Set([...unvouched, ...own])].sort(), `queries for ${source}`);
  }
});

test('a malformed address is a 400 naming the parameter', async (ctx) => {
  const good = ctx.users[0]!.address;
  const bad = [
    '', // missing
    'address=',
    `address=cosmos${good.slice(6)}`, // another prefix (and so another checksum)
    `address=${good.slice(0, -1)}${good.endsWith('q') ? 'p' : 'q'}`, // checksum
    `address=${good.toUpperCase()}`,
    `address=${good}&address=${good}`,
    'address=native1',
  ];
  for (const query of bad) {
    const answer = await get(ctx.api, `/api/wallet/tokens?${query}`);
    assert.is(answer.status, 400, query);
    assert.is(answer.body.error, 'Invalid query parameters', query);
    assert.is(answer.body.details.length, 1, query);
    assert.is(answer.body.details[0].parameter, 'address', query);
    assert.type(answer.body.details[0].message, 'string');
  }
  // a valid bech32 address of another chain says which prefix this one has
  const cosmos = toBech32('cosmos', fromBech32(good, 256).data);
  const answer = await get(ctx.api, `/api/wallet/tokens?address=${cosmos}`);
  assert.is(answer.status, 400);
  assert.match(answer.body.details[0].message, /native/);
});

test('a plain CW20 transfer shows in the holdings as soon as the API hears its block was indexed', async (ctx) => {
  const [, , u3] = ctx.users as [User, User, User];
  const moonOf = async (address: string) =>
    (await holdingsOf(ctx, address)).find((h) => h.address === ctx.moon)?.balance;
  const before = BigInt((await moonOf(ctx.stranger)) ?? '0'); // cached from here on, until a commit drops it
  const height = ctx.devnet.height();
  await run(ctx, u3.execute(ctx.moon, { transfer: { recipient: ctx.stranger, amount: '777' } }));
  assert.equal(
    ctx.devnet.ledger.trades.filter((t) => t.height > height),
    [],
    'the block has no trade (and so no feed event)',
  );
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 10_000);
  const expected = String(before + 777n);
  assert.ok(await waitFor(async () => (await moonOf(ctx.stranger)) === expected, 5_000, 20), 'the transfer is shown');
  assert.is(await moonOf(ctx.stranger), await balanceOf(ctx.reader, ctx.moon, ctx.stranger).then(String));
});

test('an answer stays in memory through commits about other addresses and tokens; a trade of a held token refreshes it', async (ctx) => {
  const [u1, u2, u3] = ctx.users as [User, User, User];
  const holdings = await holdingsOf(ctx, u1.address); // computed, then kept
  const held = new Set(holdings.map((h) => h.address));
  assert.ok(held.has(ctx.early) && held.has(ctx.moon) && !held.has(ctx.direct), 'u1 holds early and moon, not direct');
  // a commit about others: u3 passes some DIRECT to the stranger (no trade, no token of u1's)
  const directOf = async () => (await holdingsOf(ctx, ctx.stranger)).find((h) => h.address === ctx.direct)?.balance;
  const before = BigInt((await directOf()) ?? '0');
  await run(ctx, u3.execute(ctx.direct, { transfer: { recipient: ctx.stranger, amount: '55' } }));
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 10_000);
  assert.ok(await waitFor(async () => (await directOf()) === String(before + 55n), 5_000, 20), 'the API heard it');
  ctx.queried.length = 0;
  assert.equal(await holdingsOf(ctx, u1.address), holdings, 'the same answer');
  assert.equal(ctx.queried, [], 'from memory: the early token (read from its contract) was not asked again');
  // a trade of a token u1 holds, by someone else: u1's balances stay, MOON's trade drops the answer
  const onAmm = ctx.devnet.ledger.graduations.some((g) => g.token === ctx.moon);
  if (onAmm)
    await run(ctx, u2.execute(ctx.devnet.contracts.amm, { swap: { token_address: ctx.moon } }, native(30n * NATIVE)));
  else await buy(ctx, u2, ctx.moon, 30n * NATIVE);
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 10_000);
  const recomputed = async () => {
    ctx.queried.length = 0;
    await holdingsOf(ctx, u1.address);
    return ctx.queried.includes(ctx.early);
  };
  assert.ok(await waitFor(recomputed, 5_000, 20), 'the answer was computed again');
  const [{ price }] = (await ctx.t.db.query<{ price: string }>(
    `SELECT current_price::text AS price FROM tokens WHERE address = $1`,
    [ctx.moon],
  )) as [{ price: string }];
  const moon = (await holdingsOf(ctx, u1.address)).find((h) => h.address === ctx.moon);
  assert.is(moon?.price_unative, price, 'with the price after the trade');
  await assertHoldingsMatchContracts(ctx);
});

async function balanceRows(ctx: Ctx) {
  return {
    balances: await ctx.t.db.query(
      `SELECT holder, token, balance::text FROM cw20_balances WHERE balance <> 0 ORDER BY holder, token`,
    ),
    tokens: await ctx.t.db.query(`SELECT * FROM cw20_tokens ORDER BY token`),
  };
}

test('a backfill beside the live indexer leaves the balances exact; a token it finds created before the live start is read from its contract', async (ctx) => {
  const traffic = produceTraffic(ctx.devnet, 15, 8); // the live indexer follows meanwhile
  const plan = await backfill({
    db: ctx.t.db,
    chain: ctx.reader,
    contracts: ctx.devnet.contracts,
    logger: silentLogger,
    maxTxsPerBatch: 20,
  });
  await traffic;
  assert.equal(plan, { from: 1, to: ctx.liveStart - 1, movesCursor: false });
  await indexed(ctx);
  await apiHeardTheIndex(ctx);
  const [state] = await ctx.t.db.query(`SELECT complete_from FROM cw20_state`);
  assert.equal(state, { complete_from: 1 }, 'balances are complete from the first block');
  await assertHoldingsMatchContracts(ctx);
  // Only known tokens are followed (docs/indexing.md "CW20 balances"): the live indexer kept no
  // movements of a token before it knew it, so one whose creation the backfill found below
  // the live start is read from its contract; every token launched in the index is vouched for.
  const unreadable = (
    await ctx.t.db.query<{ token: string }>(`SELECT token FROM cw20_tokens WHERE unreadable ORDER BY token`)
  ).map((r) => r.token);
  assert.equal(unreadable, await createdBefore(ctx, ctx.liveStart), 'the tokens created before the live start');
  assert.ok(unreadable.includes(ctx.early));
  for (const u of ctx.users)
    assert.equal(await queriesFor(ctx, u.address), unreadable, 'only those are read from their contracts');
});

test('blocks indexed again (a backfill over the index, a restarted indexer) change nothing', async (ctx) => {
  const before = await balanceRows(ctx);
  const [{ last_height: head }] = (await ctx.t.db.query<{ last_height: number }>(
    `SELECT last_height FROM indexer_state`,
  )) as [{ last_height: number }];
  // the whole index again
  await backfill(
    { db: ctx.t.db, chain: ctx.reader, contracts: ctx.devnet.contracts, logger: silentLogger },
    { from: 1, to: head, movesCursor: false },
  );
  assert.equal(await balanceRows(ctx), before, 'after a backfill of indexed blocks');
  // an indexer restarted from an older cursor writes the same blocks again
  await ctx.running.stop();
  const rewind = ctx.liveStart + 3;
  await ctx.t.db.query(
    `UPDATE indexer_state s SET last_height = b.height, last_block_hash = b.hash, last_block_time = b.time
     FROM blocks b WHERE b.height = $1`,
    [rewind],
  );
  ctx.running = startIndexer(ctx.t.db, ctx.devnet, { pollIntervalMs: 50 });
  await indexed(ctx);
  assert.equal(await balanceRows(ctx), before, 'after the restarted indexer caught up');
  const fresh = await walletApi(ctx);
  try {
    await assertHoldingsMatchContracts(ctx, fresh);
  } finally {
    await fresh.close();
  }
});

test.run();
