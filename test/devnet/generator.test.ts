// The traffic generator: launches, buys, sells, graduations and swaps at a chosen rate, the
// fast path at benchmark rates, and the ledger agreeing exactly with the events on chain.
import { sha256 } from '@cosmjs/crypto';
import { toHex } from '@cosmjs/encoding';
import { StargateClient } from '@cosmjs/stargate';
import type { CometClient } from '@cosmjs/tendermint-rpc';
import { TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Devnet, LedgerTrade } from '../../src/devnet/index.ts';
import { cometClient, messageIndexesOf, startDevnet, textEvents, wasmClient } from '../helpers/devnet.ts';
import { sleep } from '../helpers/wait.ts';

const TRADE_EVENTS = new Set(['wasm-buy', 'wasm-buy_and_graduate', 'wasm-sell', 'wasm-swap']);

/**
 * Every trade event of every block, read back through cosmjs, as the ledger would record it:
 * its message from `msg_index` (SDK 0.50) or the message boundaries (before).
 */
async function tradesOnChain(devnet: Devnet, comet: CometClient, fromHeight = 1) {
  const found: Omit<LedgerTrade, 'time' | 'volumeUnative' | 'volumeToken' | 'priceUnative' | 'source'>[] = [];
  for (let height = fromHeight; height <= devnet.height(); height++) {
    const [block, results] = await Promise.all([comet.block(height), comet.blockResults(height)]);
    results.results.forEach((result, txIndex) => {
      if (result.code !== 0) return;
      const txHash = toHex(sha256(block.block.txs[txIndex]!)).toUpperCase();
      const events = textEvents(devnet, result.events);
      const messages = messageIndexesOf(devnet, events);
      events.forEach((event, eventIndex) => {
        if (!TRADE_EVENTS.has(event.type)) return;
        const a = Object.fromEntries(event.attributes.map((x) => [x.key, x.value]));
        const action = event.type.slice(5) as LedgerTrade['action'];
        const direction =
          action === 'swap'
            ? (a.direction as LedgerTrade['direction'])
            : action === 'sell'
              ? 'token_to_native'
              : 'native_to_token';
        found.push({
          height,
          txHash,
          txIndex,
          msgIndex: messages[eventIndex]!,
          eventIndex,
          action,
          direction,
          token: a.token_address!,
          trader: a.buyer ?? a.seller ?? a.trader!,
          inputAmount: BigInt(a.native_input ?? a.tokens_input ?? a.offer_amount!),
          outputAmount: BigInt(a.tokens_out ?? a.native_out ?? a.return_amount!),
          feeUnative: BigInt(a.fee!),
          nativeReservesAfter: BigInt(a.native_reserves!),
        });
      });
    });
  }
  return found;
}

test('generator: launches, buys, sells, graduations and swaps, each trade exactly once in the ledger', async () => {
  const devnet = await startDevnet({ blockMs: 40, tradesPerBlock: 40 });
  // $200 per NATIVE lowers the graduation threshold to 60 NATIVE, so tokens graduate quickly.
  const admin = await wasmClient(devnet, 0);
  await admin.execute(devnet.contracts.launchpad, { set_oracle_price: { native_usd_micro: '200000000' } });
  admin.client.disconnect();
  const deadline = Date.now() + 20_000;
  while (
    Date.now() < deadline &&
    (devnet.ledger.graduations.length < 2 || devnet.ledger.trades.filter((t) => t.action === 'swap').length < 20)
  ) {
    await sleep(100);
  }
  devnet.generator.setRate(0);
  const actions = new Set(devnet.ledger.trades.map((t) => `${t.action}/${t.direction}`));
  for (const expected of [
    'buy/native_to_token',
    'sell/token_to_native',
    'buy_and_graduate/native_to_token',
    'swap/native_to_token',
    'swap/token_to_native',
  ]) {
    assert.ok(actions.has(expected), `the generator made a ${expected} trade`);
  }
  assert.ok(devnet.ledger.launches.some((l) => l.source === 'launchpad'));
  const comet = await cometClient(devnet);
  const chain = await tradesOnChain(devnet, comet);
  const ledger = devnet.ledger.trades
    .filter((t) => t.height <= devnet.height())
    .map(({ time: _t, volumeUnative: _v, volumeToken: _vt, priceUnative: _p, source: _s, ...rest }) => rest);
  assert.is(chain.length, ledger.length);
  assert.equal(chain, ledger);
  const sources = new Set(devnet.ledger.trades.map((t) => `${t.source}:${t.action}`));
  assert.equal([...sources].sort(), ['amm:swap', 'launchpad:buy', 'launchpad:buy_and_graduate', 'launchpad:sell']);
  comet.disconnect();
  await devnet.close();
});

test('generator: a fractional rate is a probability per block', async () => {
  const devnet = await startDevnet({ blockMs: 0, tradesPerBlock: 0.5 });
  for (let i = 0; i < 40; i++) await devnet.produceBlock();
  const stargate = await StargateClient.connect(devnet.rpcUrl);
  let txs = 0;
  for (let h = 2; h <= devnet.height(); h++) txs += (await stargate.getBlock(h)).txs.length;
  assert.ok(txs >= 8 && txs <= 32, `about 20 txs in 40 blocks, got ${txs}`);
  stargate.disconnect();
  await devnet.close();
});

test('generator: pregenerate builds 1000-trade blocks that cosmjs decodes, with real tx hashes', async () => {
  const devnet = await startDevnet({ blockMs: 0 });
  await devnet.pregenerate({ trades: 3000, tradesPerBlock: 1000 });
  assert.ok(devnet.ledger.trades.length >= 3000);
  assert.is(devnet.generator.rate, 0, 'the previous rate is restored');
  const stargate = await StargateClient.connect(devnet.rpcUrl);
  const comet = await cometClient(devnet);
  const height = devnet.height();
  const block = await stargate.getBlock(height);
  const results = await comet.blockResults(height);
  assert.is(block.txs.length, 1000);
  assert.is(results.results.length, 1000);
  const raw = TxRaw.decode(block.txs[0]!);
  assert.is(raw.signatures[0]!.length, 64);
  const body = TxBody.decode(raw.bodyBytes);
  assert.is(body.messages[0]!.typeUrl, '/cosmwasm.wasm.v1.MsgExecuteContract');
  assert.equal(TxBody.encode(body).finish(), raw.bodyBytes, 'fast-path bytes are canonical protobuf');
  assert.equal(TxRaw.encode(raw).finish(), block.txs[0]);
  const hash = toHex(sha256(block.txs[0]!)).toUpperCase();
  const tx = await stargate.getTx(hash);
  assert.is(tx?.height, height);
  const tradesInBlock = devnet.ledger.trades.filter((t) => t.height === height).length;
  const eventsInBlock = results.results.flatMap((r) => r.events).filter((e) => TRADE_EVENTS.has(e.type)).length;
  assert.is(eventsInBlock, tradesInBlock);
  stargate.disconnect();
  comet.disconnect();
  await devnet.close();
});

test.run();
