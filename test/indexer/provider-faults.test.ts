// What public RPC providers do to an indexer, each against recorded blocks of real chains
// (test/helpers/recorded-chain.ts): an epoch block's results of several megabytes that come
// slowly, a node behind the index, 429s with Retry-After, a pruned node, a node that keeps
// no block results, a refused websocket.
import { randomBytes } from 'node:crypto';
import { toBech32 } from '@cosmjs/encoding';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createChainClient, FIRST_READ_RETRY_MS } from '../../src/chain/client.ts';
import { backfill, planBackfill } from '../../src/indexer/backfill.ts';
import { createIndexer, type IndexerOptions } from '../../src/indexer/indexer.ts';
import { silentLogger } from '../../src/internal/logger.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { RECORDED, type RecordedChainOptions, startRecordedChain } from '../helpers/recorded-chain.ts';
import { waitFor } from '../helpers/wait.ts';

const test = suite('provider faults');

const contracts = (prefix: string) => ({
  launchpad: toBech32(prefix, randomBytes(32)),
  amm: toBech32(prefix, randomBytes(32)),
});

/** A recorded node, a test database and an indexer on them; `stop` ends all three. */
async function harness(
  node: RecordedChainOptions & { prefix: string },
  indexer: Partial<IndexerOptions> = {},
  client: Parameters<typeof createChainClient>[1] = {},
  t?: TestDatabase,
) {
  const chainNode = await startRecordedChain(node);
  const db = t ?? (await openTestDatabase());
  const chain = createChainClient(chainNode.url, { minRetryMs: 20, ...client });
  const running = createIndexer({
    db: db.db,
    chain,
    contracts: contracts(node.prefix),
    logger: silentLogger,
    pollIntervalMs: 100,
    retryMs: { min: 50, max: 200 },
    startHeight: node.blocks[0]!.height,
    ...indexer,
  });
  return {
    node: chainNode,
    t: db,
    chain,
    indexer: running,
    async stop({ keepDatabase = false } = {}) {
      await running.stop();
      chain.disconnect();
      await chainNode.close();
      if (!keepDatabase) await db.dispose();
    },
  };
}

/** Starts the indexer; what its first check was refused with (undefined: it passed). */
const startRefusal = (h: Awaited<ReturnType<typeof harness>>) => {
  h.indexer.start();
  return h.indexer.checked().then(
    () => undefined,
    (e: Error) => e,
  );
};

