// Token detail's graduation_threshold and graduation_progress against the launchpad's own
// progress query: equal after trades, equal again after the oracle price moves every curve's
// threshold, and null for graduated and AMM tokens.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { graduationProgress } from '../../src/api/launchpad/routes/tokens.ts';
import { CONTRACT_QUERIES } from '../../src/chain/contract-events.ts';
import { wasmClient } from '../helpers/devnet.ts';
import { setOraclePrice, withBlocks } from '../helpers/indexing.ts';
import { type ApiCtx, apiCaughtUp, closeApi, get, indexLaunches, openApi } from '../helpers/launchpad-api.ts';
import { sleep } from '../helpers/wait.ts';

/** `snail`: a curve token of the test's own, bought a little (the generator's curves graduate quickly). */
type Ctx = ApiCtx & { snail: string };
const test = suite<Ctx>('wallet: graduation progress on tokens', {} as Ctx);

test.before(async (ctx) => {
  await openApi(ctx);
  await indexLaunches(ctx, { blocks: 10, rate: 20, graduate: true });
  const creator = await wasmClient(ctx.devnet, 1);
  try {
    const { launchpad } = ctx.devnet.contracts;
    await withBlocks(
      ctx.devnet,
      creator.execute(
        launchpad,
        { create_token: { name: 'Slow Snail', symbol: 'SNAIL', image: '', description: '' } },
        [{ denom: 'unative', amount: '1000000' }],
      ),
    );
    ctx.snail = ctx.devnet.ledger.launches.at(-1)!.token;
    await buy(ctx, 2, 100_000_000n);
  } finally {
    creator.client.disconnect();
  }
});

/** Account `index` buys the snail for `amount` unative; indexed and read by the API. */
async function buy(ctx: Ctx, index: number, amount: bigint) {
  const buyer = await wasmClient(ctx.devnet, index);
  try {
    await withBlocks(
      ctx.devnet,
      buyer.execute(ctx.devnet.contracts.launchpad, { buy: { token_address: ctx.snail } }, [
        { denom: 'unative', amount: String(amount) },
      ]),
    );
  } finally {
    buyer.client.disconnect();
  }
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
  await apiCaughtUp(ctx);
}
test.after(closeApi);

interface Progress {
  graduated: boolean;
  graduation_threshold: string;
  progress: string;
}

type Fields = { graduation_threshold: string | null; graduation_progress: string | null };

/** What the token detail should say of each token, from the contracts. */
async function expected(ctx: Ctx): Promise<Map<string, Fields>> {
  const want = new Map<string, Fields>();
  for (const launch of ctx.devnet.ledger.launches) {
    if (launch.source !== 'launchpad') {
      want.set(launch.token, { graduation_threshold: null, graduation_progress: null });
      continue;
    }
    const p = await ctx.running.chain.smartQuery<Progress>(
      ctx.devnet.contracts.launchpad,
      CONTRACT_QUERIES.progress(launch.token),
    );
    want.set(
      launch.token,
      p.graduated
        ? { graduation_threshold: null, graduation_progress: null }
        : { graduation_threshold: p.graduation_threshold, graduation_progress: p.progress },
    );
  }
  return want;
}

/** Every token's detail equals `want`, within 10 s (the thresholds are read after the block is indexed). */
async function detailsMatch(ctx: Ctx, want: Map<string, Fields>) {
  const deadline = Date.now() + 10_000;
  let mismatch = '';
  for (;;) {
    mismatch = '';
    for (const [token, fields] of want) {
      const { status, body } = await get(ctx.api, `/api/tokens/${token}`);
      assert.is(status, 200);
      const got = { graduation_threshold: body.graduation_threshold, graduation_progress: body.graduation_progress };
      if (JSON.stringify(got) !== JSON.stringify(fields)) {
        mismatch = `${token}: ${JSON.stringify(got)}, the contract says ${JSON.stringify(fields)}`;
        break;
      }
    }
    if (!mismatch) return;
    if (Date.now() > deadline) assert.unreachable(mismatch);
    await sleep(100);
  }
}

test('after trades: the contract progress answer, null for graduated and AMM tokens', async (ctx) => {
  const want = await expected(ctx);
  assert.equal(want.get(ctx.snail), { graduation_threshold: '2400000000', graduation_progress: '0.0416' });
  assert.ok(ctx.devnet.ledger.graduations.length > 0, 'a graduated token');
  for (const g of ctx.devnet.ledger.graduations) assert.equal(want.get(g.token)?.graduation_threshold, null);
  await detailsMatch(ctx, want);

  // the list carries the same fields
  const { body } = await get(ctx.api, '/api/tokens');
  for (const token of body.tokens) {
    const fields = want.get(token.address);
    if (fields)
      assert.equal(
        { graduation_threshold: token.graduation_threshold, graduation_progress: token.graduation_progress },
        fields,
      );
  }
});

test('another trade, then a new oracle price: every curve token follows the contract', async (ctx) => {
  await buy(ctx, 3, 250_000_000n);
  await detailsMatch(ctx, await expected(ctx));
  await setOraclePrice(ctx.devnet, 8_000_000n); // threshold 1,500 NATIVE
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
  await apiCaughtUp(ctx);
  const want = await expected(ctx);
  assert.is(want.get(ctx.snail)?.graduation_threshold, '1500000000', 'the new threshold, as the contract answers');
  await detailsMatch(ctx, want);
});

test('progress is reserves ÷ threshold to the basis point, floored, at most 1', () => {
  assert.is(graduationProgress('100000000', '24000000000'), '0.0041');
  assert.is(graduationProgress('0', '24000000000'), '0.0000');
  assert.is(graduationProgress('23999999999', '24000000000'), '0.9999');
  assert.is(graduationProgress('24000000000', '24000000000'), '1.0000');
  assert.is(graduationProgress('90000000000', '24000000000'), '1.0000');
});

test.run();
