// GET /cosmos/base/tendermint/v1beta1/blocks/latest and /blocks/{height} over HTTP: blocks
// from the index equal to the node's (cosmjs reading the devnet), in the gateway's shape;
// a second Chain API whose index starts later and stops early reads the blocks it does not
// hold through from the node, identically; every error case.
import { toBase64, toBech32 } from '@cosmjs/encoding';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { ChainApi } from '../../src/api/chain/server.ts';
import { type ChainClient, createChainClient } from '../../src/chain/client.ts';
import { type ChainCtx, chainGet, closeChainApi, openChainApi, startTestChainApi } from '../helpers/chain-api.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { signingClient } from '../helpers/devnet.ts';
import { assertEncodings, getRaw } from '../helpers/http.ts';
import { produceTraffic, startIndexer, withBlocks } from '../helpers/indexing.ts';
import { assertShape, fixture } from '../helpers/rest-shape.ts';
import { sleep } from '../helpers/wait.ts';

interface Late {
  t: TestDatabase;
  chain: ChainClient;
  api: ChainApi;
  /** The index holds [from, to]. */
  from: number;
  to: number;
}

type Ctx = ChainCtx & { late: Late; sendHeight: number };
const test = suite<Ctx>('chain API: blocks', {} as Ctx);
const BLOCKS = '/cosmos/base/tendermint/v1beta1/blocks';

/** A Chain API on an index of its own that holds only heights [from, to] of the devnet. */
async function openLateIndex(ctx: Ctx, from: number): Promise<Late> {
  const t = await openTestDatabase();
  const running = startIndexer(t.db, ctx.devnet, { pollIntervalMs: 100, startHeight: from });
  const to = ctx.devnet.height();
  await running.indexer.waitForHeight(to, 30_000);
  await running.stop();
  const chain = createChainClient(ctx.devnet.rpcUrl);
  return { t, chain, api: await startTestChainApi(t, chain), from, to };
}

test.before(async (ctx) => {
  await openChainApi(ctx);
  const { client, address } = await signingClient(ctx.devnet, 1);
  const sent = await withBlocks(
    ctx.devnet,
    client.sendTokens(address, ctx.devnet.accounts[2]!.address, [{ denom: 'unative', amount: '7' }], 'auto'),
  );
  client.disconnect();
  ctx.sendHeight = sent.height;
  await produceTraffic(ctx.devnet, 4, 3);
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
  ctx.late = await openLateIndex(ctx, ctx.sendHeight + 2);
  // blocks the late index never sees
  await produceTraffic(ctx.devnet, 2, 2);
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
});

test.after(async (ctx) => {
  await ctx.late?.api.close();
  ctx.late?.chain.disconnect();
  await ctx.late?.t.dispose();
  await closeChainApi(ctx);
});

/** What the node says about `height`, through cosmjs, in the gateway's spelling. */
async function nodeBlock(ctx: Ctx, height: number) {
  const { blockId, block } = await ctx.running.chain.comet.block(height);
  return {
    hash: toBase64(blockId.hash),
    height: String(block.header.height),
    chainId: block.header.chainId,
    txs: block.txs.map((t) => toBase64(t)),
    appHash: toBase64(block.header.appHash),
    lastBlockHash: block.header.lastBlockId ? toBase64(block.header.lastBlockId.hash) : null,
    proposer: toBase64(block.header.proposerAddress),
    valcons: toBech32('nativevalcons', block.header.proposerAddress),
    signatures: block.lastCommit?.signatures.length ?? 0,
  };
}

test('every indexed block is the node’s: id, header, txs in order, commit, proposer as valcons', async (ctx) => {
  for (let h = 1; h <= ctx.devnet.height(); h++) {
    const { status, body } = await chainGet(ctx.api, `${BLOCKS}/${h}`);
    assert.is(status, 200, `height ${h}`);
    const node = await nodeBlock(ctx, h);
    assert.is(body.block_id.hash, node.hash, `hash of ${h}`);
    assert.is(body.block.header.height, node.height);
    assert.is(body.block.header.chain_id, node.chainId);
    assert.equal(body.block.data.txs, node.txs, `txs of ${h}`);
    assert.is(body.block.header.app_hash, h === 1 ? null : node.appHash);
    assert.is(body.block.header.last_block_id.hash, node.lastBlockHash);
    assert.is(body.block.header.proposer_address, node.proposer);
    assert.is(body.sdk_block.header.proposer_address, node.valcons);
    assert.is(body.block.last_commit.signatures.length, node.signatures);
    assert.equal(body.block.evidence, { evidence: [] });
    // sdk_block is block with the proposer in bech32
    assert.equal(
      { ...body.sdk_block, header: { ...body.sdk_block.header, proposer_address: node.proposer } },
      body.block,
    );
  }
});

