// Contract calls a block makes outside any tx (devnet.scheduleBlockCall), as a cron module or
// governance makes them, in every CometBFT version: the events are the block's own
// (begin_block_events / end_block_events before 0.38, finalize_block_events in 0.38, with the
// SDK's `mode` attribute from 0.47), the state and balances move as a tx would move them, the
// ledger records the trades at the block's position, and a restarted devnet replays them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CosmWasmClient } from '@cosmjs/cosmwasm-stargate';
import { isComet38Client, isTendermint37Client } from '@cosmjs/tendermint-rpc';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import {
  BLOCK_CALLS_TX_INDEX,
  COMET_VERSIONS,
  type CometVersion,
  createDevnet,
  type Devnet,
} from '../../src/devnet/index.ts';
import { cometClient, cometVersionFromEnv, rpcResult, startDevnet } from '../helpers/devnet.ts';
import { within } from '../helpers/wait.ts';

interface WireEvent {
  type: string;
  attributes: { key: string; value: string; index: boolean }[];
}
interface TextEvent {
  type: string;
  attributes: { key: string; value: string }[];
}

const NATIVE = 1_000_000n;
const native = (amount: bigint) => [{ denom: 'unative', amount: amount.toString() }];
const fromBase64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
const text = (version: CometVersion, events: readonly WireEvent[] | null): TextEvent[] =>
  (events ?? []).map((e) => ({
    type: e.type,
    attributes: e.attributes.map((a) =>
      version === '0.34' ? { key: fromBase64(a.key), value: fromBase64(a.value) } : { key: a.key, value: a.value },
    ),
  }));
const raw = <T>(devnet: Devnet, method: string, params: unknown = {}) =>
  rpcResult(devnet, method, params) as Promise<unknown> as Promise<T>;
const values = (e: TextEvent) => Object.fromEntries(e.attributes.map((a) => [a.key, a.value]));

/** The block's own events in text, BeginBlock's then EndBlock's, as block_results reports them. */
async function blockEvents(devnet: Devnet, height: number) {
  const results = await raw<Record<string, WireEvent[] | null>>(devnet, 'block_results', { height: String(height) });
  if (devnet.cometVersion === '0.38') {
    assert.ok(!('begin_block_events' in results));
    const all = text('0.38', results.finalize_block_events!);
    const mode = (phase: string) => all.filter((e) => e.attributes.at(-1)?.value === phase);
    return { begin: mode('BeginBlock'), end: mode('EndBlock'), all };
  }
  assert.ok(!('finalize_block_events' in results));
  const begin = text(devnet.cometVersion, results.begin_block_events!);
  const end = text(devnet.cometVersion, results.end_block_events!);
  return { begin, end, all: [...begin, ...end] };
}

/** Launches a token through a block call (EndBlock, the default phase) and returns its address. */
async function launchByBlockCall(devnet: Devnet, creator: string) {
  const launched = devnet.scheduleBlockCall({
    sender: creator,
    contract: devnet.contracts.launchpad,
    msg: { create_token: { name: 'Cron Frog', symbol: 'CRON', image: '', description: 'launched by a block' } },
    funds: native(NATIVE),
  });
  const height = await devnet.produceBlock();
  const outcome = await within(launched, 5_000, 'the launch call to run');
  assert.is(outcome.height, height);
  assert.is(outcome.phase, 'end');
  assert.is(outcome.error, undefined);
  const launch = devnet.ledger.launches.at(-1)!;
  assert.is(launch.height, height);
  assert.is(launch.creator, creator);
  return launch.token;
}

const devnets = new Map<CometVersion, Devnet>();
test.before(async () => {
  for (const version of COMET_VERSIONS) devnets.set(version, await startDevnet({ blockMs: 0, cometVersion: version }));
});
test.after(async () => {
  for (const devnet of devnets.values()) await devnet.close();
});

