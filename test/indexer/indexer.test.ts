// The indexer against the devnet over its real protocol, on the embedded TimescaleDB:
// every trade exactly once with every field right; tokens, graduations and reserves as
// the contracts report them; the chain index; the SSE outbox.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createChainClient } from '../../src/chain/client.ts';
import { unpackEvents } from '../../src/chain/stored-events.ts';
import type { Devnet } from '../../src/devnet/index.ts';
import { fetchBlocks } from '../../src/indexer/fetch-blocks.ts';
import type { Indexer } from '../../src/indexer/indexer.ts';
import { writeBatch } from '../../src/indexer/write-batch.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startDevnet } from '../helpers/devnet.ts';
import {
  assertTradesMatchLedger,
  launchToken,
  produceTraffic,
  setOraclePrice,
  startIndexer,
} from '../helpers/indexing.ts';
import { waitFor } from '../helpers/wait.ts';

const test = suite<{ t: TestDatabase; devnet: Devnet; indexer: Indexer; stop: () => Promise<void> }>(
  'indexer',
  {} as never,
);

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
  ctx.devnet = await startDevnet();
  await setOraclePrice(ctx.devnet, 5_000_000n); // $5 per NATIVE: graduation at 2,400 NATIVE of reserves
  await produceTraffic(ctx.devnet, 60, 12);
  // until every kind of trade has happened at least once
  const kinds = () => new Set(ctx.devnet.ledger.trades.map((t) => `${t.source}:${t.action}:${t.direction}`)).size;
  for (let i = 0; i < 40 && kinds() < 5; i++) await produceTraffic(ctx.devnet, 5, 12);
  const running = startIndexer(ctx.t.db, ctx.devnet);
  ctx.stop = running.stop;
  ctx.indexer = running.indexer;
  await running.indexer.waitForHeight(ctx.devnet.height(), 60_000);
  // traffic while the indexer follows the tip, woken by NewBlock
  await produceTraffic(ctx.devnet, 20, 8);
  await running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
});
test.after(async (ctx) => {
  await ctx.stop();
  await ctx.devnet.close();
  await ctx.t.dispose();
});

test('every trade on the chain appears exactly once with every field as executed', async ({ t, devnet }) => {
  await assertTradesMatchLedger(t.db, devnet);
});

test('the generated traffic covers every kind of trade', async ({ t }) => {
  const kinds = await t.db.query<{ kind: string }>(
    `SELECT DISTINCT source || ':' || action || ':' || direction AS kind FROM trades ORDER BY 1`,
  );
  assert.equal(
    kinds.map((k) => k.kind),
    [
      'amm:swap:native_to_token',
      'amm:swap:token_to_native',
      'launchpad:buy:native_to_token',
      'launchpad:buy_and_graduate:native_to_token',
      'launchpad:sell:token_to_native',
    ],
  );
});

test('launched tokens carry the launch event: creator, metadata, initial reserves, block time', async ({
  t,
  devnet,
}) => {
  for (const launch of devnet.ledger.launches.filter((l) => l.source === 'launchpad')) {
    const [row] = await t.db.query(
      `SELECT source, creator, name, symbol, image, description, initial_reserves::text AS initial_reserves, created_at, created_height FROM tokens WHERE address = $1`,
      [launch.token],
    );
    assert.ok(row, `token ${launch.token} indexed`);
    assert.equal(row, {
      source: 'launchpad',
      creator: launch.creator,
      name: launch.name,
      symbol: launch.symbol,
      image: launch.image,
      description: launch.description,
      initial_reserves: `${launch.initialReserves}`,
      created_at: new Date(new Date(launch.time).getTime()),
      created_height: launch.height,
    });
  }
});

test('graduation flags, reserves and prices match the contracts at the indexed height', async ({ t, devnet }) => {
  const { stop, chain } = startIndexer(t.db, devnet, { subscribe: false });
  try {
    const tokens = await t.db.query<{
      address: string;
      source: string;
      graduated: boolean;
      native_reserves: string;
      current_price: string;
    }>(`SELECT address, source, graduated, native_reserves::text, current_price::text FROM tokens`);
    const graduatedOnChain = new Set(devnet.ledger.graduations.map((g) => g.token));
    assert.ok(graduatedOnChain.size > 0, 'some token graduated');
    for (const token of tokens) {
      assert.is(token.graduated, graduatedOnChain.has(token.address), `${token.address} graduated`);
      const trades = devnet.ledger.tradesOf(token.address);
      const last = trades.at(-1);
      if (last) assert.is(token.current_price, `${last.priceUnative}`, `${token.address} price is the last trade's`);
      if (token.source === 'launchpad' && !token.graduated) {
        const progress = await chain.smartQuery<{ native_reserves: string; graduated: boolean }>(
          devnet.contracts.launchpad,
          { progress: { token_address: token.address } },
        );
        assert.is(token.native_reserves, progress.native_reserves, `${token.address} curve reserves`);
        assert.is(progress.graduated, false);
      } else {
        const pool = await chain.smartQuery<{ native_reserves: string }>(devnet.contracts.amm, {
          pool: { token_address: token.address },
        });
        assert.is(token.native_reserves, pool.native_reserves, `${token.address} pool reserves`);
      }
    }
  } finally {
    await stop();
  }
});

