// How a tx's events are kept (src/chain/stored-events.ts): packed with LZ4 against the
// dictionary, they read back as they were, whatever their size and text; a corrupted row is
// refused with an error, never a crash or a huge allocation; the stored bytes say their length
// as the format says. Rows packed with DEFLATE before read back the same, also when written
// with zlib's default sizes; and the sized DEFLATE and gzip the service still writes (the API's
// gzip, long logs; src/internal/sized-zlib.ts) are plain DEFLATE that any inflater reads.
import zlib from 'node:zlib';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChainEvent, packEvents, unpackEvents } from '../../src/chain/stored-events.ts';
import { sizedDeflateRaw, sizedGzip, sizedInflateRaw } from '../../src/internal/sized-zlib.ts';

const test = suite('stored events');

const attribute = fc.record({
  key: fc.string({ unit: 'grapheme', maxLength: 20 }),
  value: fc.oneof(
    fc.string({ unit: 'binary', maxLength: 200 }),
    fc.string({ unit: 'grapheme-ascii', maxLength: 3000 }),
  ),
});
const events = fc.array(
  fc.record({ type: fc.string({ maxLength: 30 }), attributes: fc.array(attribute, { maxLength: 12 }) }),
  { maxLength: 40 },
);
const restOf = (evs: readonly ChainEvent[]) =>
  evs.map((e) => ({
    type: e.type,
    attributes: e.attributes.map((a) => ({ key: a.key, value: a.value, index: true })),
  }));

test('events of any size and text read back as they were packed', () => {
  fc.assert(
    fc.property(events, (evs) => {
      assert.equal(unpackEvents(packEvents(evs)), restOf(evs));
    }),
    { numRuns: 300 },
  );
});

test('a tx of ~200 kB of events (past any window or output chunk) and incompressible values read back', () => {
  const random = (n: number) =>
    zlib.deflateRawSync(Buffer.from(Array.from({ length: n }, (_, i) => i))).toString('base64');
  const big: ChainEvent[] = Array.from({ length: 400 }, (_, i) => ({
    type: `wasm-event_${i % 7}`,
    attributes: [
      { key: 'payload', value: random(300 + i) },
      { key: 'memo', value: 'é'.repeat(i) },
    ],
  }));
  const packed = packEvents(big);
  assert.ok(packed.length < JSON.stringify(big).length, 'smaller than its text');
  assert.equal(unpackEvents(packed), restOf(big));
});

test('the stored form: marker 0x0e, the compact JSON’s length (uint32 LE), an LZ4 block', () => {
  fc.assert(
    fc.property(events, (evs) => {
      const packed = packEvents(evs);
      const compact = JSON.stringify(evs.map((e) => [e.type, e.attributes.map((a) => [a.key, a.value])]));
      assert.is(packed[0], 0x0e);
      assert.is(packed.readUInt32LE(1), Buffer.byteLength(compact));
    }),
    { numRuns: 100 },
  );
});

test('a corrupted row is refused with an error: truncated, bytes flipped, random, or claiming a length it cannot hold', () => {
  const trade: ChainEvent[] = [
    {
      type: 'wasm-buy',
      attributes: [
        { key: 'buyer', value: 'wasm1qqq' },
        { key: 'tokens_out', value: '123456789' },
      ],
    },
  ];
  const packed = packEvents(trade);
  // a length of 4 GiB − 1 for a few bytes: refused before anything is allocated for it
  const claims = Buffer.from(packed);
  claims.writeUInt32LE(0xffff_ffff, 1);
  assert.throws(() => unpackEvents(claims), /claims 4294967295/);
  assert.throws(() => unpackEvents(packed.subarray(0, 3)), /shorter than its length/);
  assert.throws(() => unpackEvents(packed.subarray(0, packed.length - 3)));
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat(), fc.nat(255), (bytes, at, value) => {
      const row = Buffer.concat([Buffer.from([0x0e]), bytes]);
      for (const candidate of [row, Object.assign(Buffer.from(packed), { [1 + (at % (packed.length - 1))]: value })]) {
        try {
          // a flipped byte may still decode: then it is whatever events it decodes to, never a crash
          unpackEvents(candidate);
        } catch (error) {
          assert.instance(error, Error);
        }
      }
    }),
    { numRuns: 3000 },
  );
});

test('sized DEFLATE and gzip are what zlib’s own inflaters read, with and without a dictionary', () => {
  const dictionary = Buffer.from('["coin_spent",[["spender","'.repeat(30));
  const withDictionary = sizedDeflateRaw(1, dictionary);
  const plain = sizedDeflateRaw(6);
  const gzip = sizedGzip(1);
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 40_000 }), (text) => {
      const bytes = Buffer.from(text);
      assert.ok(zlib.inflateRawSync(withDictionary(text), { dictionary }).equals(bytes));
      assert.ok(zlib.inflateRawSync(plain(bytes)).equals(bytes));
      assert.ok(sizedInflateRaw(plain(bytes)).equals(bytes));
      assert.ok(zlib.gunzipSync(gzip(text)).equals(bytes));
    }),
    { numRuns: 200 },
  );
});

test('DEFLATE written with zlib’s default sizes (rows packed before LZ4) reads back, larger than the sized output chunk', () => {
  fc.assert(
    fc.property(
      fc.string({ unit: 'grapheme-ascii', maxLength: 100_000 }),
      fc.integer({ min: 1, max: 9 }),
      (text, level) => {
        const bytes = Buffer.from(text);
        assert.ok(sizedInflateRaw(zlib.deflateRawSync(bytes, { level })).equals(bytes));
      },
    ),
    { numRuns: 100 },
  );
  // events as the format before the dictionary wrote them: raw DEFLATE of the compact JSON, no marker
  const evs: ChainEvent[] = [{ type: 'transfer', attributes: [{ key: 'amount', value: '1'.repeat(50_000) }] }];
  const compact = JSON.stringify(evs.map((e) => [e.type, e.attributes.map((a) => [a.key, a.value])]));
  assert.equal(unpackEvents(zlib.deflateRawSync(compact, { level: 1 })), restOf(evs));
});

test.run();
