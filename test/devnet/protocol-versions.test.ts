// The devnet answering as CometBFT 0.34 (SDK 0.45), 0.37 (SDK 0.47) and 0.38 (SDK 0.50),
// whatever DEVNET_COMET_VERSION says: each version's status, block_results, tx and tx_search
// shapes over real HTTP; base64 attributes in 0.34; no msg_index before SDK 0.50, where the
// log's per-message ABCIMessageLogs match the tx's events between message boundaries; the
// websocket's Tx payloads; and the reflection service from SDK 0.47 on.
import { fromHex, toBase64, toUtf8 } from '@cosmjs/encoding';
import { FileDescriptorsResponse } from 'cosmjs-types/cosmos/reflection/v1/reflection';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { FieldDescriptorProto_Type } from 'cosmjs-types/google/protobuf/descriptor';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { COMET_VERSIONS, type CometVersion, type Devnet } from '../../src/devnet/index.ts';
import { messageIndexesOf, rpcResult, signingClient, startDevnet } from '../helpers/devnet.ts';
import { within } from '../helpers/wait.ts';

interface WireAttribute {
  key: string;
  value: string;
  index: boolean;
}
interface WireEvent {
  type: string;
  attributes: WireAttribute[];
}
interface WireTxResult {
  code: number;
  data: string | null;
  log: string;
  info: string;
  gas_wanted: string;
  gas_used: string;
  events: WireEvent[];
  codespace: string;
}
interface TextEvent {
  type: string;
  attributes: { key: string; value: string }[];
}
interface MessageLog {
  msg_index?: number;
  log?: string;
  events: { type: string; attributes: { key: string; value?: string }[] }[];
}

const devnets = new Map<CometVersion, Devnet>();
/** Per version: the hash and height of a tx holding a MsgSend and a launch (MsgExecuteContract). */
const sent = new Map<CometVersion, { hash: string; height: number; token: string }>();

const fromBase64 = (s: string) => Buffer.from(s, 'base64').toString('utf8');
const toBase64Text = (s: string) => Buffer.from(s, 'utf8').toString('base64');
/** Wire events to text: base64 decoded in 0.34, as sent otherwise. */
const text = (version: CometVersion, events: readonly WireEvent[]): TextEvent[] =>
  events.map((e) => ({
    type: e.type,
    attributes: e.attributes.map((a) =>
      version === '0.34' ? { key: fromBase64(a.key), value: fromBase64(a.value) } : { key: a.key, value: a.value },
    ),
  }));
const raw = <T>(devnet: Devnet, method: string, params: unknown = {}) =>
  rpcResult(devnet, method, params) as Promise<unknown> as Promise<T>;

test.before(async () => {
  for (const version of COMET_VERSIONS) {
    const devnet = await startDevnet({ blockMs: 40, cometVersion: version });
    devnets.set(version, devnet);
    const { client, address } = await signingClient(devnet, 4);
    const result = await client.signAndBroadcast(
      address,
      [
        {
          typeUrl: '/cosmos.bank.v1beta1.MsgSend',
          value: {
            fromAddress: address,
            toAddress: devnet.accounts[5]!.address,
            amount: [{ denom: 'unative', amount: '4321' }],
          },
        },
        {
          typeUrl: '/cosmwasm.wasm.v1.MsgExecuteContract',
          value: {
            sender: address,
            contract: devnet.contracts.launchpad,
            msg: toUtf8(
              JSON.stringify({
                create_token: { name: 'Version <&> Frog', symbol: 'VFROG', image: '', description: 'a & b' },
              }),
            ),
            funds: [{ denom: 'unative', amount: '1000000' }],
          },
        },
      ],
      'auto',
    );
    assert.is(result.code, 0, `the tx succeeded on ${version}`);
    client.disconnect();
    const launch = devnet.ledger.launches.at(-1)!;
    assert.is(launch.txHash, result.transactionHash);
    sent.set(version, { hash: result.transactionHash, height: result.height, token: launch.token });
  }
});
test.after(async () => {
  for (const devnet of devnets.values()) await devnet.close();
});

const EXPECTED_VERSION = { '0.34': /^0\.34\.\d+$/, '0.37': /^0\.37\.\d+$/, '0.38': /^0\.38\.17$/ };