test('token metadata is completed from token_info and marketing_info', async ({ t, devnet }) => {
  let pending = -1;
  const done = async () => {
    [{ pending }] = (await t.db.query<{ pending: number }>(
      `SELECT count(*)::int AS pending FROM tokens WHERE NOT metadata_fetched`,
    )) as [{ pending: number }];
    return pending === 0;
  };
  assert.ok(await waitFor(done, 10_000, 200), `every token has its metadata within 10 s (${pending} pending)`);
  const rows = await t.db.query<{ address: string; decimals: number; name: string | null; symbol: string | null }>(
    `SELECT address, decimals, name, symbol FROM tokens`,
  );
  for (const r of rows) {
    assert.is(r.decimals, 6, `${r.address} decimals from token_info`);
    assert.ok(r.name && r.symbol, `${r.address} has a name and symbol`);
  }
  const launchedOnAmm = devnet.ledger.launches.filter((l) => l.source === 'amm');
  for (const l of launchedOnAmm) {
    const [row] = await t.db.query<{ source: string; name: string }>(
      `SELECT source, name FROM tokens WHERE address = $1`,
      [l.token],
    );
    assert.equal(row, { source: 'amm', name: l.name });
  }
});

test('every block and transaction is in the chain index, searchable by sender and height', async ({ t, devnet }) => {
  const [blocks] = await t.db.query<{ n: number; lo: number; hi: number }>(
    `SELECT count(*)::int AS n, min(height) AS lo, max(height) AS hi FROM blocks`,
  );
  assert.equal(blocks, { n: devnet.height(), lo: 1, hi: devnet.height() });
  const [txs] = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM txs`);
  const [{ expected }] = (await t.db.query<{ expected: number }>(
    `SELECT sum(tx_count)::int AS expected FROM blocks`,
  )) as [{ expected: number }];
  assert.is(txs!.n, expected);
  const trade = devnet.ledger.trades[5]!;
  const bySender = await t.db.query<{ hash: string }>(
    `SELECT upper(encode(x.hash, 'hex')) AS hash FROM tx_attributes a JOIN txs x ON x.height = a.height AND x.tx_index = a.tx_index WHERE a.key = 'message.sender' AND a.value = $1`,
    [trade.trader],
  );
  assert.ok(
    bySender.some((r) => r.hash === trade.txHash),
    'the trade tx is found by its sender',
  );
  const [tx] = await t.db.query<{ events: Uint8Array }>(`SELECT events FROM txs WHERE hash = decode($1, 'hex')`, [
    trade.txHash,
  ]);
  const events = unpackEvents(tx!.events);
  const buy = events[trade.eventIndex]!;
  assert.is(buy.type, `wasm-${trade.action}`, 'events are kept in chain order');
  assert.ok(buy.attributes.every((a) => a.index === true));
  assert.ok(buy.attributes.some((a) => a.key === 'token_address' && a.value === trade.token));
});

test('the SSE outbox has one event per trade, launch and graduation, in chain order, with the documented fields', async ({
  t,
  devnet,
}) => {
  const rows = await t.db.query<{ event: string; data: Record<string, string> }>(
    `SELECT event, data FROM feed_events ORDER BY id`,
  );
  const launches = devnet.ledger.launches.filter((l) => l.source === 'launchpad');
  assert.is(rows.filter((r) => r.event === 'trade').length, devnet.ledger.trades.length);
  assert.is(rows.filter((r) => r.event === 'token_launch').length, launches.length);
  assert.is(rows.filter((r) => r.event === 'graduation').length, devnet.ledger.graduations.length);
  const trade = rows.find((r) => r.event === 'trade')!;
  assert.equal(Object.keys(trade.data).sort(), [
    'action',
    'direction',
    'input_amount',
    'native_reserves',
    'output_amount',
    'price_unative',
    'time',
    'token_address',
    'trader',
    'tx_hash',
  ]);
  const first = devnet.ledger.trades[0]!;
  assert.equal(trade.data, {
    token_address: first.token,
    action: first.action,
    direction: first.direction,
    input_amount: `${first.inputAmount}`,
    output_amount: `${first.outputAmount}`,
    price_unative: `${first.priceUnative}`,
    trader: first.trader,
    tx_hash: first.txHash,
    time: new Date(first.time).toISOString(),
    native_reserves: `${first.nativeReservesAfter}`,
  });
  const grad = rows.find((r) => r.event === 'graduation')!;
  const g = devnet.ledger.graduations[0]!;
  assert.equal(grad.data, {
    token_address: g.token,
    native_for_pool: `${g.nativeForPool}`,
    tokens_for_pool: `${g.tokensForPool}`,
    creator: g.creator,
    time: new Date(g.time).toISOString(),
  });
  const launch = rows.find((r) => r.event === 'token_launch')!;
  assert.equal(Object.keys(launch.data).sort(), ['creator', 'initial_reserves', 'time', 'token_address']);
});

test('chain text holding U+0000 (anyone can name a token so) is indexed as U+FFFD, and indexing goes on', async (ctx) => {
  const { token, height } = await launchToken(ctx.devnet, 4, {
    name: 'Nul\0Coin',
    symbol: 'NULC',
    description: 'a\0b',
  });
  await produceTraffic(ctx.devnet, 3, 4); // blocks after it: the indexer must pass it
  await ctx.indexer.waitForHeight(ctx.devnet.height(), 30_000);
  const [row] = await ctx.t.db.query('SELECT name, symbol, description FROM tokens WHERE address = $1', [token]);
  assert.equal(row, { name: 'Nul\uFFFDCoin', symbol: 'NULC', description: 'a\uFFFDb' });
  const [cursor] = await ctx.t.db.query<{ last_height: number }>('SELECT last_height FROM indexer_state');
  assert.ok(cursor!.last_height > height, 'the cursor is past the block of the token');
});

test('a new block wakes the indexer at once (NewBlock subscription), long before the next poll', async (ctx) => {
  const { t, devnet } = ctx;
  // one writer at a time: the indexer of the setup stops (and releases the writer lock at once)
  await ctx.stop();
  ctx.stop = async () => {};
  assert.ok(await waitFor(() => devnet.subscriptions() === 0, 5_000), 'the stopped indexer unsubscribed');
  const running = startIndexer(t.db, devnet, { pollIntervalMs: 60_000 });
  try {
    await running.indexer.waitForHeight(devnet.height(), 10_000);
    // idle: 'live' is set at the end of a round, right before it waits for a block or the next poll
    assert.ok(
      await waitFor(() => running.indexer.status().state === 'live', 10_000),
      'at the tip and waiting within 10 s',
    );
    assert.ok(await waitFor(() => devnet.subscriptions() === 1, 10_000), 'subscribed to NewBlockHeader within 10 s');
    await produceTraffic(devnet, 1, 3);
    // the next poll is a minute away: only the NewBlockHeader event can wake it in time
    await running.indexer.waitForHeight(devnet.height(), 5_000);
  } finally {
    await running.stop();
  }
});

test('the cursor records the chain and the first block, and is at the tip', async ({ t, devnet }) => {
  const [state] = await t.db.query<{ chain_id: string; first_height: number; last_height: number }>(
    `SELECT chain_id, first_height, last_height FROM indexer_state`,
  );
  assert.equal(state, { chain_id: devnet.chainId, first_height: 1, last_height: devnet.height() });
});

test('writing indexed blocks again stores nothing twice: chain index, trades, tokens', async ({ t, devnet }) => {
  const counts = () =>
    t.db.query(`SELECT (SELECT count(*) FROM blocks) AS blocks, (SELECT count(*) FROM txs) AS txs, (SELECT count(*) FROM tx_attributes) AS attributes,
                       (SELECT count(*) FROM trades) AS trades, (SELECT count(*) FROM tokens) AS tokens, (SELECT count(*) FROM feed_events) AS feed`);
  const before = await counts();
  const chain = createChainClient(devnet.rpcUrl);
  try {
    const blocks = await fetchBlocks(chain, 1, devnet.height(), devnet.contracts);
    const events = blocks.flatMap((b) => b.decoded.events);
    assert.ok(events.some((e) => e.kind === 'trade'));
    const result = await t.db.transaction((tx) =>
      writeBatch(tx, { blocks, events }, { moveCursor: false, emitFeed: true, bulk: false }),
    );
    assert.equal([result.trades, result.newTokens, result.feedEvents], [0, [], 0], 'nothing new');
  } finally {
    chain.disconnect();
  }
  assert.equal(await counts(), before);
  await assertTradesMatchLedger(t.db, devnet);
});

test.run();