test('a block_results of more than 5 MB that comes in pieces slower than the timeout is read, and only it', async () => {
  const recorded = RECORDED.tm034();
  const [b] = recorded.blocks;
  // an epoch block: the recorded begin block events, repeated until the answer passes 5 MB
  const results = JSON.parse(b!.resultsText);
  const events = results.begin_block_events;
  while (JSON.stringify(results).length < 5.2e6) results.begin_block_events.push(...events);
  const resultsText = JSON.stringify(results);
  const h = await harness(
    { ...recorded, blocks: [{ ...b!, resultsText }], slowResults: { chunks: 50, delayMs: 60 } },
    {},
    { timeoutMs: 1000 },
  );
  try {
    h.indexer.start();
    await h.indexer.waitForHeight(b!.height, 60_000);
    const reads = h.node.requests.filter((r) => r.method === 'block_results');
    // one read at start (is there any block result?) and the block's own
    assert.is(reads.length, 2, 'each block_results read once, none repeated');
    const [{ n }] = (await h.t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM txs`)) as [{ n: number }];
    assert.is(n, b!.block.block.data.txs.length);
  } finally {
    await h.stop();
  }
});

test('a node behind the index is lagging, said in the status and waited for; not another chain', async () => {
  const recorded = RECORDED.comet037(); // heights 9 and 10
  const first = await harness(recorded);
  let second: Awaited<ReturnType<typeof harness>> | undefined;
  try {
    first.indexer.start();
    await first.indexer.waitForHeight(10, 30_000);
    await first.stop({ keepDatabase: true });
    // another backend of the same provider, one block behind
    second = await harness({ ...recorded, reached: 1 }, {}, {}, first.t);
    second.indexer.start();
    await second.indexer.checked(); // resolves: not refused
    await waitFor(() => second!.indexer.status().state === 'lagging', 15_000, 20);
    const status = second.indexer.status();
    assert.match(status.error ?? '', /the node is at height 9, behind the index at 10/);
    assert.is(status.indexedHeight, 10);
    second.node.options.reached = 2; // it catches up
    await waitFor(() => second!.indexer.status().state === 'live', 15_000, 20);
    assert.is(second.indexer.status().error, null);
  } finally {
    await second?.stop();
    await first.t.dispose().catch(() => {});
  }
});

test('429s with Retry-After are waited out as the provider says, and indexing goes on', async () => {
  const h = await harness({ ...RECORDED.comet037(), rateLimit: { count: 3, retryAfter: '1' } });
  try {
    h.indexer.start();
    await h.indexer.waitForHeight(10, 30_000);
    const limited = h.node.requests.filter((r) => r.status === 429);
    assert.is(limited.length, 3);
    assert.ok(h.chain.stats.rateLimited >= 3, 'the client counted them');
    const firstAnswered = h.node.requests.find((r) => r.status === 200)!;
    assert.ok(
      firstAnswered.at - limited[0]!.at >= 950,
      `the next request waited the second Retry-After asked for (${firstAnswered.at - limited[0]!.at} ms)`,
    );
    assert.is(h.indexer.status().state, 'live');
  } finally {
    await h.stop();
  }
});

test('a Retry-After of minutes is said in the status (rate_limited), and stopping does not wait it out', async () => {
  const h = await harness({ ...RECORDED.comet037(), rateLimit: { count: 1, retryAfter: '600' } });
  try {
    h.indexer.start();
    assert.ok(await waitFor(() => h.indexer.status().state === 'rate_limited', 10_000, 20), 'rate_limited at once');
    assert.match(h.indexer.status().error ?? '', /429/);
    assert.is(h.node.requests.length, 1, 'nothing more asked of the node meanwhile');
  } finally {
    const started = Date.now();
    await h.stop();
    assert.ok(Date.now() - started < 30_000, 'stopped without waiting the 10 minutes');
  }
});

test('a Retry-After of minutes on a block read is said in the status too, not waited out in silence', async () => {
  const h = await harness({ ...RECORDED.comet037(), rateLimit: { count: 1, retryAfter: '600', method: 'block' } });
  try {
    h.indexer.start();
    assert.ok(await waitFor(() => h.indexer.status().state === 'rate_limited', 10_000, 20), 'rate_limited at once');
    assert.match(h.indexer.status().error ?? '', /block: the node (answered 429|asked to wait)/);
  } finally {
    const started = Date.now();
    await h.stop();
    assert.ok(Date.now() - started < 10_000, 'stopped without waiting the 10 minutes');
  }
});

test('stopping ends the node calls in flight: a block_results that comes slowly is not waited for', async () => {
  // each block_results takes 20 s to come (10 pieces, 2 s apart)
  const h = await harness(
    { ...RECORDED.comet037(), slowResults: { chunks: 10, delayMs: 2000 } },
    {},
    { timeoutMs: 60_000 },
  );
  try {
    h.indexer.start();
    assert.ok(
      await waitFor(() => h.node.requests.filter((r) => r.method === 'block_results').length >= 2, 30_000, 20),
      'the probe, then a block read in flight',
    );
  } finally {
    const started = Date.now();
    await h.stop();
    assert.ok(Date.now() - started < 12_000, `stopped in ${Date.now() - started} ms, not once the 20 s answer came`);
  }
});

test('a node upgraded while indexed (another CometBFT version in its status) is read as its new version says', async () => {
  // dYdX's 0.37 blocks, the node first saying it is 0.34 (as before an upgrade)
  const h = await harness({ ...RECORDED.comet037(), version: '0.34.14', reached: 1 });
  try {
    h.indexer.start();
    await h.indexer.waitForHeight(9, 30_000);
    assert.is(h.chain.protocol, '0.34');
    h.node.options.version = '0.37.2';
    h.node.options.reached = 2;
    await h.indexer.waitForHeight(10, 30_000);
    assert.is(h.chain.protocol, '0.37', 'the new version read from its status');
  } finally {
    await h.stop();
  }
});

test('the APIs’ chain client reads the node’s protocol again after its recheck time, answering with the one it holds meanwhile', async () => {
  const node = await startRecordedChain({ ...RECORDED.comet037(), version: '0.34.14' });
  const api = createChainClient(node.url, { attempts: 1, protocolRecheckMs: 100 });
  const once = createChainClient(node.url, { attempts: 1 });
  try {
    assert.is(api.heldProtocol(), undefined, 'not read yet');
    assert.is(await api.ready(), '0.34');
    assert.is(await once.ready(), '0.34');
    node.options.version = '0.37.2';
    assert.is(api.heldProtocol(), '0.34', 'held until the recheck is due');
    await waitFor(() => api.heldProtocol() === '0.37', 10_000);
    assert.is(await api.ready(), '0.37');
    const statuses = node.requests.filter((r) => r.method === 'status').length;
    for (let i = 0; i < 20; i++) await api.ready();
    assert.ok(node.requests.filter((r) => r.method === 'status').length <= statuses + 1, 'not a read per call');
    assert.is(await once.ready(), '0.34', 'a client without a recheck reads once');
  } finally {
    api.disconnect();
    once.disconnect();
    await node.close();
  }
});

test('the APIs’ chain client, its first read of the protocol failed, asks the node again after a second, not at every call meanwhile', async () => {
  const node = await startRecordedChain({
    ...RECORDED.comet037(),
    version: '0.34.14',
    rateLimit: { count: 1, retryAfter: '0', method: 'status', status: 503 },
  });
  const api = createChainClient(node.url, { attempts: 1, protocolRecheckMs: 60_000 });
  const statuses = () => node.requests.filter((r) => r.method === 'status').length;
  try {
    const first = await api.ready().catch((e: Error) => e);
    assert.instance(first, Error, 'the 503 fails the first read');
    for (let i = 0; i < 20; i++) {
      assert.is(await api.ready().catch((e: Error) => e), first, 'the same failure, the node not asked');
      assert.is(api.heldProtocol(), undefined);
    }
    assert.is(statuses(), 1);
    await new Promise((resolve) => setTimeout(resolve, FIRST_READ_RETRY_MS + 100));
    assert.is(await api.ready(), '0.34', 'asked again once the second passed');
    assert.is(statuses(), 2);
  } finally {
    api.disconnect();
    await node.close();
  }
});

test('many calls in flight at once (a backfill reads 16 blocks at a time) log no "possible memory leak" warning', async () => {
  const node = await startRecordedChain(RECORDED.comet037());
  const chain = createChainClient(node.url, { concurrency: 32 });
  const warnings: string[] = [];
  const listen = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on('warning', listen);
  try {
    const heights = node.options.blocks.map((b) => b.height);
    await Promise.all(Array.from({ length: 32 }, (_, i) => chain.comet.block(heights[i % heights.length]!)));
    await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
    assert.equal(
      warnings.filter((w) => w.startsWith('MaxListenersExceededWarning')),
      [],
    );
  } finally {
    process.off('warning', listen);
    chain.disconnect();
    await node.close();
  }
});

test('a pruned node refuses a start height below what it keeps, naming its lowest height; backfill starts there', async () => {
  const recorded = { ...RECORDED.comet037(), earliest: 10 };
  const h = await harness(recorded, { startHeight: 9 });
  try {
    const error = await startRefusal(h);
    assert.ok(error, 'the start is refused');
    assert.is(error!.name, 'NodeUnsuitableError');
    assert.match(error!.message, /START_HEIGHT is 9, but the node's lowest height is 10/);
    assert.is(h.indexer.status().state, 'failed');

    const refused = await planBackfill({ db: h.t.db, chain: h.chain, from: 9 }).catch((e: Error) => e);
    assert.match((refused as Error).message, /--from 9 is below the lowest height the node keeps, 10/);
    const plan = await planBackfill({ db: h.t.db, chain: h.chain });
    assert.equal(plan, { from: 10, to: 10, movesCursor: true }, 'by default from the lowest height kept');
    await backfill({ db: h.t.db, chain: h.chain, contracts: contracts('dydx'), logger: silentLogger }, plan);
    const [{ n }] = (await h.t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM blocks`)) as [{ n: number }];
    assert.is(n, 1);
  } finally {
    await h.stop();
  }
});

