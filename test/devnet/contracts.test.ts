// The launchpad, CW20 and AMM contracts through cosmjs's SigningCosmWasmClient and
// CosmWasmClient: the events of docs/devnet.md "Events" (with `msg_index` on SDK 0.50 only),
// the curve and pool math, graduation, and the ledger agreeing with the events.
import { toBase64, toUtf8 } from '@cosmjs/encoding';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Devnet } from '../../src/devnet/index.ts';
import { attr, feeFor, msgIndexAttribute, startDevnet, wasmClient } from '../helpers/devnet.ts';

let devnet: Devnet;
let trader: Awaited<ReturnType<typeof wasmClient>>;
let admin: Awaited<ReturnType<typeof wasmClient>>;
let token = '';
const native = (amount: bigint) => [{ denom: 'unative', amount: amount.toString() }];
const hook = (msg: unknown) => toBase64(toUtf8(JSON.stringify(msg)));
const NATIVE = 1_000_000n;

test.before(async () => {
  devnet = await startDevnet({ blockMs: 100 });
  trader = await wasmClient(devnet, 1);
  admin = await wasmClient(devnet, 0);
});
test.after(async () => {
  trader.client.disconnect();
  admin.client.disconnect();
  await devnet.close();
});

const nativeBalance = async (address: string) => BigInt((await trader.client.getBalance(address, 'unative')).amount);
const tokenBalance = async (address: string) =>
  BigInt(((await trader.client.queryContractSmart(token, { balance: { address } })) as { balance: string }).balance);

test('launchpad: create_token emits wasm-token_created and the CW20 answers token_info', async () => {
  const result = await trader.execute(
    devnet.contracts.launchpad,
    {
      create_token: {
        name: 'Test Frog',
        symbol: 'TFROG',
        image: 'https://img.example/frog.png',
        description: 'A frog for tests',
      },
    },
    native(NATIVE),
  );
  const [created] = attr(result.events, 'wasm-token_created');
  assert.ok(created, 'wasm-token_created event');
  const event = result.events.find((e) => e.type === 'wasm-token_created')!;
  assert.equal(
    event.attributes.map((a) => a.key),
    [
      '_contract_address',
      'token_address',
      'creator',
      'name',
      'symbol',
      'image',
      'description',
      'initial_reserves',
      ...Object.keys(msgIndexAttribute(devnet, 0)),
    ],
  );
  assert.is(created!._contract_address, devnet.contracts.launchpad);
  assert.is(created!.creator, trader.address);
  assert.is(created!.initial_reserves, '1000000');
  token = created!.token_address!;
  assert.equal(await trader.client.queryContractSmart(token, { token_info: {} }), {
    name: 'Test Frog',
    symbol: 'TFROG',
    decimals: 6,
    total_supply: '1000000000000000',
  });
  const marketing = await trader.client.queryContractSmart(token, { marketing_info: {} });
  assert.is(marketing.description, 'A frog for tests');
  assert.equal(marketing.logo, { url: 'https://img.example/frog.png' });
  const contract = await trader.client.getContract(token);
  assert.is(contract.codeId, 1);
  const progress = await trader.client.queryContractSmart(devnet.contracts.launchpad, {
    progress: { token_address: token },
  });
  assert.is(progress.native_reserves, '1000000');
  assert.is(progress.graduated, false);
  assert.is(progress.graduation_threshold, '24000000000', '$12,000 at $0.50 per NATIVE');
});

