// Contract calls a block makes outside any tx (a cron module, governance: the devnet's
// scheduleBlockCall), in every protocol the devnet speaks (the test runner runs this file on
// 0.34 and 0.37 too): a launch and trades in begin and end block are indexed like a tx's,
// at the block's position after its txs with the block's hash as tx hash
// (docs/real-chains.md "Block events"), served by the Launchpad API and the live feed.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { indexSource } from '../../src/indexer/indexer.ts';
import { wallet } from '../helpers/devnet.ts';
import { assertTradesMatchLedger, produceTraffic } from '../helpers/indexing.ts';
import { type ApiCtx, closeApi, get, openApi } from '../helpers/launchpad-api.ts';
import { openSse } from '../helpers/sse.ts';
import { within } from '../helpers/wait.ts';

const test = suite<ApiCtx>('block events', {} as ApiCtx);

test.before(openApi);
test.after(closeApi);

const native = (amount: bigint) => [{ denom: 'unative', amount: amount.toString() }];

test('a launch and buys made by a block, outside any tx, are indexed, served and fed like a tx’s', async (ctx) => {
  const { devnet } = ctx;
  const [{ address: creator }] = await (await wallet(3)).getAccounts();
  const stream = await openSse(`${ctx.api.url}/api/sse/feed`);
  try {
    await produceTraffic(devnet, 3, 2); // some txs in the blocks around
    // the launch, by an end-block call
    const launched = devnet.scheduleBlockCall({
      sender: creator!,
      contract: devnet.contracts.launchpad,
      msg: { create_token: { name: 'Cron Frog', symbol: 'CRON', image: '', description: 'by a block' } },
      funds: native(1_000_000n),
    });
    await devnet.produceBlock();
    assert.is((await within(launched, 5_000, 'the launch')).error, undefined);
    const token = devnet.ledger.launches.at(-1)!.token;

    // a begin-block buy and an end-block buy in a block with txs of its own
    devnet.generator.setRate(3);
    const begin = devnet.scheduleBlockCall({
      sender: creator!,
      contract: devnet.contracts.launchpad,
      msg: { buy: { token_address: token } },
      funds: native(2_000_000n),
      phase: 'begin',
    });
    const end = devnet.scheduleBlockCall({
      sender: creator!,
      contract: devnet.contracts.launchpad,
      msg: { buy: { token_address: token } },
      funds: native(3_000_000n),
      phase: 'end',
    });
    const height = await devnet.produceBlock();
    devnet.generator.setRate(0);
    for (const outcome of await Promise.all([begin, end])) assert.is(outcome.error, undefined);
    await ctx.running.indexer.waitForHeight(height, 30_000);

    // every trade, the blocks' own included, exactly as the devnet executed it
    await assertTradesMatchLedger(ctx.t.db, devnet);
    const [block] = await ctx.t.db.query<{ hash: string }>('SELECT hash FROM blocks WHERE height = $1', [height]);
    const hash = block!.hash;
    const inBlock = await ctx.t.db.query<{ tx_hash: string; tx_index: number; msg_index: number }>(
      "SELECT upper(encode(tx_hash, 'hex')) AS tx_hash, tx_index, msg_index FROM trades WHERE block_height = $1 ORDER BY seq",
      [height],
    );
    assert.ok(inBlock.length > 2, 'the block has trades of its txs too');
    assert.equal(
      inBlock.slice(-2),
      [
        { tx_hash: hash, tx_index: 32_767, msg_index: 0 },
        { tx_hash: hash, tx_index: 32_767, msg_index: 0 },
      ],
      "the block's own trades carry its hash, after its txs",
    );
    assert.ok(
      inBlock.slice(0, -2).every((t) => t.tx_hash !== hash && t.tx_index < 32_767),
      'the txs’ trades come first',
    );

    // the API knows the token and serves its trades, newest first, the block's own among them
    const tokenAnswer = await get(ctx.api, `/api/tokens/${token}`);
    assert.is(tokenAnswer.status, 200);
    assert.is(tokenAnswer.body.creator, creator);
    const trades = await get(ctx.api, `/api/trades/recent?token_address=${token}&limit=100`);
    assert.is(trades.status, 200);
    const ledger = devnet.ledger.trades
      .filter((t) => t.token === token)
      .sort((x, y) => x.height - y.height || x.txIndex - y.txIndex || x.eventIndex - y.eventIndex)
      .reverse();
    assert.equal(
      trades.body.trades.map((t: { tx_hash: string; volume_unative: string }) => [t.tx_hash, t.volume_unative]),
      ledger.map((t) => [t.txHash, String(t.volumeUnative)]),
    );
    assert.is(ledger.filter((t) => t.txHash === hash).length, 2);

    // and the live feed says so, once each
    const fedOfBlock = () => stream.events().filter((e) => e.event === 'trade' && JSON.parse(e.data!).tx_hash === hash);
    await stream.until(() => fedOfBlock().length >= 2);
    assert.is(fedOfBlock().length, 2);
    assert.ok(
      fedOfBlock().every((e) => JSON.parse(e.data!).token_address === token),
      'fed with the token',
    );
    assert.ok(
      stream.events().some((e) => e.event === 'token_launch' && JSON.parse(e.data!).token_address === token),
      'the launch is fed',
    );
    assert.ok(indexSource(ctx.t.db, ctx.running.indexer).live!().state === 'live');
  } finally {
    stream.close();
  }
});

test.run();