test('status: node_info.version and protocol_version of each CometBFT version', async () => {
  for (const [version, devnet] of devnets) {
    const status = await raw<{ node_info: { version: string; protocol_version: object } }>(devnet, 'status');
    assert.match(status.node_info.version, EXPECTED_VERSION[version]);
    assert.equal(status.node_info.protocol_version, { p2p: '8', block: '11', app: '0' });
    assert.is(devnet.cometVersion, version);
  }
});

test('block_results: begin/end block events before 0.38, finalize_block_events and app_hash in 0.38', async () => {
  for (const [version, devnet] of devnets) {
    const { height } = sent.get(version)!;
    const results = await raw<Record<string, unknown>>(devnet, 'block_results', { height: String(height) });
    const keys = Object.keys(results);
    if (version === '0.38') {
      assert.equal(keys, [
        'height',
        'txs_results',
        'finalize_block_events',
        'validator_updates',
        'consensus_param_updates',
        'app_hash',
      ]);
    } else {
      assert.equal(keys, [
        'height',
        'txs_results',
        'begin_block_events',
        'end_block_events',
        'validator_updates',
        'consensus_param_updates',
      ]);
      assert.is(results.begin_block_events, null, 'no block events: null, as CometBFT writes a nil slice');
      assert.equal(Object.keys(results.consensus_param_updates as object), [
        'block',
        'evidence',
        'validator',
        ...(version === '0.37' ? ['version'] : []),
      ]);
    }
    const txs = results.txs_results as WireTxResult[];
    assert.ok(txs.length >= 1);
    for (const tx of txs) {
      assert.equal(Object.keys(tx), ['code', 'data', 'log', 'info', 'gas_wanted', 'gas_used', 'events', 'codespace']);
    }
  }
});

test('events: base64 keys and values in 0.34 that decode to the text 0.37 and 0.38 send', async () => {
  const byVersion = new Map<CometVersion, TextEvent[]>();
  for (const [version, devnet] of devnets) {
    const { hash, height, token } = sent.get(version)!;
    const results = await raw<{ txs_results: WireTxResult[] }>(devnet, 'block_results', { height: String(height) });
    const tx = await raw<{ hash: string; tx_result: WireTxResult }>(devnet, 'tx', {
      hash: Buffer.from(hash, 'hex').toString('base64'),
    });
    const index = results.txs_results.findIndex((r) => JSON.stringify(r) === JSON.stringify(tx.tx_result));
    assert.ok(index >= 0, 'tx answers the same result as block_results, in the same encoding');
    const wire = tx.tx_result.events;
    for (const a of wire.flatMap((e) => e.attributes)) {
      assert.is(a.index, true);
      if (version === '0.34') assert.is(toBase64Text(fromBase64(a.key)), a.key, `${a.key} is base64 of its text`);
    }
    const events = text(version, wire);
    const created = events.find((e) => e.type === 'wasm-token_created')!;
    assert.ok(
      created.attributes.some((a) => a.key === 'token_address' && a.value === token),
      `${version}: the launch's token address reads back as text`,
    );
    assert.ok(
      created.attributes.some((a) => a.key === 'name' && a.value === 'Version <&> Frog'),
      'text outside ASCII letters survives',
    );
    byVersion.set(version, events);
  }
  // The same tx from the same account on the same genesis: one chain's events, told three ways.
  const withoutVersioned = (events: TextEvent[]) =>
    events.map((e) => ({
      type: e.type,
      attributes: e.attributes.filter((a) => a.key !== 'msg_index' && a.key !== 'signature'),
    }));
  const [v34, v37, v38] = COMET_VERSIONS.map((v) => byVersion.get(v)!);
  assert.equal(withoutVersioned(v37!), withoutVersioned(v38!), 'SDK 0.47 and 0.50 differ only by msg_index');
  assert.is(v34!.length, v37!.length, 'SDK 0.45 emits as many events (its message events say only the action)');
});