test('launchpad: buy takes a 1% fee from what is sent and prices on the virtual-reserve curve', async () => {
  const before = await trader.client.queryContractSmart(devnet.contracts.launchpad, {
    progress: { token_address: token },
  });
  const result = await trader.execute(
    devnet.contracts.launchpad,
    { buy: { token_address: token } },
    native(100n * NATIVE),
  );
  const [buy] = attr(result.events, 'wasm-buy');
  const nativeIn = 100n * NATIVE;
  const fee = nativeIn / 100n;
  const net = nativeIn - fee;
  const vn = BigInt(before.virtual_native_reserves);
  const vt = BigInt(before.virtual_token_reserves);
  const tokensOut = (vt * net) / (vn + net);
  assert.equal(buy, {
    _contract_address: devnet.contracts.launchpad,
    token_address: token,
    buyer: trader.address,
    native_input: nativeIn.toString(),
    tokens_out: tokensOut.toString(),
    fee: fee.toString(),
    native_reserves: (BigInt(before.native_reserves) + net).toString(),
    ...msgIndexAttribute(devnet, 0),
  });
  assert.is(await tokenBalance(trader.address), tokensOut);
  assert.ok(
    result.events.some((e) => e.type === 'execute'),
    'wasmd execute event',
  );
  const trade = devnet.ledger.trades.find((t) => t.txHash === result.transactionHash)!;
  assert.is(trade.action, 'buy');
  assert.is(trade.volumeUnative, net);
  assert.is(trade.volumeToken, tokensOut);
  assert.is(trade.priceUnative, (net * 1_000_000n) / tokensOut);
  assert.is(result.events[trade.eventIndex]!.type, 'wasm-buy', 'ledger eventIndex points at the event');
});

test('launchpad: sell goes through CW20 send and pays out of the curve minus the fee', async () => {
  const held = await tokenBalance(trader.address);
  const amount = held / 2n;
  const nativeBefore = await nativeBalance(trader.address);
  const result = await trader.execute(token, {
    send: { contract: devnet.contracts.launchpad, amount: amount.toString(), msg: hook({ sell: {} }) },
  });
  const [sell] = attr(result.events, 'wasm-sell');
  assert.is(sell!._contract_address, devnet.contracts.launchpad);
  assert.is(sell!.seller, trader.address);
  assert.is(sell!.tokens_input, amount.toString());
  const nativeOut = BigInt(sell!.native_out!);
  const fee = BigInt(sell!.fee!);
  assert.is(fee, (nativeOut + fee) / 100n, 'the fee is 1% of what the curve pays');
  const gasFee = BigInt(result.gasWanted) / 100n + (BigInt(result.gasWanted) % 100n ? 1n : 0n);
  assert.is(await nativeBalance(trader.address), nativeBefore + nativeOut - gasFee);
  assert.is(await tokenBalance(trader.address), held - amount);
  const wasmEvents = attr(result.events, 'wasm');
  assert.ok(
    wasmEvents.some((e) => e.action === 'send' && e._contract_address === token),
    'the CW20 send',
  );
});

test('launchpad: only the admin sets the oracle price', async () => {
  try {
    await trader.execute(devnet.contracts.launchpad, { set_oracle_price: { native_usd_micro: '1' } });
    assert.unreachable('a non-admin must not set the price');
  } catch (error) {
    assert.match((error as Error).message, /Unauthorized/);
  }
});

test('launchpad: the buy that reaches the threshold graduates the token to an AMM pool', async () => {
  // $100 per NATIVE puts the $12,000 threshold at 120 NATIVE.
  await admin.execute(devnet.contracts.launchpad, { set_oracle_price: { native_usd_micro: '100000000' } });
  const progress = await trader.client.queryContractSmart(devnet.contracts.launchpad, {
    progress: { token_address: token },
  });
  assert.is(progress.graduation_threshold, '120000000');
  const result = await trader.execute(
    devnet.contracts.launchpad,
    { buy: { token_address: token } },
    native(200n * NATIVE),
  );
  const types = result.events.map((e) => e.type).filter((t) => t.startsWith('wasm-'));
  assert.equal(types.slice(0, 2), ['wasm-buy_and_graduate', 'wasm-graduate']);
  const [buy] = attr(result.events, 'wasm-buy_and_graduate');
  const [graduate] = attr(result.events, 'wasm-graduate');
  assert.is(graduate!.token_address, token);
  assert.is(graduate!.creator, trader.address);
  assert.is(graduate!.native_for_pool, buy!.native_reserves);
  const pool = await trader.client.queryContractSmart(devnet.contracts.amm, { pool: { token_address: token } });
  assert.is(pool.native_reserves, graduate!.native_for_pool);
  assert.is(pool.token_reserves, graduate!.tokens_for_pool);
  const after = await trader.client.queryContractSmart(devnet.contracts.launchpad, {
    progress: { token_address: token },
  });
  assert.is(after.graduated, true);
  assert.is(devnet.ledger.graduations.at(-1)!.token, token);
  try {
    await trader.execute(devnet.contracts.launchpad, { buy: { token_address: token } }, native(NATIVE));
    assert.unreachable('the curve is closed');
  } catch (error) {
    assert.match((error as Error).message, /graduated/);
  }
});