test('header time keeps the nanoseconds of the node’s block', async (ctx) => {
  const raw = (await (
    await fetch(ctx.devnet.rpcUrl, {
      method: 'POST',
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'block', params: { height: String(ctx.sendHeight) } }),
    })
  ).json()) as { result: { block: { header: { time: string } } } };
  const { body } = await chainGet(ctx.api, `${BLOCKS}/${ctx.sendHeight}`);
  // CometBFT trims trailing zeros freely; the gateway prints 0, 3, 6 or 9 digits
  const nanos = (t: string) => (/\.(\d+)Z$/.exec(t)?.[1] ?? '').padEnd(9, '0');
  assert.is(body.block.header.time.slice(0, 19), raw.result.block.header.time.slice(0, 19));
  assert.is(nanos(body.block.header.time), nanos(raw.result.block.header.time));
  assert.match(body.block.header.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.(\d{3}|\d{6}|\d{9}))?Z$/);
});

test('the shape of a node’s block (blocks-latest.json, blocks-height.json, SDK 0.47 fixtures)', async (ctx) => {
  const { body } = await chainGet(ctx.api, `${BLOCKS}/${ctx.sendHeight}`);
  assertShape(body, 'blocks-latest');
  assertShape(body, 'blocks-height');
  assertShape(body, 'blocks-latest-stratos-sdk047');
  assertShape(body, 'blocks-height-stratos-sdk047');
  // a block without txs, and the first block (no parent, empty commit, empty app hash: nulls)
  const noTxs = ['block.data.txs', 'sdk_block.data.txs'];
  assertShape((await chainGet(ctx.api, `${BLOCKS}/${ctx.devnet.height()}`)).body, 'blocks-latest', { empty: noTxs });
  const first = (await chainGet(ctx.api, `${BLOCKS}/1`)).body;
  assertShape(first, 'blocks-latest', {
    nullable: [
      'block.header.last_block_id.hash',
      'block.header.last_block_id.part_set_header.hash',
      'block.header.app_hash',
      'block.last_commit.block_id.hash',
      'block.last_commit.block_id.part_set_header.hash',
      'sdk_block.header.last_block_id.hash',
      'sdk_block.header.last_block_id.part_set_header.hash',
      'sdk_block.header.app_hash',
      'sdk_block.last_commit.block_id.hash',
      'sdk_block.last_commit.block_id.part_set_header.hash',
    ],
    empty: [...noTxs, 'block.last_commit.signatures', 'sdk_block.last_commit.signatures'],
  });
  assert.is(first.block.last_commit.height, '0');
  assert.equal(first.block.last_commit.signatures, []);
  assert.is(body.block.last_commit.signatures[0].block_id_flag, 'BLOCK_ID_FLAG_COMMIT');
  assert.type(body.block.last_commit.round, 'number');
  assert.type(body.block_id.part_set_header.total, 'number');
});

test('a block the index does not hold is read through from the node, identical to the indexed one', async (ctx) => {
  const { late } = ctx;
  assert.ok(late.from > 2 && late.to < ctx.devnet.height(), 'the late index holds a middle range');
  const [low] = await late.t.db.query<{ low: number }>('SELECT min(height) AS low FROM blocks');
  assert.is(Number(low!.low), late.from, 'the late index starts later');
  for (let h = 1; h <= ctx.devnet.height(); h++) {
    const indexed = await chainGet(ctx.api, `${BLOCKS}/${h}`);
    const other = await chainGet(late.api, `${BLOCKS}/${h}`);
    assert.is(other.status, 200, `height ${h}`);
    assert.equal(other.body, indexed.body, `height ${h} (${h < late.from || h > late.to ? 'node' : 'index'})`);
  }
});

