// A block's results read with its txs' events copied from the node's bytes
// (src/chain/block-results.ts): on every answer laid out as CometBFT writes it, the fast read
// is taken and gives the same events, tx results and block events as the full parse, and its
// events, packed for storage, read back and print as those of the full parse do; an answer
// laid out otherwise, or broken anywhere, comes to exactly what the full parse says of it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readBlockResults } from '../../src/chain/block-results.ts';
import { blockEventsOf, readEvents, type WireBlockResults } from '../../src/chain/node-events.ts';
import { readAnswer } from '../../src/chain/rpc-client.ts';
import { packCompactJson, packEvents, unpackEvents, unpackEventsJson } from '../../src/chain/stored-events.ts';

const test = suite('block results read from the bytes');

/** A string as Go's encoding/json writes it: `<`, `>` and `&` escaped too. */
const goString = (s: string) =>
  JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const text = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom('', '"', '\\', '\\"', 'a"b', '<&>', '\u0000', '\n\t', '"events":[', ',"events":[{"type":"x"}]'),
);
const attribute = fc.record({ key: text, value: text, index: fc.constantFrom(true, false, undefined) });
const event = fc.record({
  type: text,
  attributes: fc.option(fc.array(attribute, { maxLength: 5 }), { nil: undefined }),
});
const txResult = fc.record({
  code: fc.nat(40),
  log: text,
  gas_wanted: fc.nat().map(String),
  gas_used: fc.nat().map(String),
  events: fc.option(fc.array(event, { maxLength: 6 }), { nil: undefined }),
  codespace: text,
});
const blockResults = fc.record({
  height: fc.integer({ min: 1, max: 1e9 }),
  txs: fc.array(txResult, { maxLength: 6 }),
  finalize: fc.option(fc.array(event, { maxLength: 3 }), { nil: undefined }),
});
type Generated = typeof blockResults extends fc.Arbitrary<infer T> ? T : never;
type GeneratedEvent = { type: string; attributes?: { key: string; value: string; index?: boolean }[] };

/** Events as CometBFT 0.37+ writes them: empty values, false flags and empty lists left out (`omitempty`). */
function goEvents(events: readonly GeneratedEvent[]): string {
  const attributes = (e: GeneratedEvent) =>
    e.attributes === undefined
      ? ''
      : `,"attributes":[${e.attributes
          .map(
            (a) =>
              `{"key":${goString(a.key)}${a.value === '' ? '' : `,"value":${goString(a.value)}`}${a.index === undefined ? '' : `,"index":${a.index}`}}`,
          )
          .join(',')}]`;
  return `[${events.map((e) => `{"type":${goString(e.type)}${attributes(e)}}`).join(',')}]`;
}

/** A whole `block_results` answer, as a node of 0.38 sends it. */
function goBody(g: Generated): Buffer {
  const txs = g.txs.map(
    (t) =>
      `{"code":${t.code},"data":null,"log":${goString(t.log)},"info":"","gas_wanted":"${t.gas_wanted}","gas_used":"${t.gas_used}"${t.events === undefined ? '' : `,"events":${goEvents(t.events)}`},"codespace":${goString(t.codespace)}}`,
  );
  const finalize = g.finalize === undefined ? '' : `,"finalize_block_events":${goEvents(g.finalize)}`;
  return Buffer.from(
    `{"jsonrpc":"2.0","id":-1,"result":{"height":"${g.height}","txs_results":[${txs.join(',')}]${finalize},"validator_updates":[],"consensus_param_updates":null,"app_hash":"AA=="}}`,
  );
}

const pairsOf = (events: unknown) =>
  readEvents(events as WireBlockResults['finalize_block_events'], '0.38').map((e) => [
    e.type,
    e.attributes.map((a) => [a.key, a.value]),
  ]);

/** A result with each tx's events as (type, key, value) text, the rest as it is. */
function withEventsAsText(result: unknown): unknown {
  const txs = (result as WireBlockResults | null)?.txs_results;
  if (!Array.isArray(txs)) return result;
  return {
    ...(result as object),
    txs_results: txs.map((t) =>
      t && typeof t === 'object' && Array.isArray(t.events) ? { ...t, events: pairsOf(t.events) } : t,
    ),
  };
}

