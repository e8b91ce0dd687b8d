// A block read on the block worker's thread (large blocks) comes to exactly what reading it
// on the indexer's thread gives, failures typed alike.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HeightNotAvailableError, NodeError, NodeUnreachableError, RpcError } from '../../src/chain/errors.ts';
import type { CometProtocol } from '../../src/chain/node-events.ts';
import { BlockShapeError } from '../../src/indexer/errors.ts';
import {
  blocksReadInWorker,
  blockWorkersRunning,
  DEFAULT_READ_THREADS,
  type ReadOptions,
  readBlock,
  setReadThreads,
  stopBlockWorkers,
  WORKER_FROM_BYTES,
} from '../../src/indexer/read-block.ts';
import type { BlockInput } from '../../src/indexer/shape-block.ts';

const test = suite('blocks read on the worker thread');
const dir = path.resolve(import.meta.dirname, '../fixtures/real-chains');
const contracts = { launchpad: 'native1launchpad', amm: 'native1amm' };
const INLINE = { workerFromBytes: Number.POSITIVE_INFINITY };
const IN_WORKER = { workerFromBytes: 0 };

/** A recorded answer (test/fixtures/real-chains/SOURCES.md) as the node sends it: in its JSON-RPC envelope. */
function answer(file: string): Buffer {
  const recorded = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
  return Buffer.from(
    JSON.stringify('jsonrpc' in recorded ? recorded : { jsonrpc: '2.0', id: 1, result: recorded.result ?? recorded }),
  );
}

function recorded(blockFile: string, resultsFile: string, protocol: CometProtocol) {
  const block = answer(blockFile);
  const height = Number(JSON.parse(block.toString()).result.block.header.height);
  const input: BlockInput = { height, protocol, contracts };
  return { block, results: answer(resultsFile), input };
}

const chains = [
  ['comet038-celestia-block-8880520.json', 'comet038-celestia-block_results-8880520.json', '0.38'],
  ['tm034-injective-1-block-4555980.json', 'tm034-injective-1-block_results-4555980.json', '0.34'],
  ['comet037-dydx-mainnet-1-block-10.json', 'comet037-dydx-mainnet-1-block_results-10.json', '0.37'],
] as const;

const copy = (b: Buffer) => Buffer.from(b); // each read its own bytes, as each answer has

test('recorded blocks of real chains read the same on the worker as on the indexer thread', async () => {
  for (const [blockFile, resultsFile, protocol] of chains) {
    const { block, results, input } = recorded(blockFile, resultsFile, protocol);
    const before = blocksReadInWorker();
    const inline = await readBlock(copy(block), copy(results), input, INLINE);
    assert.is(blocksReadInWorker(), before, 'read on this thread');
    const worked = await readBlock(copy(block), copy(results), input, IN_WORKER);
    assert.is(blocksReadInWorker(), before + 1, `${blockFile}: read by the worker`);
    assert.equal(worked, inline, blockFile);
    assert.is(worked.height, input.height);
    assert.ok(worked.txCount > 0, `${blockFile} has txs`);
    const { txs, hashes, attributes } = worked.rows;
    assert.equal([txs.count, hashes.count], [worked.txCount, worked.txCount], 'a row of each a tx');
    assert.ok(attributes.refs.length > 0 && attributes.refs.length % 2 === 0, 'tx and pair, two by two');
  }
});

test('the celestia block, 487 kB of answers, goes to the worker by its size alone', async () => {
  const { block, results, input } = recorded(chains[0][0], chains[0][1], '0.38');
  assert.ok(block.byteLength + results.byteLength >= WORKER_FROM_BYTES);
  const before = blocksReadInWorker();
  const shaped = await readBlock(block, results, input);
  assert.is(blocksReadInWorker(), before + 1);
  assert.match(shaped.hash, /^[0-9A-F]{64}$/, 'upper-case hex');
  assert.is(shaped.rows.txs.count, shaped.txCount);
  assert.is(shaped.chainId, 'celestia');
});

test('many blocks in flight at once each come back as their own', async () => {
  const reads = chains.map(([b, r, p]) => recorded(b, r, p));
  const expected = await Promise.all(reads.map((r) => readBlock(copy(r.block), copy(r.results), r.input, INLINE)));
  const order = Array.from({ length: 24 }, (_, i) => i % reads.length);
  const got = await Promise.all(
    order.map((i) => readBlock(copy(reads[i]!.block), copy(reads[i]!.results), reads[i]!.input, IN_WORKER)),
  );
  for (const [k, shaped] of got.entries()) assert.equal(shaped, expected[order[k]!], `block ${k}`);
});

