// The devnet through cosmjs's SigningStargateClient: transactions succeed, and each kind of
// bad transaction fails with the Cosmos SDK's code and raw_log.
import { toBase64 } from '@cosmjs/encoding';
import { makeSignDoc } from '@cosmjs/proto-signing';
import { BroadcastTxError, StargateClient } from '@cosmjs/stargate';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Devnet } from '../../src/devnet/index.ts';
import { queryClient, signingClient, startDevnet, wallet } from '../helpers/devnet.ts';

let devnet: Devnet;
const coins = (amount: string | bigint | number) => [{ denom: 'unative', amount: String(amount) }];
const fee = (gas: number, amount = Math.ceil(gas * 0.01)) => ({ amount: coins(amount), gas: String(gas) });

async function broadcastError(promise: Promise<unknown>): Promise<BroadcastTxError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, BroadcastTxError);
    return error as BroadcastTxError;
  }
  throw new Error('expected the broadcast to be rejected');
}

test.before(async () => {
  devnet = await startDevnet({ blockMs: 100 });
});
test.after(() => devnet.close());

test('signing: sendTokens succeeds with code 0 and moves the amount', async () => {
  const { client, address } = await signingClient(devnet, 3);
  const recipient = devnet.accounts[4]!.address;
  const before = BigInt((await client.getBalance(recipient, 'unative')).amount);
  const result = await client.sendTokens(address, recipient, coins(777), 'auto');
  assert.is(result.code, 0);
  assert.is(BigInt((await client.getBalance(recipient, 'unative')).amount), before + 777n);
  client.disconnect();
});

test('signing: delegateTokens succeeds with code 0 and the delegation grows', async () => {
  const { client, address } = await signingClient(devnet, 3);
  const query = await StargateClient.connect(devnet.rpcUrl);
  const { query: modules, comet } = await queryClient(devnet);
  const validators = await modules.staking.validators('BOND_STATUS_BONDED');
  comet.disconnect();
  const validator = validators.validators[0]!.operatorAddress;
  const before = (await query.getDelegation(address, validator))?.amount ?? '0';
  const result = await client.delegateTokens(address, validator, { denom: 'unative', amount: '5000000' }, 'auto');
  assert.is(result.code, 0);
  assert.ok(result.events.some((e) => e.type === 'delegate'));
  const after = await query.getDelegation(address, validator);
  assert.is(BigInt(after!.amount), BigInt(before) + 5_000_000n);
  client.disconnect();
  query.disconnect();
});

test('signing: simulate reports exactly the gas the execution uses', async () => {
  const { client, address } = await signingClient(devnet, 5);
  const msg = {
    typeUrl: '/cosmos.bank.v1beta1.MsgSend',
    value: { fromAddress: address, toAddress: devnet.accounts[6]!.address, amount: coins(1) },
  };
  const simulated = await client.simulate(address, [msg], '');
  const result = await client.signAndBroadcast(address, [msg], fee(simulated + 10_000));
  assert.is(result.code, 0);
  assert.is(Number(result.gasUsed), simulated);
  client.disconnect();
});

test('signing: a wrong sequence is rejected at broadcast with code 32 and the SDK message', async () => {
  const { client, address } = await signingClient(devnet, 5);
  const account = (await client.getAccount(address))!;
  const raw = await client.sign(
    address,
    [
      {
        typeUrl: '/cosmos.bank.v1beta1.MsgSend',
        value: { fromAddress: address, toAddress: address, amount: coins(1) },
      },
    ],
    fee(100_000),
    '',
    {
      accountNumber: account.accountNumber,
      sequence: account.sequence + 5,
      chainId: devnet.chainId,
    },
  );
  const error = await broadcastError(client.broadcastTx(TxRaw.encode(raw).finish(), 1_000, 50));
  assert.is(error.code, 32);
  assert.is(
    error.log,
    `account sequence mismatch, expected ${account.sequence}, got ${account.sequence + 5}: incorrect account sequence`,
  );
  client.disconnect();
});

test('signing: sending more than the balance fails in the block with code 5', async () => {
  const { client, address } = await signingClient(devnet, 6);
  const balance = BigInt((await client.getBalance(address, 'unative')).amount);
  const result = await client.sendTokens(address, devnet.accounts[7]!.address, coins(balance), fee(200_000));
  assert.is(result.code, 5);
  assert.match(result.rawLog ?? '', /insufficient funds/);
  const after = BigInt((await client.getBalance(address, 'unative')).amount);
  assert.is(after, balance - 2_000n, 'only the fee was charged');
  client.disconnect();
});

