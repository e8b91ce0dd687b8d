// The devnet's block log record: a block written and read back serves the same txs and the
// same results, whether its record says how long its results are inflated (since that was
// kept) or not (a data directory written before).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  type BlockHeader,
  type CommittedBlock,
  compressResults,
  NO_BLOCK_EVENTS,
  packTxs,
  type RenderedTxResult,
  resultsBytes,
  resultsJson,
  txAt,
} from '../../src/devnet/blocks/block.ts';
import { decodeBlock, encodeBlock } from '../../src/devnet/blocks/block-codec.ts';

const hash = (seed: number) => Uint8Array.from({ length: 32 }, (_, i) => (seed * 31 + i) % 256);

/** A block of `count` txs whose results (events with text that is not ASCII) inflate to far more than zlib's 16 KiB chunk. */
function block(count: number): { block: CommittedBlock; rendered: RenderedTxResult[] } {
  const rendered = Array.from({ length: count }, (_, i) => ({
    code: 0,
    data: null,
    log: '',
    info: '',
    gas_wanted: '200000',
    gas_used: String(100_000 + i),
    events: [
      {
        type: 'wasm-trade',
        attributes: [
          { key: 'trader', value: `cosmos1trader${i}`, index: true },
          { key: 'memo', value: `näive ✓ ${i}`, index: true },
        ],
      },
    ],
    codespace: '',
  }));
  const txs = Array.from({ length: count }, (_, i) =>
    Uint8Array.from({ length: 100 + (i % 7) }, (_, j) => (i + j) % 256),
  );
  const header: BlockHeader = {
    chainId: 'codec-1',
    height: 7,
    timeNs: 1_700_000_000_123_456_789n,
    lastBlockHash: hash(1),
    lastPartsHash: hash(2),
    lastCommitHash: hash(3),
    dataHash: hash(4),
    validatorsHash: hash(5),
    consensusHash: hash(6),
    appHash: hash(7),
    lastResultsHash: hash(8),
    evidenceHash: hash(9),
    proposerAddress: hash(10).subarray(0, 20),
  };
  return {
    rendered,
    block: {
      header,
      hash: hash(11),
      partsHash: hash(12),
      txCount: count,
      txBytes: txs.reduce((n, tx) => n + tx.length, 0),
      ...packTxs(txs),
      ...compressResults(rendered),
      calls: [],
      blockEvents: NO_BLOCK_EVENTS,
    },
  };
}

/** `encoded` with `resultsLength` taken out of its header, as a record written before it was kept. */
function withoutResultsLength(encoded: Uint8Array): Uint8Array {
  const buf = Buffer.from(encoded);
  const metaLength = buf.readUInt32LE(0);
  const meta = JSON.parse(buf.subarray(4, 4 + metaLength).toString('utf8'));
  assert.type(meta.resultsLength, 'number', 'the record says how long the results are');
  delete meta.resultsLength;
  const metaBytes = Buffer.from(JSON.stringify(meta));
  const length = Buffer.alloc(4);
  length.writeUInt32LE(metaBytes.length);
  return Buffer.concat([length, metaBytes, buf.subarray(4 + metaLength)]);
}

test('a block read back from its record serves the same txs and results, with and without the results’ length', () => {
  const { block: written, rendered } = block(2_000);
  const json = JSON.stringify(rendered);
  assert.is(written.resultsLength, Buffer.byteLength(json));
  assert.ok(written.resultsLength > 16 * 1024 * 10, 'results of many zlib chunks');
  for (const [form, record] of [
    ['as written now', encodeBlock(written)],
    ['as written before', withoutResultsLength(encodeBlock(written))],
  ] as const) {
    const read = decodeBlock(record);
    assert.is(read.resultsLength, form === 'as written now' ? written.resultsLength : 0, form);
    assert.is(resultsBytes(read).toString('utf8'), json, form);
    assert.equal(JSON.parse(resultsJson(read)), rendered, form);
    assert.is(read.txCount, written.txCount);
    for (const i of [0, 1, 999, 1_999]) {
      assert.is(txAt(read, i).length, 100 + (i % 7), `${form}: tx ${i}'s length`);
      assert.ok(Buffer.from(txAt(read, i)).equals(Buffer.from(txAt(written, i))), `${form}: tx ${i}`);
    }
    assert.equal(read.header, written.header, form);
  }
});

test.run();