test('latest is the node’s tip, also when the index has not reached it', async (ctx) => {
  const tip = (await ctx.running.chain.comet.status()).syncInfo.latestBlockHeight;
  const { status, body } = await chainGet(ctx.api, `${BLOCKS}/latest`);
  assert.is(status, 200);
  assert.is(body.block.header.height, String(tip));
  assert.equal(body, (await chainGet(ctx.api, `${BLOCKS}/${tip}`)).body);
  assertShape(body, 'blocks-latest');
  // the late index stopped below the tip: its latest is the node's block, read through
  const late = await chainGet(ctx.late.api, `${BLOCKS}/latest`);
  assert.ok(tip > ctx.late.to);
  assert.equal(late.body, body);
});

test('latest follows new blocks', async (ctx) => {
  const before = Number((await chainGet(ctx.api, `${BLOCKS}/latest`)).body.block.header.height);
  const made = await ctx.devnet.produceBlock();
  assert.ok(made > before);
  const deadline = Date.now() + 5_000;
  let seen = before;
  while (seen < made && Date.now() < deadline) {
    await sleep(25);
    seen = Number((await chainGet(ctx.late.api, `${BLOCKS}/latest`)).body.block.header.height);
  }
  assert.is(seen, made, 'the new block within 5 s');
  await ctx.running.indexer.waitForHeight(made, 10_000);
});

