// Answers that never change, kept as bytes (src/api/http/http-cache.ts), served by a plain
// HTTP server the way the Chain API and the candles route serve them: how many a budget
// holds once clients that take gzip asked for them, an answer kept gzipped and sent to a
// client that does not take it, a kept answer's time, and the ETags a walk over many small
// answers leaves to the large ones.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { GZIP_ON_LOOP_MAX_BYTES, gzipOrAsIs } from '../../src/api/http/compress.ts';
import {
  createImmutableCache,
  type ImmutableCache,
  render,
  sendNotModified,
  sendRendered,
} from '../../src/api/http/http-cache.ts';
import { getRaw } from '../helpers/http.ts';
import { sleep } from '../helpers/wait.ts';

/** A tx-like answer of about `bytes` of JSON: repetitive, as a tx's JSON is. */
function answerOf(key: string, bytes: number): string {
  const message = { '@type': '/cosmwasm.wasm.v1.MsgExecuteContract', sender: `wasm1${key.padEnd(38, 'q')}`, funds: [] };
  const messages = [];
  for (let size = 0; size < bytes; size += JSON.stringify(message).length)
    messages.push({ ...message, n: messages.length });
  return JSON.stringify({ key, messages });
}

interface Served {
  url: string;
  cache: ImmutableCache;
  /** Answers rendered (a miss of the cache) so far. */
  loads(): number;
  close(): Promise<void>;
}