test('events: msg_index only from SDK 0.50; before it, a message event led by action opens each message', async () => {
  for (const [version, devnet] of devnets) {
    const { hash } = sent.get(version)!;
    const found = await raw<{ txs: { hash: string; tx_result: WireTxResult }[] }>(devnet, 'tx_search', {
      query: `tx.hash='${hash}'`,
    });
    assert.is(found.txs.length, 1);
    const events = text(version, found.txs[0]!.tx_result.events);
    const tagged = events.filter((e) => e.attributes.some((a) => a.key === 'msg_index'));
    const openers = events.filter((e) => e.type === 'message' && e.attributes[0]?.key === 'action');
    assert.is(openers.length, 2, 'one opening message event per message');
    if (version === '0.38') {
      assert.ok(tagged.length > 0);
    } else {
      assert.is(tagged.length, 0, `${version}: no msg_index anywhere`);
      assert.equal(
        openers.map((e) => e.attributes.map((a) => a.key)),
        version === '0.34'
          ? [['action'], ['action']]
          : [
              ['action', 'sender', 'module'],
              ['action', 'sender', 'module'],
            ],
      );
    }
    const messages = messageIndexesOf(devnet, events);
    const buyer = events.findIndex((e) => e.type === 'wasm-token_created');
    assert.is(messages[buyer], 1, 'the launch is message 1');
    const launch = devnet.ledger.launches.at(-1)!;
    assert.is(launch.txHash, hash);
  }
});

/** SDK 0.45's StringEvents.Flatten: one event per type, attributes concatenated, types sorted. */
const flatten = (events: TextEvent[]) => {
  const byType = new Map<string, { key: string; value: string }[]>();
  for (const e of events) byType.set(e.type, [...(byType.get(e.type) ?? []), ...e.attributes]);
  return [...byType.keys()].sort().map((type) => ({ type, attributes: byType.get(type)! }));
};

test('log: SDK 0.45 and 0.47 write ABCIMessageLogs whose events are the tx events between message boundaries', async () => {
  for (const [version, devnet] of devnets) {
    const { hash } = sent.get(version)!;
    const tx = await raw<{ tx_result: WireTxResult }>(devnet, 'tx', { hash: toBase64(fromHex(hash)) });
    const { log } = tx.tx_result;
    if (version === '0.38') {
      assert.is(log, '', 'SDK 0.50 writes no message logs');
      continue;
    }
    assert.not.match(log, /[<>&]/, "Go's encoding/json escapes <, > and &");
    assert.match(log, /\\u003c\\u0026\\u003e/);
    const logs = JSON.parse(log) as MessageLog[];
    assert.is(logs.length, 2);
    const events = text(version, tx.tx_result.events);
    const starts = events.flatMap((e, i) => (e.type === 'message' && e.attributes[0]?.key === 'action' ? [i] : []));
    logs.forEach((entry, i) => {
      assert.is('log' in entry, false, 'an empty log is left out');
      if (version === '0.34') assert.equal(entry.msg_index, i === 0 ? undefined : i, 'msg_index 0 is left out');
      else assert.is(entry.msg_index, i);
      const slice = events.slice(starts[i], starts[i + 1] ?? events.length);
      const expected = version === '0.34' ? flatten(slice) : slice;
      assert.equal(
        entry.events,
        expected.map((e) => ({
          type: e.type,
          attributes: e.attributes.map((a) => (a.value ? { key: a.key, value: a.value } : { key: a.key })),
        })),
        `${version}: message ${i}'s log events`,
      );
    });
  }
});

test('broadcast_tx_commit: deliver_tx before 0.38, tx_result in 0.38, with each version check_tx fields', async () => {
  for (const [version, devnet] of devnets) {
    const { client, address } = await signingClient(devnet, 6);
    const signed = await client.sign(
      address,
      [
        {
          typeUrl: '/cosmos.bank.v1beta1.MsgSend',
          value: { fromAddress: address, toAddress: address, amount: [{ denom: 'unative', amount: '1' }] },
        },
      ],
      { amount: [{ denom: 'unative', amount: '2000' }], gas: '200000' },
      '',
    );
    client.disconnect();
    const answer = await raw<Record<string, Record<string, unknown>>>(devnet, 'broadcast_tx_commit', {
      tx: Buffer.from(TxRaw.encode(signed).finish()).toString('base64'),
    });
    const resultKey = version === '0.38' ? 'tx_result' : 'deliver_tx';
    assert.equal(Object.keys(answer), ['check_tx', resultKey, 'hash', 'height']);
    assert.is(answer[resultKey]!.code, 0);
    assert.equal(Object.keys(answer.check_tx!), [
      'code',
      'data',
      'log',
      'info',
      'gas_wanted',
      'gas_used',
      'events',
      'codespace',
      ...(version === '0.38' ? [] : ['sender', 'priority', 'mempoolError']),
    ]);
    assert.is(answer.check_tx!.log, version === '0.38' ? '' : '[]', 'SDK 0.45/0.47 CheckTx logs no message: []');
  }
});

