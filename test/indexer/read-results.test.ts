// A block's results read on the results worker's thread (large answers) come to exactly
// what reading them on the indexer's thread gives, failures typed alike.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fromBase64 } from '@cosmjs/encoding';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HeightNotAvailableError, NodeUnreachableError, RpcError } from '../../src/chain/errors.ts';
import type { CometProtocol } from '../../src/chain/node-events.ts';
import { BlockShapeError } from '../../src/indexer/errors.ts';
import { readResults, resultsReadInWorker, WORKER_FROM_BYTES } from '../../src/indexer/read-results.ts';
import type { ResultsInput } from '../../src/indexer/shape-results.ts';

const test = suite('block results on the worker thread');
const dir = path.resolve(import.meta.dirname, '../fixtures/real-chains');
const contracts = { launchpad: 'native1launchpad', amm: 'native1amm' };
const INLINE = Number.POSITIVE_INFINITY;
const IN_WORKER = 0;

/** A recorded block and its results (test/fixtures/real-chains/SOURCES.md) as the indexer reads them. */
function recorded(blockFile: string, resultsFile: string, protocol: CometProtocol) {
  const block = JSON.parse(readFileSync(path.join(dir, blockFile), 'utf8'));
  const { block_id, block: b } = block.result ?? block;
  const input: ResultsInput = {
    height: Number(b.header.height),
    time: new Date(b.header.time),
    blockHash: block_id.hash,
    txs: (b.data.txs as string[]).map((t) => fromBase64(t)),
    protocol,
    contracts,
  };
  const text = readFileSync(path.join(dir, resultsFile), 'utf8');
  const results = JSON.parse(text);
  // as the node sends it: the JSON-RPC envelope around the results
  const body = Buffer.from(JSON.stringify('jsonrpc' in results ? results : { jsonrpc: '2.0', id: 1, result: results }));
  return { input, body };
}

const chains = [
  ['comet038-celestia-block-8880520.json', 'comet038-celestia-block_results-8880520.json', '0.38'],
  ['tm034-injective-1-block-4555980.json', 'tm034-injective-1-block_results-4555980.json', '0.34'],
  ['comet037-dydx-mainnet-1-block-10.json', 'comet037-dydx-mainnet-1-block_results-10.json', '0.37'],
] as const;

test('recorded blocks of real chains read the same on the worker as on the indexer thread', async () => {
  for (const [blockFile, resultsFile, protocol] of chains) {
    const { input, body } = recorded(blockFile, resultsFile, protocol);
    const before = resultsReadInWorker();
    const inline = await readResults(Buffer.from(body), input, INLINE);
    assert.is(resultsReadInWorker(), before, 'read on this thread');
    const worked = await readResults(Buffer.from(body), input, IN_WORKER);
    assert.is(resultsReadInWorker(), before + 1, `${resultsFile}: read by the worker`);
    assert.equal(worked, inline, resultsFile);
    assert.is(worked.txs.length, input.txs.length);
    for (const tx of worked.txs) {
      assert.ok(Buffer.isBuffer(tx.packedEvents), 'the stored events are a Buffer, as the writers take them');
      if (tx.log.packed) assert.ok(Buffer.isBuffer(tx.log.packed));
    }
  }
});

test('the celestia block, 287 kB of results, goes to the worker by its size alone', async () => {
  const { input, body } = recorded(chains[0][0], chains[0][1], '0.38');
  assert.ok(body.byteLength >= WORKER_FROM_BYTES, `${body.byteLength} bytes`);
  const before = resultsReadInWorker();
  const shaped = await readResults(body, input);
  assert.is(resultsReadInWorker(), before + 1);
  assert.is(shaped.txs[0]!.hash.length, 64);
  assert.ok(/^[0-9A-F]+$/.test(shaped.txs[0]!.hash), 'upper-case hex');
});

test('many answers in flight at once each come back to their own block', async () => {
  const reads = chains.map(([b, r, p]) => recorded(b, r, p));
  const expected = await Promise.all(reads.map(({ input, body }) => readResults(Buffer.from(body), input, INLINE)));
  const order = Array.from({ length: 24 }, (_, i) => i % reads.length);
  const got = await Promise.all(order.map((i) => readResults(Buffer.from(reads[i]!.body), reads[i]!.input, IN_WORKER)));
  for (const [k, shaped] of got.entries()) assert.equal(shaped, expected[order[k]!], `answer ${k}`);
});

test("the node's failures read on the worker are typed as on the indexer thread", async () => {
  const { input } = recorded(chains[0][0], chains[0][1], '0.38');
  const pruned = Buffer.from(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32603, message: 'Internal error', data: 'height 5 is not available, lowest height is 1200' },
    }),
  );
  for (const where of [INLINE, IN_WORKER]) {
    const failure = await readResults(Buffer.from(pruned), input, where).catch((e) => e);
    assert.instance(failure, HeightNotAvailableError);
    assert.is(failure.reason, 'pruned');
    assert.is(failure.nodeHeight, 1200);
    assert.is(failure.said, 'height 5 is not available, lowest height is 1200');

    const unknown = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 7, error: { code: -32600, message: 'odd' } }));
    const rpc = await readResults(unknown, input, where).catch((e) => e);
    assert.instance(rpc, RpcError);
    assert.is(rpc.code, -32600);

    const page = await readResults(Buffer.from('<html>502 Bad Gateway</html>'), input, where).catch((e) => e);
    assert.instance(page, NodeUnreachableError, 'a body that is not JSON-RPC is a node not answering');

    const fewer = Buffer.from(
      JSON.stringify({ jsonrpc: '2.0', id: 7, result: { height: '8880520', txs_results: [] } }),
    );
    const misfit = await readResults(fewer, input, where).catch((e) => e);
    assert.instance(misfit, BlockShapeError);
    assert.match(misfit.message, /block 8880520 has 5 txs but 0 results/);
  }
});

test.run();
