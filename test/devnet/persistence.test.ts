// A devnet with a data directory survives a restart, including kill -9: the same chain
// continues from its last recorded block, and everything served before is served again.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { StargateClient } from '@cosmjs/stargate';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createDevnet } from '../../src/devnet/index.ts';
import { cometVersionFromEnv, rpc, rpcResult, signingClient } from '../helpers/devnet.ts';
import { waitFor, within } from '../helpers/wait.ts';

/** The devnets here start with createDevnet (a data directory, their own ports) in the run's CometBFT version. */
const cometVersion = cometVersionFromEnv();
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'devnet-'));
  dirs.push(dir);
  return dir;
};
test.after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

test('persistence: a restarted devnet continues the same chain with its txs, balances and ledger', async () => {
  const dataDir = tempDir();
  const first = await createDevnet({ port: 0, blockMs: 50, tradesPerBlock: 8, dataDir, cometVersion });
  const { client, address } = await signingClient(first, 1);
  const sent = await client.sendTokens(
    address,
    first.accounts[2]!.address,
    [{ denom: 'unative', amount: '4242' }],
    'auto',
  );
  client.disconnect();
  await first.close();
  const height = first.height();
  const block1 = (await rpc(first, 'block', { height: '1' }).catch(() => null)) ?? null;
  assert.is(block1, null, 'the closed devnet no longer answers');
  const trades = first.ledger.trades.length;
  assert.ok(trades > 0);

  const second = await createDevnet({ port: 0, blockMs: 0, dataDir, cometVersion });
  assert.is(second.height(), height);
  assert.is(second.ledger.trades.length, trades, 'the ledger is rebuilt by replay');
  assert.equal(second.ledger.trades.at(-1), first.ledger.trades.at(-1));
  const stargate = await StargateClient.connect(second.rpcUrl);
  const tx = await stargate.getTx(sent.transactionHash);
  assert.is(tx?.height, sent.height);
  assert.is((await stargate.getBalance(first.accounts[2]!.address, 'unative')).amount, '1000000004242');
  const next = await second.produceBlock();
  assert.is(next, height + 1);
  const previous = await stargate.getBlock(height);
  const comet = await rpcResult(second, 'block', { height: String(next) });
  assert.is(comet.block.header.last_block_id.hash, previous.id, 'the new block links to the restored chain');
  const again = await signingClient(second, 1);
  const ticker = setInterval(() => void second.produceBlock(), 50);
  const result = await again.client.sendTokens(address, address, [{ denom: 'unative', amount: '1' }], {
    amount: [{ denom: 'unative', amount: '2000' }],
    gas: '200000',
  });
  clearInterval(ticker);
  assert.is(result.code, 0, 'the account sequence survived');
  again.client.disconnect();
  stargate.disconnect();
  await second.close();
});

test('persistence: after kill -9 the chain resumes at or beyond every height it had served', async () => {
  const dataDir = tempDir();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures', 'run-devnet.ts'), dataDir],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await within(
    new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
      child.once('exit', (code) => reject(new Error(`devnet exited with ${code}`)));
    }),
    60_000,
    'the devnet child to print its URL',
  );
  const client = await StargateClient.connect(url);
  let served = 0;
  assert.ok(
    await waitFor(
      async () => {
        served = await client.getHeight();
        return served >= 15;
      },
      30_000,
      50,
    ),
    `the devnet child served 15 blocks within 30 s (at ${served})`,
  );
  const genesisBlock = await client.getBlock(1);
  const servedBlock = await client.getBlock(served);
  child.kill('SIGKILL');
  await new Promise((resolve) => child.once('exit', resolve));
  client.disconnect();

  const restored = await createDevnet({ port: 0, blockMs: 0, dataDir, cometVersion });
  const resumedAt = restored.height();
  assert.ok(resumedAt >= served, `restored height ${resumedAt} must include served height ${served}`);
  const again = await StargateClient.connect(restored.rpcUrl);
  assert.is((await again.getBlock(1)).id, genesisBlock.id, 'the same chain');
  assert.is((await again.getBlock(served)).id, servedBlock.id);
  const tip = await again.getBlock(resumedAt);
  const next = await restored.produceBlock();
  assert.is(next, resumedAt + 1, 'the next block follows the restored tip');
  const comet = await rpcResult(restored, 'block', { height: String(next) });
  assert.is(comet.block.header.last_block_id.hash, tip.id, 'and links to it');
  again.disconnect();
  await restored.close();
});

test('persistence: a devnet started fresh is another chain (different block 1 hash)', async () => {
  const a = await createDevnet({ port: 0, blockMs: 0, cometVersion });
  const b = await createDevnet({ port: 0, blockMs: 0, cometVersion });
  const hashA = (await rpcResult(a, 'block', { height: '1' })).block_id.hash;
  const hashB = (await rpcResult(b, 'block', { height: '1' })).block_id.hash;
  assert.is.not(hashA, hashB);
  assert.is((await rpcResult(a, 'genesis')).genesis.chain_id, (await rpcResult(b, 'genesis')).genesis.chain_id);
  await a.close();
  await b.close();
});

test.run();