test('websocket: Tx events carry the result in the version encoding, zero fields left out', async () => {
  for (const [version, devnet] of devnets) {
    const socket = new WebSocket(`${devnet.rpcUrl.replace(/^http/, 'ws')}/websocket`);
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const messages: { id: number; result: { data?: { value: { TxResult: { result: Record<string, unknown> } } } } }[] =
      [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscribe', params: { query: "tm.event='Tx'" } }));
    const { client, address } = await signingClient(devnet, 7);
    await client.sendTokens(address, devnet.accounts[1]!.address, [{ denom: 'unative', amount: '5' }], 'auto');
    client.disconnect();
    const event = await within(
      (async () => {
        for (;;) {
          const found = messages.find((m) => m.result?.data);
          if (found) return found.result.data!.value.TxResult.result;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      })(),
      10_000,
      `a Tx event from ${version}`,
    );
    socket.close();
    assert.equal(Object.keys(event), [
      'data',
      ...(version === '0.38' ? [] : ['log']),
      'gas_wanted',
      'gas_used',
      'events',
    ]);
    const opener = text(version, event.events as WireEvent[]).find(
      (e) => e.type === 'message' && e.attributes[0]?.key === 'action',
    );
    assert.is(opener?.attributes[0]?.value, '/cosmos.bank.v1beta1.MsgSend', `${version}: the action reads back`);
    if (version === '0.34') {
      const wire = (event.events as WireEvent[]).find((e) => e.type === 'message')!;
      assert.is(wire.attributes[0]!.key, toBase64Text('sender'), 'the payload attributes are base64');
    }
  }
});

test('reflection: FileDescriptors from SDK 0.47 on holds the bridge module file; 0.34 answers an unknown path', async () => {
  const path = '/cosmos.reflection.v1.ReflectionService/FileDescriptors';
  for (const [version, devnet] of devnets) {
    const answer = await raw<{ response: { code: number; log: string; value: string | null; codespace: string } }>(
      devnet,
      'abci_query',
      { path, data: '' },
    );
    if (version === '0.34') {
      assert.is(answer.response.code, 6);
      assert.is(answer.response.codespace, 'sdk');
      assert.is(answer.response.log, `unknown query path: ${path}: unknown request`);
      continue;
    }
    assert.is(answer.response.code, 0, answer.response.log);
    const { files } = FileDescriptorsResponse.decode(Buffer.from(answer.response.value!, 'base64'));
    const bridge = files.find((f) => f.name === 'native/bridge/v1/tx.proto')!;
    assert.ok(bridge, 'the bridge module file');
    assert.is(bridge.package, 'native.bridge.v1');
    assert.is(bridge.syntax, 'proto3');
    assert.equal(bridge.dependency, ['cosmos/base/v1beta1/coin.proto']);
    const msg = bridge.messageType.find((m) => m.name === 'MsgBurnForBridgeOut')!;
    assert.equal(
      msg.field.map((f) => [f.name, f.number, f.type, f.typeName]),
      [
        ['sender', 1, FieldDescriptorProto_Type.TYPE_STRING, ''],
        ['amount', 2, FieldDescriptorProto_Type.TYPE_MESSAGE, '.cosmos.base.v1beta1.Coin'],
        ['destination_chain', 3, FieldDescriptorProto_Type.TYPE_STRING, ''],
        ['destination_address', 4, FieldDescriptorProto_Type.TYPE_STRING, ''],
      ],
    );
    assert.ok(bridge.messageType.some((m) => m.name === 'MsgBurnForBridgeOutResponse' && m.field.length === 0));
    const coin = files.find((f) => f.name === 'cosmos/base/v1beta1/coin.proto')!;
    assert.is(coin.package, 'cosmos.base.v1beta1');
    assert.equal(
      coin.messageType.find((m) => m.name === 'Coin')!.field.map((f) => [f.name, f.number]),
      [
        ['denom', 1],
        ['amount', 2],
      ],
    );
  }
});

test('genesis: cosmjs reads each version consensus parameters', async () => {
  for (const [version, devnet] of devnets) {
    const genesis = await raw<{ genesis: { consensus_params: { block: Record<string, string> } } }>(devnet, 'genesis');
    assert.is('time_iota_ms' in genesis.genesis.consensus_params.block, version === '0.34');
  }
});

test.run();