test('a worker ended mid-read leaves its blocks to this thread, read the same; the next large block starts another', async () => {
  const reads = chains.map(([b, r, p]) => recorded(b, r, p));
  const expected = await Promise.all(reads.map((r) => readBlock(copy(r.block), copy(r.results), r.input, INLINE)));
  const order = Array.from({ length: 30 }, (_, i) => i % reads.length);
  const before = blocksReadInWorker();
  const reading = order.map((i) => readBlock(reads[i]!.block, reads[i]!.results, reads[i]!.input, IN_WORKER));
  await stopBlockWorkers();
  const got = await Promise.all(reading);
  for (const [k, shaped] of got.entries()) assert.equal(shaped, expected[order[k]!], `block ${k}`);
  assert.ok(blocksReadInWorker() - before < order.length, 'some were read here after the worker ended');
  const [first] = reads;
  const again = await readBlock(first!.block, first!.results, first!.input, IN_WORKER);
  assert.equal(again, expected[0]);
  const counted = blocksReadInWorker();
  await readBlock(first!.block, first!.results, first!.input, IN_WORKER);
  assert.is(blocksReadInWorker(), counted + 1, 'a new worker read it');
});

test('answers moved to the worker are gone here; those of blocks a worker ended before reading are asked for again', async () => {
  const reads = chains.map(([b, r, p]) => recorded(b, r, p));
  const expected = await Promise.all(reads.map((r) => readBlock(copy(r.block), copy(r.results), r.input, INLINE)));
  const order = Array.from({ length: 30 }, (_, i) => i % reads.length);
  let askedAgain = 0;
  const before = blocksReadInWorker();
  const sent = order.map((i) => ({ block: copy(reads[i]!.block), results: copy(reads[i]!.results) }));
  const reading = order.map((i, k) =>
    readBlock(sent[k]!.block, sent[k]!.results, reads[i]!.input, {
      workerFromBytes: 0,
      readAgain: async () => {
        askedAgain++;
        return [copy(reads[i]!.block), copy(reads[i]!.results)];
      },
    }),
  );
  assert.ok(
    sent.every((s) => s.block.byteLength === 0 && s.results.byteLength === 0),
    'moved, not copied',
  );
  await stopBlockWorkers();
  const got = await Promise.all(reading);
  for (const [k, shaped] of got.entries()) assert.equal(shaped, expected[order[k]!], `block ${k}`);
  const inWorker = blocksReadInWorker() - before;
  assert.ok(inWorker < order.length, 'some were not read by the worker');
  assert.is(askedAgain, order.length - inWorker, 'each of those asked for again once, the others not at all');

  // a node that fails the second asking fails the read with its own error
  const [first] = reads;
  const lost = readBlock(copy(first!.block), copy(first!.results), first!.input, {
    workerFromBytes: 0,
    readAgain: () => Promise.reject(new NodeUnreachableError('block: the node is gone')),
  }).catch((e) => e);
  await stopBlockWorkers();
  const error = await lost;
  if (error instanceof Error) assert.instance(error, NodeUnreachableError);
  else assert.equal(error, expected[0], 'or the worker had read it before it ended');
});

/** Until no worker runs (an ended worker leaves the pool when its thread has exited). */
async function noWorkers() {
  await stopBlockWorkers();
  for (let i = 0; blockWorkersRunning() > 0 && i < 200; i++) await new Promise((r) => setTimeout(r, 5));
  assert.is(blockWorkersRunning(), 0, 'the workers ended');
}