test('signing: too little gas fails with code 11 (at CheckTx, or in the block past the ante handler)', async () => {
  const { client, address } = await signingClient(devnet, 7);
  const send = {
    typeUrl: '/cosmos.bank.v1beta1.MsgSend',
    value: { fromAddress: address, toAddress: address, amount: coins(1) },
  };
  const early = await broadcastError(client.signAndBroadcast(address, [send], fee(1_000)));
  assert.is(early.code, 11);
  assert.match(early.log ?? '', /out of gas/);
  const late = await client.signAndBroadcast(address, [send], fee(25_000));
  assert.is(late.code, 11);
  assert.match(late.rawLog ?? '', /out of gas in location: bank send; gasWanted: 25000/);
  client.disconnect();
});

test('signing: a signature by another key is rejected with code 4', async () => {
  const { client, address } = await signingClient(devnet, 8);
  const account = (await client.getAccount(address))!;
  const raw = await client.sign(
    address,
    [
      {
        typeUrl: '/cosmos.bank.v1beta1.MsgSend',
        value: { fromAddress: address, toAddress: address, amount: coins(1) },
      },
    ],
    fee(100_000),
    '',
  );
  const other = await wallet(9);
  const [{ address: otherAddress }] = await other.getAccounts();
  const forged = await other.signDirect(
    otherAddress!,
    makeSignDoc(raw.bodyBytes, raw.authInfoBytes, devnet.chainId, account.accountNumber),
  );
  raw.signatures = [Buffer.from(forged.signature.signature, 'base64')];
  const error = await broadcastError(client.broadcastTx(TxRaw.encode(raw).finish(), 1_000, 50));
  assert.is(error.code, 4);
  assert.match(
    error.log ?? '',
    /^signature verification failed; please verify account number \(\d+\), sequence \(\d+\) and chain-id \(native-devnet-1\): unauthorized$/,
  );
  client.disconnect();
});

test('signing: a fee below the minimum gas price is rejected with code 13', async () => {
  const { client, address } = await signingClient(devnet, 8);
  const send = {
    typeUrl: '/cosmos.bank.v1beta1.MsgSend',
    value: { fromAddress: address, toAddress: address, amount: coins(1) },
  };
  const error = await broadcastError(client.signAndBroadcast(address, [send], fee(200_000, 10)));
  assert.is(error.code, 13);
  assert.is(error.log, 'insufficient fees; got: 10unative required: 2000unative: insufficient fee');
  client.disconnect();
});

test('signing: a bridge-out burn takes the amount out of the total supply', async () => {
  const { client, address } = await signingClient(devnet, 9);
  const { query, comet } = await queryClient(devnet);
  const supplyBefore = BigInt((await query.bank.supplyOf('unative')).amount);
  const msg = {
    typeUrl: '/native.bridge.v1.MsgBurnForBridgeOut',
    value: {
      sender: address,
      amount: { denom: 'unative', amount: '2500000' },
      destinationChain: 'ethereum',
      destinationAddress: '0x00000000000000000000000000000000000000aa',
    },
  };
  const result = await client.signAndBroadcast(address, [msg], 'auto');
  assert.is(result.code, 0);
  assert.ok(result.events.some((e) => e.type === 'burn'));
  const supplyAfter = BigInt((await query.bank.supplyOf('unative')).amount);
  assert.is(supplyAfter, supplyBefore - 2_500_000n, 'gas fees move to the fee collector; only the burn changes supply');
  client.disconnect();
  comet.disconnect();
});

test('signing: the same signed bytes are not accepted twice', async () => {
  const { client, address } = await signingClient(devnet, 4);
  const raw = TxRaw.encode(
    await client.sign(
      address,
      [
        {
          typeUrl: '/cosmos.bank.v1beta1.MsgSend',
          value: { fromAddress: address, toAddress: address, amount: coins(1) },
        },
      ],
      fee(100_000),
      'once',
    ),
  ).finish();
  const hash = await client.broadcastTxSync(raw);
  const again = await fetch(devnet.rpcUrl, {
    method: 'POST',
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'broadcast_tx_sync', params: { tx: toBase64(raw) } }),
  });
  const body = (await again.json()) as { error?: { data: string } };
  assert.is(body.error?.data, 'tx already exists in cache');
  assert.match(hash, /^[0-9A-F]{64}$/);
  client.disconnect();
});

test.run();
