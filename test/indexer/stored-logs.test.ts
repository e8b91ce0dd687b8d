// How a tx's log is kept (docs/real-chains.md "Logs"): a successful tx's message logs on SDK
// 0.45 to 0.47 are rebuilt from its events and only their form is stored; whatever the log,
// what is served is the text the node wrote, to the byte. And 0.34's base64 attributes are
// read as a Buffer reads them, whatever bytes they hold.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { messageBoundaries, messageIndexes, readEvents, type WireBlockResults } from '../../src/chain/node-events.ts';
import type { ChainEvent } from '../../src/chain/stored-events.ts';
import { LOG_PACKED_ABOVE, logOf, messageLog, storedLog } from '../../src/chain/stored-logs.ts';

const test = suite('stored logs');

const recorded = (name: string) =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../fixtures/real-chains', name), 'utf8'))
    .result as WireBlockResults;

for (const [chain, file, protocol, form] of [
  ['osmosis-1 (SDK 0.45)', 'tm034-osmosis-1-block_results-10499831.json', '0.34', 'by-type'],
  ['injective-1 (SDK 0.45)', 'tm034-injective-1-block_results-4555980.json', '0.34', 'by-type'],
  ['dydx-mainnet-1 (SDK 0.47)', 'comet037-dydx-mainnet-1-block_results-9.json', '0.37', 'as-emitted'],
] as const) {
  test(`${chain}: every message log is rebuilt from the tx's events, to the byte`, () => {
    let rebuilt = 0;
    for (const r of recorded(file).txs_results ?? []) {
      const events = readEvents(r.events, protocol);
      const log = r.log ?? '';
      assert.is(messageLog(events, form), log, 'the node’s own text');
      const stored = storedLog(log, r.code ?? 0, events);
      assert.is(logOf(stored, events), log);
      if (log.length > LOG_PACKED_ABOVE) {
        assert.equal(stored, { text: '', packed: null, form }, 'only its form is kept');
        rebuilt++;
      }
    }
    if (protocol === '0.34') assert.ok(rebuilt > 0, 'long logs were rebuilt');
  });
}

test('SDK 0.45 repeats the ante handler’s events after the messages’: that copy belongs to no message', () => {
  const [first] = recorded('tm034-osmosis-1-block_results-10499831.json').txs_results ?? [];
  const events = readEvents(first!.events, '0.34');
  const boundaries = messageBoundaries(events);
  const ante = boundaries.indexOf(0);
  assert.ok(ante > 0, 'fee and signature events come first');
  const copy = events.slice(-ante);
  assert.equal(copy, events.slice(0, ante), 'and again at the end');
  assert.equal(boundaries.slice(-ante), new Array(ante).fill(-1));
  assert.equal(messageIndexes(events).slice(-ante), new Array(ante).fill(0), 'given 0, as the first copy');
});

test('a contract’s own msg_index attribute neither moves its event to another message nor takes an older SDK’s tx for a tagged one', () => {
  const attr = (key: string, value: string) => ({ key, value });
  const message = () => ({
    type: 'message',
    attributes: [attr('action', '/cosmwasm.wasm.v1.MsgExecuteContract')],
  });
  // SDK 0.47: no tag from the SDK; a contract emits msg_index 7 in the second message
  const old = [
    message(),
    { type: 'wasm-buy', attributes: [attr('_contract_address', 'c'), attr('msg_index', '7')] },
    message(),
    { type: 'wasm', attributes: [attr('_contract_address', 'c'), attr('msg_index', '7')] },
  ];
  assert.equal(messageIndexes(old), [0, 0, 1, 1], 'the message events open each message');
  // SDK 0.50: the SDK appends its msg_index after the contract's
  const tagged = [
    { type: 'message', attributes: [attr('module', 'wasm'), attr('msg_index', '0')] },
    { type: 'message', attributes: [attr('module', 'wasm'), attr('msg_index', '1')] },
    { type: 'wasm-buy', attributes: [attr('_contract_address', 'c'), attr('msg_index', '7'), attr('msg_index', '1')] },
  ];
  assert.equal(messageIndexes(tagged), [0, 1, 1], 'the SDK’s, the last');
});

