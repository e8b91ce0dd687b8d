// The chain's own types from a node's reflection service: the devnet answers
// cosmos.reflection.v1 FileDescriptors with its bridge module's file from SDK 0.47 on
// (CometBFT 0.37 and 0.38), and refuses the path as SDK 0.45 (0.34); a node that stops
// answering is asked again until it answers.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { anyJson, schemaJson } from '../../src/api/chain/proto-json.ts';
import { MsgBurnForBridgeOut } from '../../src/chain/bridge-msg.ts';
import { createChainClient } from '../../src/chain/client.ts';
import {
  chainTypes,
  loadChainTypes,
  NO_CHAIN_TYPES,
  startChainTypes,
  useChainTypes,
} from '../../src/chain/reflection.ts';
import { silentLogger } from '../../src/internal/logger.ts';
import { startDevnet } from '../helpers/devnet.ts';

const test = suite('chain API: the chain’s own message types from the devnet’s reflection service');

const BRIDGE = MsgBurnForBridgeOut.typeUrl;

const queryOf = (rpcUrl: string) => {
  const chain = createChainClient(rpcUrl);
  return {
    query: async (path: string, data: Uint8Array) => (await chain.queries.queryAbci(path, data)).value,
    close: () => chain.disconnect(),
  };
};

test('an SDK 0.50 node (CometBFT 0.38): the bridge message prints as the built-in codec prints it', async () => {
  const devnet = await startDevnet({ cometVersion: '0.38' });
  const { query, close } = queryOf(devnet.rpcUrl);
  try {
    const types = await loadChainTypes(query);
    assert.ok(types.typeUrls().includes(BRIDGE), types.typeUrls().join(', '));
    const value = MsgBurnForBridgeOut.encode({
      sender: devnet.accounts[1]!.address,
      amount: { denom: 'unative', amount: '7' },
      destinationChain: 'ethereum',
      destinationAddress: '0x00000000000000000000000000000000000000aa',
    }).finish();
    const schema = types.schema(BRIDGE)!;
    assert.equal({ '@type': BRIDGE, ...schemaJson(schema, schema.decode(value)) }, anyJson({ typeUrl: BRIDGE, value }));
  } finally {
    close();
    await devnet.close();
  }
});

test('an SDK 0.45 node (Tendermint 0.34) has no reflection service: no types, no failure', async () => {
  const devnet = await startDevnet({ cometVersion: '0.34' });
  const { query, close } = queryOf(devnet.rpcUrl);
  try {
    assert.equal((await loadChainTypes(query)).typeUrls(), []);
  } finally {
    close();
    await devnet.close();
  }
});

test('a node that cannot be reached at start is asked again, and its types are used once it answers', async () => {
  const devnet = await startDevnet({ cometVersion: '0.37' });
  const { query, close } = queryOf(devnet.rpcUrl);
  await devnet.pause();
  const stop = startChainTypes(query, silentLogger, 50);
  try {
    await new Promise((r) => setTimeout(r, 300));
    assert.not.ok(chainTypes().schema(BRIDGE), 'none while the node does not answer');
    await devnet.resume();
    const deadline = Date.now() + 10_000;
    while (!chainTypes().schema(BRIDGE) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.ok(chainTypes().schema(BRIDGE), 'loaded once the node answers');
  } finally {
    stop();
    useChainTypes(NO_CHAIN_TYPES);
    close();
    await devnet.close();
  }
});

test.run();