test('a node that keeps no block results is refused at start, saying why', async () => {
  for (const recorded of [RECORDED.comet037(), RECORDED.comet038()]) {
    const h = await harness({ ...recorded, discardResults: true });
    try {
      const error = await startRefusal(h);
      assert.is(error?.name, 'NodeUnsuitableError');
      assert.match(error!.message, /the node keeps no block results .*not persisting (abci|finalize block) responses/);
      const [{ n }] = (await h.t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM blocks`)) as [{ n: number }];
      assert.is(n, 0, 'nothing indexed');
    } finally {
      await h.stop();
    }
  }
});

test('a block whose results are not stored yet (still executing) is waited for, at start and at the tip: never taken for a node that keeps none', async () => {
  const recorded = RECORDED.comet037(); // heights 9 and 10
  // the index has 9; the node reaches 10, still executing it for its first requests
  const h = await harness({ ...recorded, reached: 1 });
  try {
    h.indexer.start();
    await h.indexer.waitForHeight(9, 30_000);
    h.node.options.resultsMissing = { height: 10, times: 6 };
    h.node.options.reached = 2;
    await h.indexer.waitForHeight(10, 30_000);
    await waitFor(() => h.indexer.status().state === 'live', 15_000, 20);
    assert.is(h.node.options.resultsMissing.times, 0, 'asked until they were there');
  } finally {
    await h.stop();
  }
  // a new index started at the tip while the tip executes: its check reads the block below
  const atTip = await harness(
    { ...RECORDED.comet037(), resultsMissing: { height: 10, times: 8 } },
    { startHeight: undefined },
  );
  try {
    atTip.indexer.start();
    await atTip.indexer.checked();
    await atTip.indexer.waitForHeight(10, 30_000);
  } finally {
    await atTip.stop();
  }
});

test('results missing below the tip for good (pruned apart from the blocks) are refused at start, naming the height', async () => {
  const h = await harness({ ...RECORDED.comet037(), resultsMissing: { height: 9, times: Infinity } });
  try {
    const error = await startRefusal(h);
    assert.is(error?.name, 'NodeUnsuitableError');
    assert.match(error!.message, /the node has no block results at height 9, below its tip 10/);
  } finally {
    await h.stop();
  }
});

test('with the websocket refused, new blocks are found by polling', async () => {
  const h = await harness({ ...RECORDED.comet037(), reached: 1 }, { subscribe: true });
  try {
    h.indexer.start();
    await h.indexer.waitForHeight(9, 30_000);
    h.node.options.reached = 2; // a new block
    await h.indexer.waitForHeight(10, 30_000);
    assert.ok(h.node.upgrades >= 1, 'the websocket was asked for and refused');
    assert.is(h.indexer.status().state, 'live');
  } finally {
    await h.stop();
  }
});

test.run();
