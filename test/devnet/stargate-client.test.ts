// The devnet through cosmjs's StargateClient: what a wallet or explorer reads.
import { toBech32 } from '@cosmjs/encoding';
import { StargateClient } from '@cosmjs/stargate';
import { isComet38Client, isTendermint37Client } from '@cosmjs/tendermint-rpc';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Devnet } from '../../src/devnet/index.ts';
import { cometClient, messageIndexesOf, signingClient, startDevnet, textEvents } from '../helpers/devnet.ts';
import { waitFor } from '../helpers/wait.ts';

let devnet: Devnet;
let client: StargateClient;
let sentHash = '';

test.before(async () => {
  devnet = await startDevnet({ blockMs: 100 });
  client = await StargateClient.connect(devnet.rpcUrl);
  const sender = await signingClient(devnet, 1);
  const result = await sender.client.sendTokens(
    sender.address,
    devnet.accounts[2]!.address,
    [{ denom: 'unative', amount: '12345' }],
    'auto',
    'hello',
  );
  sentHash = result.transactionHash;
  sender.client.disconnect();
});
test.after(async () => {
  client.disconnect();
  await devnet.close();
});

test("stargate: the chain id is native-devnet-1 and cosmjs picks the client of the node's version", async () => {
  assert.is(await client.getChainId(), 'native-devnet-1');
  const comet = await cometClient(devnet);
  const status = await comet.status();
  assert.ok(status.nodeInfo.version.startsWith(`${devnet.cometVersion}.`), status.nodeInfo.version);
  assert.is(status.syncInfo.catchingUp, false);
  // cosmjs has no 0.34 client of its own: it reads 0.34 with its 0.37 one.
  assert.ok(devnet.cometVersion === '0.38' ? isComet38Client(comet) : isTendermint37Client(comet));
  comet.disconnect();
});

/** An RFC 3339 time with up to nine fraction digits, as nanoseconds since the epoch (exact). */
function nanosOf(rfc3339: string): bigint {
  const m = /^(.+T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(rfc3339);
  assert.ok(m, `an RFC 3339 UTC time: ${rfc3339}`);
  return BigInt(Date.parse(`${m[1]}Z`)) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'));
}

test('stargate: the height rises with wall-clock block times that strictly increase', async () => {
  const first = await client.getHeight();
  let second = first;
  assert.ok(
    await waitFor(
      async () => {
        second = await client.getHeight();
        return second >= first + 3;
      },
      10_000,
      20,
    ),
    `the height rose from ${first} by 3 within 10 s (at ${second})`,
  );
  // every block since genesis, to the nanosecond (blocks 100 ms apart would hide equal times in milliseconds)
  const times: bigint[] = [];
  for (let h = 1; h <= second; h++) times.push(nanosOf((await client.getBlock(h)).header.time));
  for (let h = 2; h <= second; h++) {
    const [before, after] = [times[h - 2]!, times[h - 1]!];
    assert.ok(after > before, `block ${h} time ${after} ns is after block ${h - 1} time ${before} ns`);
  }
  const latest = Number(times.at(-1)! / 1_000_000n);
  assert.ok(Math.abs(Date.now() - latest) < 5_000, 'block time is wall-clock time');
});

test('stargate: getBlock returns a well-formed header linked to its parent', async () => {
  const height = await client.getHeight();
  const block = await client.getBlock(height);
  const parent = await client.getBlock(height - 1);
  assert.is(block.header.height, height);
  assert.is(block.header.chainId, 'native-devnet-1');
  assert.match(block.id, /^[0-9A-F]{64}$/);
  const comet = await cometClient(devnet);
  const raw = await comet.block(height);
  assert.is(Buffer.from(raw.block.header.lastBlockId!.hash).toString('hex').toUpperCase(), parent.id);
  assert.is(raw.block.header.proposerAddress.length, 20);
  assert.is(raw.block.header.appHash.length, 32);
  comet.disconnect();
});

test('stargate: block times carry nanoseconds as CometBFT prints them', async () => {
  const response = await fetch(`${devnet.rpcUrl}/block`);
  const time = ((await response.json()) as { result: { block: { header: { time: string } } } }).result.block.header
    .time;
  assert.match(time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/);
});

test('stargate: getAllBalances and getBalance show the genesis funds minus what was spent', async () => {
  const recipient = devnet.accounts[2]!.address;
  assert.equal(await client.getAllBalances(recipient), [{ denom: 'unative', amount: '1000000012345' }]);
  assert.equal(await client.getBalance(recipient, 'unative'), { denom: 'unative', amount: '1000000012345' });
  assert.equal(await client.getBalance(recipient, 'uother'), { denom: 'uother', amount: '0' });
  const account = await client.getAccount(devnet.accounts[1]!.address);
  assert.is(account?.sequence, 1);
  assert.ok(account?.pubkey, 'the pubkey is set by the first signed tx');
  assert.is(
    await client.getAccount(toBech32('native', new Uint8Array(20).fill(7))),
    null,
    'an unknown account is null',
  );
});

test('stargate: getTx finds a sent transaction with its memo, gas and events', async () => {
  const tx = await client.getTx(sentHash);
  assert.ok(tx);
  assert.is(tx!.code, 0);
  assert.ok(tx!.gasUsed > 0n && tx!.gasUsed <= tx!.gasWanted);
  const events = textEvents(devnet, tx!.events);
  const at = events.findIndex(
    (e) => e.type === 'transfer' && e.attributes.some((a) => a.key === 'amount' && a.value === '12345unative'),
  );
  assert.ok(at >= 0, 'transfer event of the MsgSend');
  assert.is(messageIndexesOf(devnet, events)[at], 0, 'emitted by message 0');
  assert.is(
    events[at]!.attributes.some((a) => a.key === 'msg_index'),
    devnet.cometVersion === '0.38',
    'msg_index is written by SDK 0.50 only',
  );
  assert.is(await client.getTx('00'.repeat(32)), null);
});

test('stargate: searchTx answers the event query forms of docs/chain-api.md (search)', async () => {
  const tx = (await client.getTx(sentHash))!;
  const bySender = await client.searchTx(`message.sender='${devnet.accounts[1]!.address}'`);
  assert.ok(bySender.some((t) => t.hash === sentHash));
  const byRecipient = await client.searchTx(`transfer.recipient='${devnet.accounts[2]!.address}'`);
  assert.ok(byRecipient.some((t) => t.hash === sentHash));
  const byHeight = await client.searchTx([{ key: 'tx.height', value: tx.height }]);
  assert.ok(byHeight.some((t) => t.hash === sentHash));
  const byAction = await client.searchTx(`message.action='/cosmos.bank.v1beta1.MsgSend'`);
  assert.ok(byAction.some((t) => t.hash === sentHash));
  const combined = await client.searchTx(
    `message.action='/cosmos.bank.v1beta1.MsgSend' AND message.sender='${devnet.accounts[3]!.address}'`,
  );
  assert.is(combined.length, 0);
});

test.run();