test('block calls: a buy in BeginBlock and one in EndBlock are block events, move state and enter the ledger', async () => {
  for (const [version, devnet] of devnets) {
    const [, creator, late, early] = devnet.accounts.map((a) => a.address);
    const token = await launchByBlockCall(devnet, creator!);
    const query = await CosmWasmClient.connect(devnet.rpcUrl);
    const balance = async (address: string) => BigInt((await query.getBalance(address, 'unative')).amount);
    const reserves = async () =>
      BigInt(
        (await query.queryContractSmart(devnet.contracts.launchpad, { progress: { token_address: token } }))
          .native_reserves,
      );
    const [earlyBefore, lateBefore, reservesBefore] = [await balance(early!), await balance(late!), await reserves()];

    const buy = { buy: { token_address: token } };
    const calls = [
      devnet.scheduleBlockCall({
        sender: late!,
        contract: devnet.contracts.launchpad,
        msg: buy,
        funds: native(5n * NATIVE),
      }),
      devnet.scheduleBlockCall({
        sender: early!,
        contract: devnet.contracts.launchpad,
        msg: buy,
        funds: native(10n * NATIVE),
        phase: 'begin',
      }),
      devnet.scheduleBlockCall({
        sender: late!,
        contract: devnet.contracts.launchpad,
        msg: { buy: { token_address: devnet.accounts[9]!.address } },
        funds: native(7n * NATIVE),
        phase: 'end',
      }),
    ];
    const height = await devnet.produceBlock();
    const [endBuy, beginBuy, failed] = await within(Promise.all(calls), 5_000, 'the block calls to run');
    assert.equal([beginBuy!.phase, endBuy!.phase, failed!.phase], ['begin', 'end', 'end']);
    assert.is(beginBuy!.height, height);
    assert.is(failed!.events.length, 0);
    assert.match(failed!.error ?? '', /execute wasm contract failed/, 'a failing call reports why');

    // The block's own events, in the version's shape.
    const { begin, end, all } = await blockEvents(devnet, height);
    const beginBuys = begin.filter((e) => e.type === 'wasm-buy').map(values);
    const endBuys = end.filter((e) => e.type === 'wasm-buy').map(values);
    assert.equal(
      beginBuys.map((b) => b.buyer),
      [early],
    );
    assert.equal(
      endBuys.map((b) => b.buyer),
      [late],
      'the failed call left no events',
    );
    assert.equal(
      begin.map((e) => e.type),
      beginBuy!.events.map((e) => e.type),
    );
    const modes = new Set(all.flatMap((e) => e.attributes.filter((a) => a.key === 'mode').map((a) => a.value)));
    assert.equal(
      [...modes].sort(),
      version === '0.34' ? [] : ['BeginBlock', 'EndBlock'],
      `${version}: SDK 0.47+ marks each block phase's events with mode`,
    );
    if (version !== '0.34') {
      for (const e of begin) assert.equal(e.attributes.at(-1), { key: 'mode', value: 'BeginBlock' });
      for (const e of end) assert.equal(e.attributes.at(-1), { key: 'mode', value: 'EndBlock' });
    }
    assert.ok(
      all.every((e) => e.attributes.every((a) => a.key !== 'msg_index')),
      'no msg_index outside a message',
    );
    assert.ok(!all.some((e) => e.type === 'message'), 'no message event outside a tx');

    // State and balances moved as a tx would move them (no gas fee outside a tx).
    assert.is(await balance(early!), earlyBefore - 10n * NATIVE);
    assert.is(await balance(late!), lateBefore - 5n * NATIVE, 'the failed call was reverted');
    const fees = [...beginBuys, ...endBuys].reduce((sum, b) => sum + BigInt(b.fee!), 0n);
    assert.is(await reserves(), reservesBefore + 15n * NATIVE - fees);
    const held = await query.queryContractSmart(token, { balance: { address: early } });
    assert.is(held.balance, beginBuys[0]!.tokens_out);

    // The ledger: the block's hash as tx hash, the index after every tx, each event's place among the block's own.
    const blockHash = (await raw<{ block_id: { hash: string } }>(devnet, 'block', { height: String(height) })).block_id
      .hash;
    const trades = devnet.ledger.trades.filter((t) => t.height === height);
    assert.equal(
      trades.map((t) => [t.trader, t.action, t.txHash, t.txIndex, t.msgIndex]),
      [
        [early, 'buy', blockHash, BLOCK_CALLS_TX_INDEX, 0],
        [late, 'buy', blockHash, BLOCK_CALLS_TX_INDEX, 0],
      ],
    );
    for (const trade of trades) {
      const event = values(all[trade.eventIndex]!);
      assert.is(all[trade.eventIndex]!.type, 'wasm-buy');
      assert.is(event.buyer, trade.trader, 'eventIndex points at the trade among BeginBlock then EndBlock events');
      assert.is(BigInt(event.native_reserves!), trade.nativeReservesAfter);
    }
    assert.is(trades.at(-1)!.nativeReservesAfter, await reserves());
    assert.is(
      devnet.ledger.launches.at(-1)!.txHash,
      (
        await raw<{ block_id: { hash: string } }>(devnet, 'block', {
          height: String(height - 1),
        })
      ).block_id.hash,
    );

    // cosmjs reads them where its client for the version looks.
    const comet = await cometClient(devnet);
    if (isComet38Client(comet)) {
      assert.is((await comet.blockResults(height)).finalizeBlockEvents.length, all.length);
    } else if (isTendermint37Client(comet)) {
      const { beginBlockEvents, endBlockEvents } = await comet.blockResults(height);
      assert.equal([beginBlockEvents.length, endBlockEvents.length], [begin.length, end.length]);
    } else {
      assert.unreachable(`cosmjs picked an unexpected client for ${version}`);
    }
    comet.disconnect();
    query.disconnect();
  }
});

