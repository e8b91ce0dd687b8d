// How the node's block results become what the index stores: CometBFT leaves empty
// strings out of its JSON, the attribute index keeps each (type.key, value) once, and a
// block costs the same node calls whatever it holds.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { compressSync as lz4Compress } from 'lz4-napi';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChainClient, createChainClient } from '../../src/chain/client.ts';
import { indexedAttributes } from '../../src/chain/indexed-attributes.ts';
import { blockEventsOf, readEvents, type WireBlockResults } from '../../src/chain/node-events.ts';
import { packEvents, restJsonOfCompact, unpackEvents, unpackEventsJson } from '../../src/chain/stored-events.ts';
import { fetchBlocks } from '../../src/indexer/fetch-blocks.ts';
import { startDevnet } from '../helpers/devnet.ts';
import { produceTraffic } from '../helpers/indexing.ts';

const test = suite('block results');

// a tx result as CometBFT 0.38 serialises it: the zero fee's value and an empty key left out
const results = JSON.parse(`{"txs_results":[{"code":0,"events":[
  {"type":"tx","attributes":[{"key":"fee","index":true},{"key":"fee_payer","value":"native1payer","index":true}]},
  {"type":"message","attributes":[{"key":"action","value":"/cosmos.bank.v1beta1.MsgSend","index":true},{"key":"sender","value":"native1payer","index":true}]},
  {"type":"transfer","attributes":[{"key":"recipient","value":"native1a","index":true},{"key":"sender","value":"native1payer","index":true},{"value":"x","index":true}]},
  {"type":"transfer","attributes":[{"key":"recipient","value":"native1a","index":true},{"key":"recipient","index":true}]},
  {"type":"message","attributes":[{"key":"sender","value":"native1payer","index":true}]},
  {"type":"coin_spent"}
]}]}`) as WireBlockResults;

test('omitted values and keys are empty strings, stored and indexed as such', () => {
  const events = readEvents(results.txs_results![0]!.events, '0.38');
  assert.equal(events[0]!.attributes[0], { key: 'fee', value: '' });
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

test('recorded dYdX block events without a type, with empty keys, read as "" (test/fixtures/real-chains)', () => {
  const file = path.resolve(
    import.meta.dirname,
    '../fixtures/real-chains/comet038-dydx-mainnet-1-block_results-12791634.json',
  );
  const recorded = JSON.parse(readFileSync(file, 'utf8')).result as WireBlockResults;
  const events = blockEventsOf(recorded, '0.38');
  assert.is(events.length, recorded.finalize_block_events!.length);
  assert.ok(events.length > 0);
  for (const e of events) {
    assert.is(e.type, '', 'no type: an empty one, never undefined');
    assert.ok(e.attributes.every((a) => a.key === '' && typeof a.value === 'string'));
  }
  assert.equal(unpackEvents(packEvents(events))[0]!.type, '', 'stored and served as ""');
});

test('recorded txs of real chains round-trip through the stored form, smaller with the dictionary, and the older forms still read', () => {
  const dir = path.resolve(import.meta.dirname, '../fixtures/real-chains');
  let packed = 0;
  let withoutDictionary = 0;
  let text = 0;
  let txs = 0;
  for (const [file, protocol] of [
    ['tm034-osmosis-1-block_results-10499831.json', '0.34'],
    ['tm034-injective-1-block_results-4555980.json', '0.34'],
    ['comet038-celestia-block_results-8880520.json', '0.38'],
  ] as const) {
    const body = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
    const recorded = (body.result ?? body) as WireBlockResults;
    for (const result of recorded.txs_results ?? []) {
      const events = readEvents(result.events, protocol);
      const served = events.map((e) => ({
        type: e.type,
        attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: true })),
      }));
      const stored = packEvents(events);
      assert.equal(unpackEvents(stored), served, file);
      const compact = JSON.stringify(events.map((e) => [e.type, e.attributes.map((a) => [a.key, a.value])]));
      // the form written before the dictionary: raw DEFLATE of the same compact JSON
      assert.equal(unpackEvents(zlib.deflateRawSync(compact, { level: 1 })), served, `${file}: the oldest form`);
      packed += stored.length;
      withoutDictionary += 1 + lz4Compress(compact).length;
      text += Buffer.byteLength(compact);
      txs++;
    }
  }
  assert.ok(txs >= 10, `${txs} recorded txs`);
  assert.ok(packed < text / 2, `packed to under half their compact JSON: ${packed} of ${text}`);
  assert.ok(
    packed < withoutDictionary,
    `the dictionary saves bytes on real chains' events too: ${packed} vs ${withoutDictionary}`,
  );

  // rows written with DEFLATE against the same dictionary (marker 0x06), as that code wrote them
  const written = JSON.parse(
    readFileSync(path.resolve(import.meta.dirname, '../fixtures/stored-events/deflate-dictionary-1.json'), 'utf8'),
  ) as { rows: { file: string; txIndex: number; packed: string }[] };
  assert.ok(written.rows.length >= 8);
  for (const row of written.rows) {
    const body = JSON.parse(readFileSync(path.join(dir, row.file), 'utf8'));
    const recorded = (body.result ?? body) as WireBlockResults;
    const protocol = row.file.startsWith('tm034') ? '0.34' : '0.38';
    const events = readEvents(recorded.txs_results![row.txIndex]!.events, protocol);
    const stored = Buffer.from(row.packed, 'base64');
    assert.is(stored[0], 0x06, 'the DEFLATE form');
    assert.equal(unpackEvents(stored), unpackEvents(packEvents(events)), `${row.file} tx ${row.txIndex}`);
    assert.is(unpackEventsJson(stored), JSON.stringify(unpackEvents(packEvents(events))));
  }
});