test('blocks in flight go to as many workers as INDEXER_READ_THREADS allows, each block read as its own', async () => {
  const reads = chains.map(([b, r, p]) => recorded(b, r, p));
  const expected = await Promise.all(reads.map((r) => readBlock(copy(r.block), copy(r.results), r.input, INLINE)));
  const order = Array.from({ length: 24 }, (_, i) => i % reads.length);
  const readAll = () =>
    Promise.all(
      order.map((i) => readBlock(copy(reads[i]!.block), copy(reads[i]!.results), reads[i]!.input, IN_WORKER)),
    );
  try {
    for (const threads of [1, 3]) {
      await noWorkers();
      setReadThreads(threads);
      const before = blocksReadInWorker();
      const got = await readAll();
      for (const [k, shaped] of got.entries())
        assert.equal(shaped, expected[order[k]!], `${threads} threads: block ${k}`);
      assert.is(blocksReadInWorker() - before, order.length, 'every block read by a worker');
      assert.is(blockWorkersRunning(), threads, `${threads} workers started for 24 blocks at once`);
    }
    // a block at a time needs no second worker
    await noWorkers();
    setReadThreads(3);
    for (const i of order.slice(0, 6))
      await readBlock(copy(reads[i]!.block), copy(reads[i]!.results), reads[i]!.input, IN_WORKER);
    assert.is(blockWorkersRunning(), 1, 'one block at a time: one worker');
    // ended mid-read, all three: their blocks are read here, the same
    const reading = readAll();
    await stopBlockWorkers();
    const got = await reading;
    for (const [k, shaped] of got.entries())
      assert.equal(shaped, expected[order[k]!], `after the workers ended: block ${k}`);

    // a block given while the workers end goes to a new one, not to one ending
    await readAll();
    const ending = stopBlockWorkers();
    const [first] = reads;
    const counted = blocksReadInWorker();
    const next = await readBlock(copy(first!.block), copy(first!.results), first!.input, IN_WORKER);
    await ending;
    assert.equal(next, expected[0]);
    assert.is(blocksReadInWorker(), counted + 1, 'read by a worker started for it');

    // workers idle for idleMs end, their memory with them, but for the last one
    await noWorkers();
    setReadThreads(3, { idleMs: 50 });
    await readAll();
    for (let i = 0; blockWorkersRunning() > 1 && i < 200; i++) await new Promise((r) => setTimeout(r, 10));
    assert.is(blockWorkersRunning(), 1, 'the idle workers ended, but for one');
    await new Promise((r) => setTimeout(r, 200));
    assert.is(blockWorkersRunning(), 1, 'the last one stays');
    const before = blocksReadInWorker();
    const again = await readBlock(copy(first!.block), copy(first!.results), first!.input, IN_WORKER);
    assert.equal(again, expected[0]);
    assert.is(blocksReadInWorker(), before + 1, 'and reads the next block');
  } finally {
    setReadThreads(DEFAULT_READ_THREADS);
  }
  assert.throws(() => setReadThreads(0), /whole number from 1/);
});

test("the node's failures read on the worker are typed as on the indexer thread", async () => {
  const { block, results, input } = recorded(chains[0][0], chains[0][1], '0.38');
  const rpcError = (data: string, code = -32603) =>
    Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 7, error: { code, message: 'Internal error', data } }));
  const failure = (b: Buffer, r: Buffer, where: ReadOptions) => readBlock(b, r, input, where).catch((e) => e);
  for (const where of [INLINE, IN_WORKER]) {
    const pruned = await failure(rpcError('height 5 is not available, lowest height is 1200'), copy(results), where);
    assert.instance(pruned, HeightNotAvailableError);
    assert.is(pruned.reason, 'pruned');
    assert.is(pruned.nodeHeight, 1200);
    assert.match(pruned.message, /^block: /, 'named by the call that failed');

    const ahead = await failure(
      copy(block),
      rpcError('height 8880521 must be less than or equal to the current blockchain height 8880520'),
      where,
    );
    assert.instance(ahead, HeightNotAvailableError);
    assert.is(ahead.reason, 'ahead');
    assert.match(ahead.message, /^block_results: /);

    const unknown = await failure(copy(block), rpcError('odd', -32600), where);
    assert.instance(unknown, RpcError);
    assert.is(unknown.code, -32600);

    const page = await failure(copy(block), Buffer.from('<html>502 Bad Gateway</html>'), where);
    assert.instance(page, NodeUnreachableError, 'a body that is not JSON-RPC is a node not answering');

    const nonsense = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 7, result: { block_id: 'x' } }));
    const undecodable = await failure(nonsense, copy(results), where);
    assert.instance(undecodable, NodeError, 'a block cosmjs cannot decode is the node answering nonsense');
    assert.not.instance(undecodable, BlockShapeError);

    const fewer = Buffer.from(
      JSON.stringify({ jsonrpc: '2.0', id: 7, result: { height: '8880520', txs_results: [] } }),
    );
    const misfit = await failure(copy(block), fewer, where);
    assert.instance(misfit, BlockShapeError);
    assert.match(misfit.message, /block 8880520 has 5 txs but 0 results/);

    // a value no column of the index can hold: refused where the block's rows are encoded
    const answer = JSON.parse(results.toString());
    answer.result.txs_results[2].gas_wanted = '99999999999999999999';
    const huge = await failure(copy(block), Buffer.from(JSON.stringify(answer)), where);
    assert.instance(huge, BlockShapeError);
    assert.match(huge.message, /^block 8880520: value "99999999999999999999" is out of range for type bigint/);
  }
});

test.run();