test('block calls: an invalid call is refused when scheduled', async () => {
  const devnet = devnets.get('0.38')!;
  try {
    await devnet.scheduleBlockCall({ sender: 'native1nope', contract: devnet.contracts.amm, msg: {} });
    assert.unreachable('an invalid sender must be refused');
  } catch (error) {
    assert.match((error as Error).message, /invalid address native1nope/);
  }
  try {
    await devnet.scheduleBlockCall({
      sender: devnet.accounts[1]!.address,
      contract: devnet.contracts.amm,
      msg: {},
      funds: [{ denom: 'unative', amount: '-1' }],
    });
    assert.unreachable('negative funds must be refused');
  } catch (error) {
    assert.match((error as Error).message, /invalid coins/);
  }
});

test('websocket: NewBlock carries the block events in each version payload', async () => {
  for (const [version, devnet] of devnets) {
    const socket = new WebSocket(`${devnet.rpcUrl.replace(/^http/, 'ws')}/websocket`);
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const payloads: Record<string, unknown>[] = [];
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { result?: { data?: { value: Record<string, unknown> } } };
      if (message.result?.data) payloads.push(message.result.data.value);
    });
    const subscribed = new Promise((resolve) => socket.once('message', resolve));
    socket.send(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscribe', params: { query: "tm.event='NewBlock'" } }),
    );
    await within(subscribed, 5_000, 'the subscription');
    const token = devnet.ledger.launches.at(-1)!.token;
    const call = devnet.scheduleBlockCall({
      sender: devnet.accounts[4]!.address,
      contract: devnet.contracts.launchpad,
      msg: { buy: { token_address: token } },
      funds: native(NATIVE),
      phase: 'begin',
    });
    const height = await devnet.produceBlock();
    await call;
    const value = await within(
      (async () => {
        for (;;) {
          const found = payloads.find(
            (p) => (p.block as { header: { height: string } }).header.height === String(height),
          );
          if (found) return found;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })(),
      5_000,
      `the NewBlock event of ${version}`,
    );
    socket.close();
    if (version === '0.38') {
      assert.equal(Object.keys(value), ['block_id', 'block', 'result_finalize_block']);
      const events = text(version, (value.result_finalize_block as { events: WireEvent[] }).events);
      assert.ok(events.some((e) => e.type === 'wasm-buy'));
    } else {
      assert.equal(Object.keys(value), ['block', 'result_begin_block', 'result_end_block']);
      const events = text(version, (value.result_begin_block as { events: WireEvent[] }).events);
      assert.ok(events.some((e) => e.type === 'wasm-buy' && values(e).buyer === devnet.accounts[4]!.address));
      assert.ok(!('events' in (value.result_end_block as object)), 'an empty EndBlock leaves its events out');
    }
  }
});

test('persistence: a restarted devnet replays its block calls (state, ledger and block results)', async () => {
  const version = cometVersionFromEnv() ?? '0.38';
  const dataDir = mkdtempSync(path.join(tmpdir(), 'devnet-calls-'));
  try {
    const first = await createDevnet({ port: 0, blockMs: 0, dataDir, cometVersion: version });
    const [, creator, buyer] = first.accounts.map((a) => a.address);
    const token = await launchByBlockCall(first, creator!);
    const bought = first.scheduleBlockCall({
      sender: buyer!,
      contract: first.contracts.launchpad,
      msg: { buy: { token_address: token } },
      funds: native(3n * NATIVE),
      phase: 'begin',
    });
    const height = await first.produceBlock();
    await bought;
    await first.produceBlock();
    const results = JSON.stringify(await raw(first, 'block_results', { height: String(height) }));
    const ledger = { trades: [...first.ledger.trades], launches: [...first.ledger.launches] };
    await first.close();

    const second = await createDevnet({ port: 0, blockMs: 0, dataDir });
    assert.is(second.cometVersion, version, 'the data directory keeps its version');
    assert.equal(second.ledger.trades, ledger.trades, 'the replay records the block calls as before');
    assert.equal(second.ledger.launches, ledger.launches);
    assert.is(JSON.stringify(await raw(second, 'block_results', { height: String(height) })), results);
    const query = await CosmWasmClient.connect(second.rpcUrl);
    const held = await query.queryContractSmart(token, { balance: { address: buyer } });
    assert.is(held.balance, ledger.trades.at(-1)!.outputAmount.toString(), 'the replayed buy holds its tokens');
    query.disconnect();
    const again = second.scheduleBlockCall({
      sender: buyer!,
      contract: second.contracts.launchpad,
      msg: { buy: { token_address: token } },
      funds: native(NATIVE),
    });
    await second.produceBlock();
    assert.is((await again).error, undefined, 'calls run on the restored state');
    await second.close();

    const other = COMET_VERSIONS.find((v) => v !== version)!;
    try {
      await createDevnet({ port: 0, blockMs: 0, dataDir, cometVersion: other });
      assert.unreachable('a data directory recorded in another version must be refused');
    } catch (error) {
      assert.match((error as Error).message, new RegExp(`recorded as CometBFT ${version.replace('.', '\\.')}, not`));
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