/** Serves GET /{size}/{key}: an answer of ~size bytes kept for good, or for `keep` ms (?keep=). */
async function serve(cacheBytes: number): Promise<Served> {
  const cache = createImmutableCache(cacheBytes);
  let loads = 0;
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://x');
    const [, size, key] = url.pathname.split('/');
    const keepMs = url.searchParams.has('keep') ? Number(url.searchParams.get('keep')) : undefined;
    if (keepMs === undefined && sendNotModified(req, res, cache, key!)) return;
    const rendered = await cache.remember(key!, async () => {
      loads++;
      return { rendered: render(200, answerOf(key!, Number(size))), immutable: true, keepMs };
    });
    await sendRendered(req, res, rendered, 'immutable', { cache, key: key! });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cache,
    loads: () => loads,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const GZIP = { 'Accept-Encoding': 'gzip' };

const test = suite('answers kept as bytes');

test('a budget that keeps a few answers as they are keeps 40 once clients that take gzip asked for them', async () => {
  const served = await serve(64 * 1024);
  try {
    const keys = Array.from({ length: 40 }, (_, i) => `tx${i}`);
    // as they are: ~7 kB each, 56 KiB of room for their bytes keeps the last few
    for (const key of keys) await getRaw(`${served.url}/7000/${key}`);
    assert.is(served.loads(), 40);
    assert.ok(served.cache.size <= 8, `${served.cache.size} kept as they are`);
    for (const key of keys) await getRaw(`${served.url}/7000/${key}`);
    assert.ok(served.loads() >= 72, `most rendered again (${served.loads() - 40})`);
    // clients that take gzip: each answer is rendered once more, sent and kept gzipped
    const before = served.loads();
    for (const key of keys)
      assert.is((await getRaw(`${served.url}/7000/${key}`, GZIP)).headers['content-encoding'], 'gzip');
    const rendered = served.loads() - before;
    assert.ok(rendered >= 32, `${rendered} rendered for them`);
    assert.is(served.cache.size, 40, 'all of them kept');
    for (const key of keys) {
      const again = await getRaw(`${served.url}/7000/${key}`, GZIP);
      assert.is(again.headers['content-encoding'], 'gzip');
    }
    assert.is(served.loads(), before + rendered, 'none rendered again');
    // a client that does not take gzip gets the same JSON, inflated, nothing rendered
    const plain = await getRaw(`${served.url}/7000/tx0`);
    assert.is(plain.headers['content-encoding'], undefined);
    assert.equal(JSON.parse(plain.body.toString('utf8')).key, 'tx0');
    assert.is(plain.body.toString('utf8'), answerOf('tx0', 7000));
    assert.is(served.loads(), before + rendered);
  } finally {
    await served.close();
  }
});

test('a small answer is sent as it is (its 304 for `*` names that form); an answer kept for a time keeps that time in its gzip form', async () => {
  const served = await serve(1024 * 1024);
  try {
    const small = await getRaw(`${served.url}/300/small`, GZIP);
    assert.is(small.headers['content-encoding'], undefined, 'under 1 KiB: not worth compressing');
    assert.match(small.headers.etag!, /^"/);
    // `*` from a client that takes gzip: the 304 names the form it would be sent, as it is
    const any = await getRaw(`${served.url}/300/small`, { ...GZIP, 'If-None-Match': '*' });
    assert.is(any.status, 304);
    assert.is(any.headers.etag, small.headers.etag);
    const first = await getRaw(`${served.url}/7000/kept?keep=1500`);
    assert.is(first.headers['content-encoding'], undefined);
    const gzipped = await getRaw(`${served.url}/7000/kept?keep=1500`, GZIP);
    assert.is(gzipped.headers['content-encoding'], 'gzip');
    assert.is(gzipped.headers.etag, `W/${first.headers.etag}`);
    assert.is(served.loads(), 2, 'the kept answer, compressed');
    await sleep(1800);
    await getRaw(`${served.url}/7000/kept?keep=1500`, GZIP);
    assert.is(served.loads(), 3, 'its time was over: rendered again');
  } finally {
    await served.close();
  }
});

test('answers on both sides of the size compressed on the event loop are sent gzipped, the same bytes to every client, and inflate to the JSON', async () => {
  const served = await serve(8 * 1024 * 1024);
  try {
    for (const size of [GZIP_ON_LOOP_MAX_BYTES - 2048, GZIP_ON_LOOP_MAX_BYTES + 2048, 1_200_000]) {
      const key = `answer${size}`;
      const plain = await getRaw(`${served.url}/${size}/${key}`);
      assert.is(plain.headers['content-encoding'], undefined);
      assert.is(plain.body.toString('utf8'), answerOf(key, size));
      // two clients that take gzip at once: one compression, the same bytes
      const [a, b] = await Promise.all([
        getRaw(`${served.url}/${size}/${key}`, GZIP),
        getRaw(`${served.url}/${size}/${key}`, GZIP),
      ]);
      for (const sent of [a, b]) {
        assert.is(sent.headers['content-encoding'], 'gzip', `${size} bytes`);
        assert.is(sent.headers.etag, `W/${plain.headers.etag}`);
        assert.is(Number(sent.headers['content-length']), sent.body.length);
      }
      assert.ok(a.body.equals(b.body), `${size} bytes: one gzip for both`);
      assert.ok(gunzipSync(a.body).equals(plain.body), `${size} bytes: the gzip inflates to the JSON`);
      assert.ok(a.body.length < plain.body.length / 3, `${size} bytes compressed to ${a.body.length}`);
    }
    assert.is(served.loads(), 3, 'each answer rendered once');
  } finally {
    await served.close();
  }
});

test('a kept answer holds its own bytes, not a view of a larger allocation: rendered, or gzipped on the event loop or off it', async () => {
  for (const size of [300, 2000, 7000, GZIP_ON_LOOP_MAX_BYTES + 2048, 600_000]) {
    const rendered = render(200, answerOf(`k${size}`, size));
    assert.is(rendered.body.buffer.byteLength, rendered.body.length, `${size} bytes rendered`);
    const gzip = (await gzipOrAsIs(rendered.body))!;
    assert.ok(gzip.length < rendered.body.length, `${size} bytes gzipped`);
    assert.is(gzip.buffer.byteLength, gzip.length, `the gzip of ${size} bytes (${gzip.length})`);
    assert.ok(gunzipSync(gzip).equals(rendered.body));
  }
});

test('a walk over thousands of small answers leaves a large answer its ETag: 304 without rendering it', async () => {
  const served = await serve(512 * 1024);
  try {
    const block = await getRaw(`${served.url}/600000/block1`);
    const smallFirst = await getRaw(`${served.url}/2000/tx0`);
    for (let i = 1; i <= 3000; i++) await getRaw(`${served.url}/2000/tx${i}`);
    const loads = served.loads();
    const held = await getRaw(`${served.url}/600000/block1`, { 'If-None-Match': block.headers.etag! });
    assert.is(held.status, 304);
    assert.is(served.loads(), loads, 'the block was not rendered again');
    // the walk did push the first small answers' ETags out
    const heldSmall = await getRaw(`${served.url}/2000/tx0`, { 'If-None-Match': smallFirst.headers.etag! });
    assert.is(heldSmall.status, 304, 'still 304, once rendered again');
    assert.is(served.loads(), loads + 1);
  } finally {
    await served.close();
  }
});

test('a 304 carries the ETag a 200 to the same request would: whichever form the client names, from the kept bytes or from the ETag alone', async () => {
  // a budget that keeps the small answer's bytes but only the large one's ETag
  const served = await serve(16 * 1024);
  try {
    for (const [size, key, compressible] of [
      [300, 'small', false],
      [7000, 'large', true],
      [40_000, 'too-large-to-keep', true],
    ] as const) {
      const plain = await getRaw(`${served.url}/${size}/${key}`);
      const strong = plain.headers.etag!;
      assert.match(strong, /^"/);
      for (const held of [strong, `W/${strong}`, `"other", W/${strong}`]) {
        const toGzip = await getRaw(`${served.url}/${size}/${key}`, { ...GZIP, 'If-None-Match': held });
        assert.is(toGzip.status, 304, `${key}, ${held}`);
        assert.is(toGzip.headers.etag, compressible ? `W/${strong}` : strong, `${key}, ${held}, takes gzip`);
        assert.is(toGzip.headers.vary, 'Accept-Encoding');
        const toPlain = await getRaw(`${served.url}/${size}/${key}`, { 'If-None-Match': held });
        assert.is(toPlain.status, 304, `${key}, ${held}`);
        assert.is(toPlain.headers.etag, strong, `${key}, ${held}, takes no gzip`);
      }
      const other = await getRaw(`${served.url}/${size}/${key}`, { 'If-None-Match': 'W/"other"' });
      assert.is(other.status, 200, `${key}: another answer's ETag`);
    }
    assert.is(served.loads(), 4, "the answer too large to keep rendered once more, for the other ETag's 200");
  } finally {
    await served.close();
  }
});

test('a load begun before the cache was cleared leaves the loads begun after it shared', async () => {
  const cache = createImmutableCache(1024 * 1024);
  const gates: (() => void)[] = [];
  let loads = 0;
  const load = () => {
    loads++;
    return new Promise<{ rendered: ReturnType<typeof render>; immutable: boolean }>((resolve) =>
      gates.push(() => resolve({ rendered: render(200, '{"a":1}'), immutable: true })),
    );
  };
  const before = cache.remember('k', load);
  cache.clear();
  const after = cache.remember('k', load);
  gates[0]!();
  await before;
  const third = cache.remember('k', load);
  assert.is(loads, 2, 'the third request shares the load begun after clear()');
  gates[1]!();
  await Promise.all([after, third]);
  assert.is(cache.size, 1, 'the load begun after clear() is kept');
});

test.run();