test("the events' JSON printed straight from the stored text is the unpacked events printed: real chains' txs, generated ones, both stored forms", () => {
  const dir = path.resolve(import.meta.dirname, '../fixtures/real-chains');
  for (const [file, protocol] of [
    ['tm034-osmosis-1-block_results-10499831.json', '0.34'],
    ['comet038-celestia-block_results-8880520.json', '0.38'],
  ] as const) {
    const body = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
    for (const result of ((body.result ?? body) as WireBlockResults).txs_results ?? []) {
      const events = readEvents(result.events, protocol);
      const compact = JSON.stringify(events.map((e) => [e.type, e.attributes.map((a) => [a.key, a.value])]));
      const older = zlib.deflateRawSync(compact, { level: 1 });
      for (const stored of [packEvents(events), older])
        assert.is(unpackEventsJson(stored), JSON.stringify(unpackEvents(stored)), file);
    }
  }
  // any text: quotes, backslashes, brackets, control characters, lone surrogates
  const text = fc.oneof(
    fc.string(),
    fc.string({ unit: 'binary' }),
    fc.string({ unit: fc.constantFrom('"', '\\', '\\"', ']', '[', ',', '\u0000', '\n', '\ud800', 'a') }),
  );
  fc.assert(
    fc.property(
      fc.array(fc.record({ type: text, attributes: fc.array(fc.record({ key: text, value: text })) }), {
        maxLength: 8,
      }),
      (events) => {
        const stored = packEvents(events);
        const compact = JSON.stringify(events.map((e) => [e.type, e.attributes.map((a) => [a.key, a.value])]));
        // printed straight, not by the fallback that parses
        assert.is(restJsonOfCompact(compact), JSON.stringify(unpackEvents(stored)));
        assert.is(unpackEventsJson(stored), JSON.stringify(unpackEvents(stored)));
      },
    ),
    { numRuns: 2000 },
  );
  // a text of another shape is left to the fallback
  for (const other of [
    '',
    '[',
    '{}',
    '[["t"]]',
    '[["t",[["k"]]]]',
    '[ ["t",[]]]',
    '[["t",[]]]x',
    '[["t",[["k","v",1]]]]',
  ])
    assert.is(restJsonOfCompact(other), undefined, other);
  // a string that is not JSON (a corrupted row: raw DEFLATE has no checksum) is left to it too,
  // and one JSON.stringify would print otherwise is printed as it would
  for (const bad of ['[["t",[["k","\\x"]]]]', '[["t",[["k","\\u00"]]]]', '[["t",[["k","a\nb"]]]]'])
    assert.is(restJsonOfCompact(bad), undefined, bad);
  assert.is(
    restJsonOfCompact('[["\\u0041",[["\\/","\\uD800"]]]]'),
    JSON.stringify([{ type: 'A', attributes: [{ key: '/', value: '\ud800', index: true }] }]),
  );
});

test('the attribute index keeps each indexed (type.key, value) of a tx once, in order of first appearance', () => {
  const events = readEvents(results.txs_results![0]!.events, '0.38');
  assert.equal(indexedAttributes(events), [
    ['message.action', '/cosmos.bank.v1beta1.MsgSend'],
    ['message.sender', 'native1payer'],
    ['transfer.recipient', 'native1a'],
    ['transfer.recipient', ''],
  ]);
});

test('a tx with 20,000 transfers to 10,000 recipients keeps each recipient once, in order of first appearance', () => {
  const many = Array.from({ length: 20_000 }, (_, i) => ({
    type: 'transfer',
    attributes: [{ key: 'recipient', value: `native1r${i % 10_000}` }],
  }));
  const pairs = indexedAttributes(many);
  assert.is(pairs.length, 10_000, 'each recipient once');
  assert.equal(
    pairs,
    Array.from({ length: 10_000 }, (_, i) => ['transfer.recipient', `native1r${i}`]),
  );
});

test("fetching blocks costs two node calls per block (block and block_results, as the node's bytes), however many txs each holds", async () => {
  const devnet = await startDevnet();
  const chain = createChainClient(devnet.rpcUrl);
  try {
    await produceTraffic(devnet, 3, 1);
    const from = devnet.height() + 1;
    await produceTraffic(devnet, 3, 40);
    const to = devnet.height();
    const calls: string[] = [];
    const counted: ChainClient = {
      ...chain,
      // any call through cosmjs's client would be a third
      comet: new Proxy(chain.comet, {
        get(target, name, receiver) {
          const value = Reflect.get(target, name, receiver);
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            calls.push(`comet.${String(name)}(${args.join(',')})`);
            return value.apply(target, args);
          };
        },
      }),
      rawCall: (method, params) => {
        calls.push(`rawCall ${method}(${params.height})`);
        return chain.rawCall(method, params);
      },
      rawCallBody: (method, params) => {
        calls.push(`${method}(${params.height})`);
        return chain.rawCallBody(method, params);
      },
    };
    const blocks = await fetchBlocks(counted, 1, to, devnet.contracts, 4);
    assert.equal(
      blocks.map((b) => b.height),
      Array.from({ length: to }, (_, i) => i + 1),
    );
    const txs = blocks.reduce((n, b) => n + b.txCount, 0);
    assert.ok(
      blocks.slice(from - 1).every((b) => b.txCount >= 40),
      'the last blocks hold 40 txs and more',
    );
    assert.ok(txs >= 120, `${txs} txs`);
    const expected = blocks.flatMap((b) => [`block(${b.height})`, `block_results(${b.height})`]);
    assert.equal([...calls].sort(), [...expected].sort(), `${calls.length} calls for ${blocks.length} blocks`);
  } finally {
    chain.disconnect();
    await devnet.close();
  }
});

test.run();
