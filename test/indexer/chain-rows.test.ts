// A block's txs as the chain index's rows (src/indexer/chain-rows.ts): whatever pairs its txs
// carry, the block's numbered pairs and refs give back each tx's own pairs, in its order.
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chainRows, type FetchedTx } from '../../src/indexer/chain-rows.ts';

const test = suite('chain rows');

const pair = fc.tuple(fc.constantFrom('message.sender', 'message.action', 'transfer.recipient'), fc.string());

function txOf(index: number, attributes: [string, string][]): FetchedTx {
  return {
    hash: index.toString(16).padStart(64, '0').toUpperCase(),
    index,
    code: 0,
    bytes: Uint8Array.of(index % 256),
    codespace: '',
    log: { text: '', packed: null, form: null },
    gasWanted: '200000',
    gasUsed: '100000',
    packedEvents: Buffer.of(0x0e),
    attributes,
  };
}

test('the numbered pairs and refs give back each tx’s pairs; a pair is numbered once a block', () => {
  fc.assert(
    fc.property(
      fc.array(fc.uniqueArray(pair, { selector: ([k, v]) => `${k}\0${v}`, maxLength: 5 }), { maxLength: 12 }),
      (lists) => {
        const txs = lists.map((attributes, i) => txOf(i * 2, attributes)); // tx indexes need not be dense
        const { txs: rows, hashes, attributes } = chainRows(7, new Date(0), txs);
        assert.equal([rows.count, hashes.count], [txs.length, txs.length]);
        const seen = new Set(attributes.keys.map((k, i) => `${k}\0${attributes.values[i]}`));
        assert.is(seen.size, attributes.keys.length, 'each pair numbered once');
        const back = new Map<number, [string, string][]>();
        for (let r = 0; r < attributes.refs.length; r += 2) {
          const i = attributes.refs[r + 1]!;
          const own = back.get(attributes.refs[r]!) ?? [];
          own.push([attributes.keys[i]!, attributes.values[i]!]);
          back.set(attributes.refs[r]!, own);
        }
        for (const t of txs) assert.equal(back.get(t.index) ?? [], t.attributes, `tx ${t.index}`);
      },
    ),
    { numRuns: 200 },
  );
});

test.run();
