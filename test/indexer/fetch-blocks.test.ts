// How the node's block results become what the index stores: CometBFT leaves empty
// strings out of its JSON, and the attribute index keeps each (type.key, value) once.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { indexedAttributes } from '../../src/chain/indexed-attributes.ts';
import { packEvents, unpackEvents } from '../../src/chain/stored-events.ts';
import { type BlockResultsJson, eventsOf } from '../../src/indexer/fetch-blocks.ts';

const test = suite('block results');

// a tx result as CometBFT 0.38 serialises it: the zero fee's value and an empty key left out
const results = JSON.parse(`{"txs_results":[{"code":0,"events":[
  {"type":"tx","attributes":[{"key":"fee","index":true},{"key":"fee_payer","value":"native1payer","index":true}]},
  {"type":"message","attributes":[{"key":"action","value":"/cosmos.bank.v1beta1.MsgSend","index":true},{"key":"sender","value":"native1payer","index":true}]},
  {"type":"transfer","attributes":[{"key":"recipient","value":"native1a","index":true},{"key":"sender","value":"native1payer","index":true},{"value":"x","index":true}]},
  {"type":"transfer","attributes":[{"key":"recipient","value":"native1a","index":true},{"key":"recipient","index":true}]},
  {"type":"message","attributes":[{"key":"sender","value":"native1payer","index":true}]},
  {"type":"coin_spent"}
]}]}`) as BlockResultsJson;

test('omitted values and keys are empty strings, stored and indexed as such', () => {
  const events = eventsOf(results.txs_results![0]!.events);
  assert.equal(events[0]!.attributes[0], { key: 'fee', value: '', index: true });
  assert.equal(events[2]!.attributes[2]!.key, '');
  assert.equal(events[5]!.attributes, [], 'an event without attributes has none');
  const stored = unpackEvents(packEvents(events));
  assert.equal(
    stored[0]!.attributes[0],
    { key: 'fee', value: '', index: true },
    'stored as "" (the Chain API serves it so), never null',
  );
  assert.equal(stored.length, 6);
});

test('the attribute index keeps each indexed (type.key, value) of a tx once, in order of first appearance', () => {
  const events = eventsOf(JSON.parse(JSON.stringify(results.txs_results![0]!.events)));
  assert.equal(indexedAttributes(events), [
    ['message.action', '/cosmos.bank.v1beta1.MsgSend'],
    ['message.sender', 'native1payer'],
    ['transfer.recipient', 'native1a'],
    ['transfer.recipient', ''],
  ]);
});

test('a tx with thousands of recipients is indexed in linear time', () => {
  const many = Array.from({ length: 20_000 }, (_, i) => ({
    type: 'transfer',
    attributes: [{ key: 'recipient', value: `native1r${i % 10_000}` }],
  }));
  const pairs = indexedAttributes(many);
  assert.is(pairs.length, 10_000, 'each recipient once');
});

test.run();