/** What the fast read and the full parse both say of one body: asserted equal, down to the stored events. */
function assertSameReading(body: Buffer, protocol: '0.34' | '0.37' | '0.38' = '0.38') {
  const fast = readBlockResults(body, protocol);
  const full = readAnswer(body);
  if (!fast.compactEvents) {
    // read in full: exactly what the full parse reads
    assert.equal(fast.answer, full);
    return fast;
  }
  assert.ok(
    'result' in fast.answer && 'result' in full,
    'the fast read is taken only where the full parse reads a result',
  );
  // the whole result alike, each tx's events as their text
  assert.equal(withEventsAsText(fast.answer.result), withEventsAsText(full.result), 'the whole result');
  const a = fast.answer.result as WireBlockResults;
  const b = full.result as WireBlockResults;
  const txsA = a.txs_results ?? [];
  const txsB = b.txs_results ?? [];
  assert.is(txsA.length, txsB.length);
  for (let i = 0; i < txsA.length; i++) {
    const { events: eventsA, ...restA } = txsA[i]!;
    const { events: eventsB, ...restB } = txsB[i]!;
    assert.equal(restA, restB, `tx ${i}: its result besides the events`);
    assert.equal(pairsOf(eventsA), pairsOf(eventsB), `tx ${i}: its events`);
    const compact = fast.compactEvents?.[i];
    if (compact) {
      const stored = packCompactJson(compact);
      const storedBefore = packEvents(readEvents(eventsB, protocol));
      assert.equal(unpackEvents(stored), unpackEvents(storedBefore), `tx ${i}: its stored events`);
      assert.is(unpackEventsJson(stored), unpackEventsJson(storedBefore), `tx ${i}: its events as printed`);
    } else if (fast.compactEvents)
      assert.equal(eventsA ?? null, eventsB ?? null, `tx ${i}: no compact events only when it has none`);
  }
  assert.equal(blockEventsOf(a, protocol), blockEventsOf(b, protocol), "the block's own events");
  return fast;
}

test('an answer as CometBFT writes it is read from its bytes, and says what the full parse says', () => {
  fc.assert(
    fc.property(blockResults, (g) => {
      const fast = assertSameReading(goBody(g));
      assert.ok(fast.compactEvents, 'the fast read is taken');
    }),
    { numRuns: 400 },
  );
});

const edits = fc.array(
  fc.record({
    at: fc.nat(),
    remove: fc.nat(3),
    insert: fc.constantFrom(
      '',
      ' ',
      '"',
      '\\',
      ',',
      '{',
      '}',
      '[',
      ']',
      ':',
      'x',
      '\n',
      '"events":[',
      '\u00e9',
      '\u0001',
    ),
  }),
  { minLength: 1, maxLength: 3 },
);

test('an answer broken or laid out otherwise anywhere comes to what the full parse says of it', () => {
  fc.assert(
    fc.property(blockResults, edits, (g, changes) => {
      let body = goBody(g).toString('utf8');
      for (const { at, remove, insert } of changes) {
        const i = at % (body.length + 1);
        body = body.slice(0, i) + insert + body.slice(i + remove);
      }
      assertSameReading(Buffer.from(body));
    }),
    { numRuns: 1500 },
  );
});

test("0.34's base64 attributes and a pretty-printed answer are read in full", () => {
  fc.assert(
    fc.property(blockResults, (g) => {
      const body = goBody(g);
      assert.is(readBlockResults(body, '0.34').compactEvents, undefined);
      const pretty = Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8')), null, 2));
      const read = assertSameReading(pretty);
      if (g.txs.some((t) => t.events?.length)) assert.is(read.compactEvents, undefined);
    }),
    { numRuns: 100 },
  );
});

const oneEvent = (type: string) => `{"type":"${type}","attributes":[{"key":"k","value":"v","index":true}]}`;
const answer = (result: string) => `{"jsonrpc":"2.0","id":-1,"result":${result}}`;

test("events arrays that are not the txs' own, or stand where a number or a duplicate key was, are read in full", () => {
  for (const result of [
    // a tx's events given as a number, beside an array elsewhere
    `{"txs_results":[{"events":0}],"x":{"events":[${oneEvent('evil')}]}}`,
    `{"txs_results":[{"events":-0}],"x":{"events":[${oneEvent('evil')}]}}`,
    `{"txs_results":[{"events":[${oneEvent('a')}]},{"events":1}],"y":{"events":[${oneEvent('a')}]}}`,
    // duplicate keys: the last one is the one JSON.parse keeps
    `{"txs_results":[{"events":[${oneEvent('a')}],"events":0}]}`,
    `{"txs_results":[{"events":[${oneEvent('a')}],"events":[${oneEvent('b')}]}]}`,
    `{"txs_results":[{"events":[${oneEvent('a')}]}],"txs_results":[{"events":0}]}`,
    // a key spelt with an escape, and a key that ends in "events"
    `{"txs_results":[{"\\u0065vents":0}],"x":{"events":[${oneEvent('evil')}]}}`,
    `{"txs_results":[{"x\\"events":[${oneEvent('a')}]}]}`,
    // events arrays outside the txs
    `{"txs_results":null,"x":{"events":[${oneEvent('a')}]}}`,
    `{"txs_results":[],"finalize_block_events":[{"type":"t","events":[${oneEvent('a')}]}]}`,
    // an event without a type (dYdX), an attribute without a key
    `{"txs_results":[{"events":[{"attributes":[{"key":"k","value":"v"}]}]}]}`,
    `{"txs_results":[{"events":[{"type":"t","attributes":[{"value":"v"}]}]}]}`,
  ]) {
    const read = assertSameReading(Buffer.from(answer(result)));
    assert.is(read.compactEvents, undefined, result);
  }
  // an error beside a result, and a byte-order mark, are the full parse's to decide
  assertSameReading(
    Buffer.from(`{"error":{"code":-32603,"message":"m"},"result":{"txs_results":[{"events":[${oneEvent('a')}]}]}}`),
  );
  assertSameReading(Buffer.from(`\ufeff${answer(`{"txs_results":[{"events":[${oneEvent('a')}]}]}`)}`));
});