// Text with everything JSON or Go escapes: quotes, backslashes, controls, HTML, line
// separators, lone surrogates, non-ASCII.
const hostileText = fc.oneof(
  fc.constantFrom('', 'amount', 'wasm', 'message', 'action', 'sender', '_contract_address'),
  fc.string({
    unit: fc.constantFrom(
      'a',
      '"',
      '\\',
      '\b',
      '\f',
      '\n',
      '\u0001',
      '<',
      '>',
      '&',
      '\u2028',
      '\u2029',
      'é',
      '\ud800',
      '😀',
      '\u007f',
    ),
  }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const attribute = fc.record({ key: hostileText, value: hostileText });
const event = fc.record({
  type: fc.oneof(fc.constantFrom('message', 'wasm', 'transfer', 'coin_spent', ''), hostileText),
  attributes: fc.array(attribute, { maxLength: 6 }),
});
const opener = (action: string): ChainEvent => ({ type: 'message', attributes: [{ key: 'action', value: action }] });
/** A tx's events: ante events, then messages each opened by its `message {action}` event. */
const txEvents = fc
  .tuple(
    fc.array(event, { maxLength: 3 }),
    fc.array(fc.tuple(hostileText, fc.array(event, { maxLength: 5 })), { minLength: 1, maxLength: 3 }),
  )
  .map(([ante, messages]) => [...ante, ...messages.flatMap(([action, own]) => [opener(action), ...own])]);

test('generated events: a rebuilt log is stored by its form and served as the same text', () => {
  fc.assert(
    fc.property(txEvents, fc.constantFrom('by-type', 'as-emitted' as const), (events, form) => {
      const log = messageLog(events, form);
      assert.not.throws(() => JSON.parse(log), 'valid JSON');
      const stored = storedLog(log, 0, events);
      assert.is(logOf(stored, events), log);
      if (log.length > LOG_PACKED_ABOVE) assert.is(stored.form, form);
    }),
    { numRuns: 500 },
  );
});

test('any log, rebuilt or not, is served exactly as the node wrote it', () => {
  // logs close to a rebuilt one (another escaping, a changed byte) and arbitrary text
  const near = fc.tuple(txEvents, fc.nat(), fc.string({ minLength: 1, maxLength: 3 })).map(([events, at, text]) => {
    const log = messageLog(events, 'by-type');
    let i = at % (log.length + 1);
    // a node's text arrives as UTF-8, well-formed: no surrogate pair split by the insertion
    if (i > 0 && /[\ud800-\udbff]/.test(log[i - 1]!)) i--;
    return { events, log: log.slice(0, i) + text + log.slice(i) };
  });
  const restringified = txEvents.map((events) => ({
    events,
    // JSON.stringify's escaping instead of Go's
    log: JSON.stringify(JSON.parse(messageLog(events, 'as-emitted'))),
  }));
  const arbitrary = fc.record({ events: txEvents, log: fc.string({ unit: 'binary', maxLength: 600 }) });
  fc.assert(
    fc.property(fc.oneof(near, restringified, arbitrary), fc.constantFrom(0, 5), ({ events, log }, code) => {
      const stored = storedLog(log, code, events);
      assert.is(logOf(stored, events), log);
      if (code !== 0) assert.is(stored.form, null, 'a failed tx’s log is kept as written');
    }),
    { numRuns: 1000 },
  );
});

test('0.34 attributes are decoded as a Buffer decodes them: UTF-8 text, any bytes, malformed base64', () => {
  const base64 = fc.oneof(
    fc.string({ unit: 'binary' }).map((s) => Buffer.from(s, 'utf8').toString('base64')),
    fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('base64')),
    fc.string({ unit: fc.constantFrom('A', 'b', '+', '/', '=', '-', '_', ' ', '*') }),
  );
  fc.assert(
    fc.property(fc.array(fc.tuple(base64, base64), { maxLength: 5 }), (pairs) => {
      const [decoded] = readEvents(
        [{ type: 'wasm', attributes: pairs.map(([key, value]) => ({ key, value })) }],
        '0.34',
      );
      assert.equal(
        decoded!.attributes,
        pairs.map(([key, value]) => ({
          key: Buffer.from(key, 'base64').toString('utf8'),
          value: Buffer.from(value, 'base64').toString('utf8'),
        })),
      );
    }),
    { numRuns: 1000 },
  );
});

test.run();