test('a block is final: ETag and Cache-Control immutable, 304 for a client that holds it, gzip to one that takes it; latest kept a second', async (ctx) => {
  const height = ctx.sendHeight;
  const { json, etag } = await assertEncodings(`${ctx.api.url}${BLOCKS}/${height}`);
  const first = await chainGet(ctx.api, `${BLOCKS}/${height}`);
  assert.is(first.status, 200);
  assert.is(first.headers.get('etag'), `W/${etag}`, 'fetch takes gzip: the weak ETag of that form');
  assert.equal(first.body, JSON.parse(json.toString('utf8')));
  assert.is(first.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  // read through from the node by an index that does not hold it: the same bytes
  const through = await getRaw(`${ctx.late.api.url}${BLOCKS}/${height}`);
  assert.is(through.headers.etag, etag);
  assert.ok(through.body.equals(json));
  // the 304 carries the ETag a 200 to the same request would (RFC 9110 15.4.5): of the gzip
  // form for fetch, which takes gzip; of the JSON's bytes for a client that does not
  for (const held of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
    const res = await fetch(`${ctx.api.url}${BLOCKS}/${height}`, { headers: { 'If-None-Match': held } });
    assert.is(res.status, 304, held);
    assert.is(await res.text(), '', 'no body');
    assert.is(res.headers.get('etag'), `W/${etag}`, held);
    assert.is(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.is(res.headers.get('vary'), 'Accept-Encoding');
    const plain = await getRaw(`${ctx.api.url}${BLOCKS}/${height}`, { 'If-None-Match': held });
    assert.is(plain.status, 304, held);
    assert.is(plain.headers.etag, etag, `${held}: a client that does not take gzip is named the strong ETag`);
  }
  const other = await chainGet(ctx.api, `${BLOCKS}/${height}`, { 'If-None-Match': '"not-this-one"' });
  assert.is(other.status, 200, 'another ETag: the block');
  assert.equal(other.body, first.body);
  const latest = await chainGet(ctx.api, `${BLOCKS}/latest`);
  assert.is(latest.headers.get('cache-control'), 'public, max-age=1', 'latest changes with the next block');
  assert.is(latest.headers.get('content-encoding'), 'gzip');
  const same = await chainGet(ctx.api, `${BLOCKS}/${latest.body.block.header.height}`);
  assert.is(latest.headers.get('etag'), same.headers.get('etag'), 'latest is that block: its ETag');
  const bad = await chainGet(ctx.api, `${BLOCKS}/0`);
  assert.is(bad.status, 400);
  assert.is(bad.headers.get('cache-control'), 'no-store', 'an error is kept by no cache');
  assert.is(bad.headers.get('etag'), null);
});

test('errors: height 0 or negative, above the tip, not a number', async (ctx) => {
  for (const api of [ctx.api, ctx.late.api]) {
    for (const [height, message] of [
      ['0', 'height must be greater than 0, but got 0'],
      ['-3', 'height must be greater than 0, but got -3'],
    ]) {
      const { status, body } = await chainGet(api, `${BLOCKS}/${height}`);
      assert.is(status, 400, height);
      assert.equal(body, { code: 3, message, details: [] });
      assertShape(body, 'error-block-height-nonpositive');
    }
    for (const height of [String(ctx.devnet.height() + 5), '9223372036854775807']) {
      const { status, body } = await chainGet(api, `${BLOCKS}/${height}`);
      assert.is(status, 400, height);
      assert.equal(body, fixture('error-block-height-above-tip'));
    }
    const abc = await chainGet(api, `${BLOCKS}/abc`);
    assert.is(abc.status, 400);
    assert.equal(abc.body, fixture('error-block-height-not-a-number'));
    const big = await chainGet(api, `${BLOCKS}/9223372036854775808`);
    assert.is(big.status, 400);
    assert.is(big.body.code, 3);
    assert.match(big.body.message, 'type mismatch, parameter: height');
  }
});

test('a client holding a block is answered 304 from its remembered ETag when the bytes were let go, the node down', async (ctx) => {
  // read through from the node (the late index does not hold it), by an API whose cache is
  // too small for the block's bytes (as they are: this client does not take gzip) and keeps
  // only validators (an eighth of the blocks' and txs' part, half of it for answers this size)
  const blocksAndTxs = 4096;
  // seven eighths of CACHE_MB are for blocks and txs, the rest for search pages
  const tiny = await startTestChainApi(ctx.late.t, ctx.late.chain, { cacheBytes: Math.ceil((blocksAndTxs * 8) / 7) });
  try {
    const first = await getRaw(`${tiny.url}${BLOCKS}/${ctx.sendHeight}`);
    assert.is(first.status, 200);
    const etag = first.headers.etag!;
    const bytes = first.body.length;
    assert.ok(bytes + 220 > (blocksAndTxs * 7) / 8, `the block's ${bytes} bytes do not fit the cache`);
    await ctx.devnet.pause();
    try {
      const plain = await chainGet(tiny, `${BLOCKS}/${ctx.sendHeight}`);
      assert.is(plain.status, 503, 'its bytes were not kept: the node is needed for them');
      const held = await fetch(`${tiny.url}${BLOCKS}/${ctx.sendHeight}`, { headers: { 'If-None-Match': etag } });
      assert.is(held.status, 304);
      assert.is(await held.text(), '');
      assert.is(held.headers.get('etag'), `W/${etag}`, 'fetch takes gzip: the ETag of the form it would be sent');
      const heldPlain = await getRaw(`${tiny.url}${BLOCKS}/${ctx.sendHeight}`, { 'If-None-Match': `W/${etag}` });
      assert.is(heldPlain.status, 304);
      assert.is(heldPlain.headers.etag, etag, 'a client that does not take gzip: the strong ETag');
      assert.is(held.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      const otherTag = await chainGet(tiny, `${BLOCKS}/${ctx.sendHeight}`, { 'If-None-Match': '"not-this-one"' });
      assert.is(otherTag.status, 503, 'another ETag needs the block');
    } finally {
      await ctx.devnet.resume();
    }
  } finally {
    await tiny.close();
  }
});

test('a node that cannot be reached: indexed blocks still answer, and blocks read before; latest is the newest known; others 503', async (ctx) => {
  // the same index without kept answers: what is not indexed needs the node
  const uncached = await startTestChainApi(ctx.late.t, ctx.late.chain, { cacheBytes: 0 });
  await ctx.devnet.pause();
  try {
    for (const api of [ctx.late.api, uncached]) {
      const indexed = await chainGet(api, `${BLOCKS}/${ctx.late.to}`);
      assert.is(indexed.status, 200);
    }
    // whether or not the node's tip is still cached (its block then answered from memory), a block that exists
    const latest = await chainGet(ctx.late.api, `${BLOCKS}/latest`);
    assert.is(latest.status, 200);
    assert.ok(Number(latest.body.block.header.height) >= ctx.late.to);
    await sleep(600); // past the tip cache: the newest block the index holds
    for (const api of [ctx.late.api, uncached])
      assert.is((await chainGet(api, `${BLOCKS}/latest`)).body.block.header.height, String(ctx.late.to));
    const remembered = await chainGet(ctx.late.api, `${BLOCKS}/1`);
    assert.is(remembered.status, 200, 'a block read through before is final: answered from memory');
    const older = await chainGet(uncached, `${BLOCKS}/1`);
    assert.is(older.status, 503);
    assert.equal(older.body, { code: 14, message: 'the chain node cannot be reached', details: [] });
  } finally {
    await ctx.devnet.resume();
    await uncached.close();
  }
});

test.run();
