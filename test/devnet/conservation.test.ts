// Property: curve and pool trades conserve value exactly. Over random sequences of buys,
// sells and swaps sent through cosmjs, unative only moves between the trader, the
// launchpad's curves, the AMM's pools, the fee treasury and the gas fee collector, and each
// event's reserves match the contract's state.
import { toBase64, toUtf8 } from '@cosmjs/encoding';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Devnet } from '../../src/devnet/index.ts';
import { MODULE_ACCOUNTS } from '../../src/devnet/state/addresses.ts';
import { attr, feeFor, startDevnet, textEvents, wasmClient } from '../helpers/devnet.ts';

let devnet: Devnet;
let trader: Awaited<ReturnType<typeof wasmClient>>;
let curveToken = '';
let poolToken = '';
const NATIVE = 1_000_000n;
const native = (amount: bigint) => [{ denom: 'unative', amount: amount.toString() }];
const FEE = feeFor(600_000);

test.before(async () => {
  devnet = await startDevnet({ blockMs: 25 });
  trader = await wasmClient(devnet, 3);
  const created = await trader.execute(
    devnet.contracts.launchpad,
    { create_token: { name: 'Prop Curve', symbol: 'PCURVE', image: '', description: '' } },
    native(NATIVE),
  );
  curveToken = attr(created.events, 'wasm-token_created')[0]!.token_address!;
  const pool = await trader.execute(
    devnet.contracts.amm,
    { create_token_pool: { name: 'Prop Pool', symbol: 'PPOOL', image: '', description: '' } },
    native(20_000n * NATIVE),
  );
  poolToken = attr(pool.events, 'wasm').find((e) => e.action === 'create_token_pool')!.token_address!;
  await trader.execute(devnet.contracts.amm, { swap: { token_address: poolToken } }, native(1_000n * NATIVE));
  await trader.execute(devnet.contracts.launchpad, { buy: { token_address: curveToken } }, native(500n * NATIVE));
});
test.after(async () => {
  trader.client.disconnect();
  await devnet.close();
});

const holders = () => [
  trader.address,
  devnet.contracts.launchpad,
  devnet.contracts.amm,
  MODULE_ACCOUNTS.treasury,
  MODULE_ACCOUNTS.feeCollector,
];
async function nativeTotal() {
  const balances = await Promise.all(holders().map((a) => trader.client.getBalance(a, 'unative')));
  return balances.reduce((sum, c) => sum + BigInt(c.amount), 0n);
}
const tokenBalance = async (token: string, address: string) =>
  BigInt((await trader.client.queryContractSmart(token, { balance: { address } })).balance);
const reservesOf = async (token: string) =>
  token === curveToken
    ? BigInt(
        (await trader.client.queryContractSmart(devnet.contracts.launchpad, { progress: { token_address: token } }))
          .native_reserves,
      )
    : BigInt(
        (await trader.client.queryContractSmart(devnet.contracts.amm, { pool: { token_address: token } }))
          .native_reserves,
      );
const hook = (msg: unknown) => toBase64(toUtf8(JSON.stringify(msg)));

type Step = { venue: 'curve' | 'pool'; side: 'buy' | 'sell'; size: number };

async function trade(step: Step) {
  const token = step.venue === 'curve' ? curveToken : poolToken;
  const venue = step.venue === 'curve' ? devnet.contracts.launchpad : devnet.contracts.amm;
  if (step.side === 'buy') {
    const amount = BigInt(Math.max(1, Math.round(step.size * 300))) * NATIVE;
    const msg = step.venue === 'curve' ? { buy: { token_address: token } } : { swap: { token_address: token } };
    return { token, amount, result: await trader.client.execute(trader.address, venue, msg, FEE, '', native(amount)) };
  }
  const held = await tokenBalance(token, trader.address);
  const amount = (held * BigInt(Math.max(1, Math.round(step.size * 100)))) / 200n;
  const msg = {
    send: {
      contract: venue,
      amount: amount.toString(),
      msg: hook(step.venue === 'curve' ? { sell: {} } : { swap: {} }),
    },
  };
  return { token, amount, result: await trader.client.execute(trader.address, token, msg, FEE) };
}

test('conservation: reserves + balances before = after, fees included, for any trade sequence', async () => {
  const step = fc.record({
    venue: fc.constantFrom('curve' as const, 'pool' as const),
    side: fc.constantFrom('buy' as const, 'sell' as const),
    size: fc.double({ min: 0.01, max: 1, noNaN: true }),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 2, maxLength: 5 }), async (steps) => {
      const totalBefore = await nativeTotal();
      const tokensBefore =
        (await tokenBalance(curveToken, trader.address)) + (await tokenBalance(curveToken, devnet.contracts.launchpad));
      for (const s of steps) {
        const reservesBefore = await reservesOf(s.venue === 'curve' ? curveToken : poolToken);
        const { token, amount, result } = await trade(s);
        const events = textEvents(devnet, result.events);
        const [event] = [...attr(events, 'wasm-buy'), ...attr(events, 'wasm-sell'), ...attr(events, 'wasm-swap')];
        const reservesAfter = await reservesOf(token);
        assert.is(BigInt(event!.native_reserves!), reservesAfter, 'the event reports the reserves after the trade');
        const fee = BigInt(event!.fee!);
        const delta = s.side === 'buy' ? amount - fee : -(BigInt(event!.native_out ?? event!.return_amount!) + fee);
        assert.is(reservesAfter - reservesBefore, delta, 'reserves change by exactly what crossed the curve or pool');
      }
      assert.is(await nativeTotal(), totalBefore, 'no unative created or destroyed');
      const tokensAfter =
        (await tokenBalance(curveToken, trader.address)) + (await tokenBalance(curveToken, devnet.contracts.launchpad));
      assert.is(tokensAfter, tokensBefore, 'no curve token created or destroyed');
    }),
    { numRuns: 6, endOnFailure: true },
  );
});

test.run();