test('texts that repeat, hundreds of the same length among them, read as the full parse reads them', () => {
  // short texts are read once per block and found again by a hash of their bytes: with this
  // many of one length, texts share slots, and each must still read as itself
  const sameLength = fc.uniqueArray(
    fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'd', 'e'), minLength: 6, maxLength: 6 }),
    {
      minLength: 200,
      maxLength: 400,
    },
  );
  fc.assert(
    fc.property(sameLength, fc.array(fc.nat(), { minLength: 600, maxLength: 1200 }), (pool, picks) => {
      const pick = (k: number) => pool[picks[k % picks.length]! % pool.length]!;
      const txs = Array.from({ length: 20 }, (_, t) => ({
        code: 0,
        log: '',
        gas_wanted: '1',
        gas_used: '1',
        codespace: '',
        events: Array.from({ length: 3 }, (_, e) => ({
          type: pick(t * 60 + e * 20),
          attributes: Array.from({ length: 6 }, (_, a) => ({
            key: pick(t * 60 + e * 20 + 2 * a + 1),
            value: pick(t * 60 + e * 20 + 2 * a + 2),
            index: true,
          })),
        })),
      }));
      const fast = assertSameReading(goBody({ height: 1, txs, finalize: undefined }));
      assert.ok(fast.compactEvents, 'the fast read is taken');
    }),
    { numRuns: 50 },
  );
});

test('answers the fast read takes: absent and null events, escapes, text that is not UTF-8', () => {
  const taken = [
    `{"txs_results":null}`,
    `{"txs_results":[{"code":1,"events":null},{"code":0}]}`,
    `{"txs_results":[{"events":[]},{"events":[{"type":"t"}]},{"events":[{"type":"t","attributes":[]}]}]}`,
    `{"txs_results":[{"events":[{"type":"\\u003Cb\\u003e \\/ \\uD83D\\uDE00 \\ud800 \\u0000 \\u2028\\b\\f","attributes":[{"key":"\\"","value":"\\\\"}]}]}]}`,
  ].map((result) => Buffer.from(answer(result)));
  // raw bytes that are not UTF-8 in a value: both reads decode them as U+FFFD alike
  for (const bad of [[0xe2, 0x82], [0xff], [0xed, 0xa0, 0x80]])
    taken.push(
      Buffer.concat([
        Buffer.from(
          '{"jsonrpc":"2.0","id":-1,"result":{"txs_results":[{"events":[{"type":"t","attributes":[{"key":"k","value":"a',
        ),
        Buffer.from(bad),
        Buffer.from('b"}]}]}]}}'),
      ]),
    );
  for (const body of taken) assert.ok(assertSameReading(body).compactEvents, body.toString('utf8'));
});

const fixture = (name: string) =>
  JSON.parse(readFileSync(path.join(import.meta.dirname, '../fixtures/real-chains', name), 'utf8'));

for (const name of [
  'comet037-dydx-mainnet-1-block_results-9.json',
  'comet037-dydx-mainnet-1-block_results-10.json',
  'comet038-celestia-block_results-8880520.json',
  'comet038-dydx-mainnet-1-block_results-12791634.json',
]) {
  test(`recorded ${name}: read from its bytes, the same as in full`, () => {
    const recorded = fixture(name);
    const answer = recorded.result ? recorded : { jsonrpc: '2.0', id: -1, result: recorded };
    // as the node sent it: compact (the recorded files are kept pretty-printed or as sent)
    const read = assertSameReading(Buffer.from(JSON.stringify(answer)));
    assert.ok(read.compactEvents, 'the fast read is taken');
    assert.ok(
      read.compactEvents.some((c) => c !== undefined),
      'its txs have events',
    );
  });
}

test('recorded archway-1 (CometBFT 0.37, CosmWasm): read from its bytes, the same as in full', () => {
  const [{ value }] = fixture('comet037-archway-1-kyve_bundle-block+block_results-4326863.json');
  const read = assertSameReading(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: -1, result: value.block_results })));
  assert.ok(
    read.compactEvents?.some((c) => c !== undefined),
    'the fast read is taken, its txs have events',
  );
});

test.run();
