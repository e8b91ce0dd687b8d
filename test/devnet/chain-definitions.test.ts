// The devnet and the service each define the chain's own interfaces: the contracts' custom
// events (src/devnet/contracts/custom-events.ts, as the contracts emit them, and
// src/chain/contract-events.ts, as the indexer reads them) and the bridge module's message
// (src/devnet/tx/bridge-msg.ts and src/chain/bridge-msg.ts). Neither imports the other; these
// tests keep the two definitions the same chain.
import { Coin } from 'cosmjs-types/cosmos/base/v1beta1/coin';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as service from '../../src/chain/bridge-msg.ts';
import { AMM_EVENTS, CONTRACT_ADDRESS_ATTRIBUTE, LAUNCHPAD_EVENTS } from '../../src/chain/contract-events.ts';
import { AMM_CUSTOM_EVENTS, LAUNCHPAD_CUSTOM_EVENTS } from '../../src/devnet/contracts/custom-events.ts';
import {
  CUSTOM_EVENT_PREFIX,
  CONTRACT_ADDRESS_ATTRIBUTE as HOST_CONTRACT_ADDRESS_ATTRIBUTE,
} from '../../src/devnet/contracts/wasm.ts';
import * as devnet from '../../src/devnet/tx/bridge-msg.ts';

type ServiceEvents = Record<string, { type: string; attributes: Record<string, string> }>;
type ContractEvents = Record<string, { type: string; attributes: readonly string[] }>;

/** An event as it reaches the chain: the host's prefix on the type, the contract's address first. */
const onChain = ({ type, attributes }: { type: string; attributes: readonly string[] }) => ({
  type: `${CUSTOM_EVENT_PREFIX}${type}`,
  attributes: [HOST_CONTRACT_ADDRESS_ATTRIBUTE, ...attributes],
});
/** An event as the service expects it: its type, `_contract_address`, then its attributes in order. */
const expected = ({ type, attributes }: { type: string; attributes: Record<string, string> }) => ({
  type,
  attributes: [CONTRACT_ADDRESS_ATTRIBUTE, ...Object.values(attributes)],
});

function assertSameEvents(name: string, serviceEvents: ServiceEvents, contractEvents: ContractEvents) {
  assert.equal(Object.keys(contractEvents).sort(), Object.keys(serviceEvents).sort(), `${name}: the same events`);
  for (const [key, event] of Object.entries(serviceEvents)) {
    assert.equal(onChain(contractEvents[key]!), expected(event), `${name}.${key}`);
  }
}

test('the launchpad emits every event the service reads, named and ordered alike', () => {
  assertSameEvents('launchpad', LAUNCHPAD_EVENTS, LAUNCHPAD_CUSTOM_EVENTS);
});

test('the AMM emits the swap event the service reads, named and ordered alike', () => {
  assertSameEvents('amm', AMM_EVENTS, AMM_CUSTOM_EVENTS);
});

test('the bridge messages have the same type URLs', () => {
  assert.is(devnet.MsgBurnForBridgeOut.typeUrl, service.MsgBurnForBridgeOut.typeUrl);
  assert.is(devnet.MsgBurnForBridgeOut.typeUrl, '/native.bridge.v1.MsgBurnForBridgeOut');
  assert.is(devnet.MsgBurnForBridgeOutResponse.typeUrl, service.MsgBurnForBridgeOutResponse.typeUrl);
});

const sample = {
  sender: 'native19rl4cm2hmr8afy4kldpxz3fka4jguq0a7slhv5',
  amount: { denom: 'unative', amount: '1250000' },
  destinationChain: 'ethereum',
  destinationAddress: '0x000000000000000000000000000000000000dEaD',
};

test('a MsgBurnForBridgeOut encodes to the same bytes on both sides and decodes identically', () => {
  const bytes = service.MsgBurnForBridgeOut.encode(sample).finish();
  assert.equal(devnet.MsgBurnForBridgeOut.encode(sample).finish(), bytes);
  assert.equal(devnet.MsgBurnForBridgeOut.decode(bytes), service.MsgBurnForBridgeOut.decode(bytes));
  assert.equal(devnet.MsgBurnForBridgeOut.decode(bytes), sample);
  const empty = service.MsgBurnForBridgeOut.fromPartial({});
  assert.equal(devnet.MsgBurnForBridgeOut.fromPartial({}), empty);
  assert.is(devnet.MsgBurnForBridgeOut.encode(empty).finish().length, 0);
  assert.equal(devnet.MsgBurnForBridgeOut.decode(new Uint8Array()), empty);
});

test('the response is empty on both sides', () => {
  assert.is(devnet.MsgBurnForBridgeOutResponse.encode({}).finish().length, 0);
  assert.is(service.MsgBurnForBridgeOutResponse.encode({}).finish().length, 0);
  assert.equal(devnet.MsgBurnForBridgeOutResponse.decode(new Uint8Array()), {});
});

const text = fc.string({ unit: 'binary', maxLength: 80 });
const message = fc.record({
  sender: text,
  amount: fc.option(fc.record({ denom: text, amount: fc.oneof(fc.bigInt({ min: 0n }).map(String), text) }), {
    nil: undefined,
  }),
  destinationChain: text,
  destinationAddress: text,
});

test('generated messages: what one side encodes the other decodes to the same message', () => {
  fc.assert(
    fc.property(message, (msg) => {
      const fromService = service.MsgBurnForBridgeOut.encode(msg).finish();
      const fromDevnet = devnet.MsgBurnForBridgeOut.encode(msg).finish();
      assert.equal(fromDevnet, fromService);
      const original = service.MsgBurnForBridgeOut.fromPartial(msg);
      assert.equal(devnet.MsgBurnForBridgeOut.decode(fromService), original);
      assert.equal(service.MsgBurnForBridgeOut.decode(fromDevnet), original);
    }),
    { numRuns: 500 },
  );
});

test('generated bytes: both sides decode any field sequence, unknown fields and repeats alike', () => {
  const field = fc.oneof(
    fc.record({ no: fc.constantFrom(1, 3, 4), value: text }),
    fc.record({ no: fc.constant(2), coin: fc.record({ denom: text, amount: text }) }),
    fc.record({ no: fc.integer({ min: 5, max: 1000 }), value: text }),
  );
  fc.assert(
    fc.property(fc.array(field, { maxLength: 8 }), (fields) => {
      const writer = devnet.MsgBurnForBridgeOut.encode(devnet.MsgBurnForBridgeOut.fromPartial({}));
      for (const f of fields) {
        if ('coin' in f) writer.uint32((f.no << 3) | 2).bytes(Coin.encode(f.coin).finish());
        else writer.uint32((f.no << 3) | 2).string(f.value);
      }
      const bytes = writer.finish();
      assert.equal(devnet.MsgBurnForBridgeOut.decode(bytes), service.MsgBurnForBridgeOut.decode(bytes));
    }),
    { numRuns: 300 },
  );
});

test.run();
