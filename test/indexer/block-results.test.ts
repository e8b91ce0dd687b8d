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

/** What the fast read and the full parse both say of one body: asserted equal, down to the stored events. */
function assertSameReading(body: Buffer, protocol: '0.34' | '0.37' | '0.38' = '0.38') {
  const fast = readBlockResults(body, protocol);
  const full = readAnswer(body);
  assert.is('result' in fast.answer, 'result' in full, 'both read a result, or neither');
  if (!('result' in fast.answer) || !('result' in full)) {
    assert.equal(fast.answer, full);
    return fast;
  }
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

test.run();