test('amm: a graduated token trades as swaps in both directions with a 0.3% fee', async () => {
  const pool = await trader.client.queryContractSmart(devnet.contracts.amm, { pool: { token_address: token } });
  const offer = 10n * NATIVE;
  const buy = await trader.execute(devnet.contracts.amm, { swap: { token_address: token } }, native(offer));
  const [swapIn] = attr(buy.events, 'wasm-swap');
  const fee = (offer * 30n) / 10_000n;
  const expected = (BigInt(pool.token_reserves) * (offer - fee)) / (BigInt(pool.native_reserves) + offer - fee);
  assert.equal(swapIn, {
    _contract_address: devnet.contracts.amm,
    token_address: token,
    trader: trader.address,
    direction: 'native_to_token',
    offer_amount: offer.toString(),
    return_amount: expected.toString(),
    fee: fee.toString(),
    native_reserves: (BigInt(pool.native_reserves) + offer - fee).toString(),
    ...msgIndexAttribute(devnet, 0),
  });
  const sell = await trader.execute(token, {
    send: { contract: devnet.contracts.amm, amount: expected.toString(), msg: hook({ swap: {} }) },
  });
  const [swapOut] = attr(sell.events, 'wasm-swap');
  assert.is(swapOut!.direction, 'token_to_native');
  assert.is(swapOut!.offer_amount, expected.toString());
  const trade = devnet.ledger.trades.find((t) => t.txHash === sell.transactionHash)!;
  assert.is(trade.source, 'amm');
  assert.is(trade.action, 'swap');
  assert.is(trade.volumeUnative, BigInt(swapOut!.return_amount!) + BigInt(swapOut!.fee!));
});

test('amm: a token can start directly on the AMM; its first swap is how an indexer sees it', async () => {
  const result = await trader.execute(
    devnet.contracts.amm,
    { create_token_pool: { name: 'Direct Pool', symbol: 'DPOOL', image: '', description: 'starts on the AMM' } },
    native(5_000n * NATIVE),
  );
  assert.is(attr(result.events, 'wasm-token_created').length, 0);
  const direct = attr(result.events, 'wasm').find((e) => e.action === 'create_token_pool')!.token_address!;
  assert.is((await trader.client.queryContractSmart(direct, { token_info: {} })).symbol, 'DPOOL');
  const launch = devnet.ledger.launches.find((l) => l.token === direct)!;
  assert.is(launch.source, 'amm');
  const swap = await trader.execute(devnet.contracts.amm, { swap: { token_address: direct } }, native(NATIVE));
  assert.is(attr(swap.events, 'wasm-swap')[0]!.token_address, direct);
});

test('cw20: transfer moves tokens between accounts', async () => {
  const recipient = devnet.accounts[5]!.address;
  const held = await tokenBalance(trader.address);
  await trader.execute(token, { transfer: { recipient, amount: '1000' } });
  assert.is(await tokenBalance(recipient), 1000n);
  assert.is(await tokenBalance(trader.address), held - 1000n);
});

test('contracts: a failed execute is a failed tx with a wasm error and no state change', async () => {
  const held = await tokenBalance(trader.address);
  try {
    await trader.client.execute(
      trader.address,
      token,
      { transfer: { recipient: devnet.accounts[5]!.address, amount: (held + 1n).toString() } },
      feeFor(500_000),
    );
    assert.unreachable('overspending a CW20 balance fails');
  } catch (error) {
    assert.match(
      (error as Error).message,
      /Code: 5; Raw log: failed to execute message; message index: 0: Generic error: Overflow.*: execute wasm contract failed/,
    );
  }
  assert.is(await tokenBalance(trader.address), held);
});

test.run();
