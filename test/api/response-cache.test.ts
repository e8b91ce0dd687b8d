// The API's response cache: tag invalidation, shared in-flight computations, and the
// stale-while-revalidate mode of the token list. Time is a clock the tests move by hand and
// every computation ends when the test says so: no test waits for time to pass.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reads, staleTags } from '../../src/api/http/freshness.ts';
import { createResponseCache as createBytesCache, type ResponseCache } from '../../src/api/http/response-cache.ts';

const ANY = 'tokens';
const tokenTag = (address: string) => `token:${address}`;
const holderTag = (address: string) => `holder:${address}`;

const test = suite('response cache');

type Text<F> = F extends (...args: infer A) => Promise<Buffer> ? (...args: A) => Promise<string> : never;

/** The cache under test, its bodies (kept and returned as bytes) read back as the text computed. */
function createResponseCache(options?: Parameters<typeof createBytesCache>[0]) {
  const cache: ResponseCache = createBytesCache(options);
  const text =
    <F extends (...args: never[]) => Promise<Buffer>>(f: F) =>
    (...args: Parameters<F>) =>
      f(...args).then((b) => b.toString());
  return {
    ...cache,
    remember: text(cache.remember) as Text<ResponseCache['remember']>,
    rememberFor: text(cache.rememberFor) as Text<ResponseCache['rememberFor']>,
    rememberTagged: text(cache.rememberTagged) as Text<ResponseCache['rememberTagged']>,
    invalidate: cache.invalidate,
    clear: cache.clear,
  };
}

/** A computation whose bodies are numbered and that ends when told to. */
function gate() {
  let n = 0;
  const waiting: (() => void)[] = [];
  return {
    calls: () => n,
    compute: () => {
      const body = `body ${++n}`;
      return new Promise<string>((resolve) => waiting.push(() => resolve(body)));
    },
    release: async () => {
      for (const go of waiting.splice(0)) go();
      await settled();
    },
  };
}

/** Lets every promise reaction already queued run (they all run before the next macrotask). */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The cache's clock, moved only by the test. */
function manualClock() {
  let now = 1_000;
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

test('a kept body holds its own bytes, not a view of the shared pool a small Buffer made from text is', async () => {
  const cache = createBytesCache();
  for (const text of [
    '{"a":1}',
    JSON.stringify({ list: 'x'.repeat(3000) }),
    JSON.stringify({ list: 'y'.repeat(9000) }),
  ]) {
    const kept = await cache.remember(`k${text.length}`, [ANY], 60_000, async () => text);
    assert.is(kept.toString(), text);
    assert.is(kept.buffer.byteLength, kept.length, `${text.length} bytes`);
    const again = await cache.remember(`k${text.length}`, [ANY], 60_000, async () => 'recomputed');
    assert.is(again, kept, 'the same bytes, kept');
  }
});

test('concurrent misses share one computation; an invalidated tag recomputes', async () => {
  const cache = createResponseCache();
  const g = gate();
  const a = cache.remember('k', [tokenTag('t1')], 60_000, g.compute);
  const b = cache.remember('k', [tokenTag('t1')], 60_000, g.compute);
  await g.release();
  assert.equal([await a, await b], ['body 1', 'body 1']);
  assert.is(g.calls(), 1);
  cache.invalidate([tokenTag('t2')]);
  assert.is(await cache.remember('k', [tokenTag('t1')], 60_000, g.compute), 'body 1', 'another tag leaves it');
  cache.invalidate([tokenTag('t1')]);
  const c = cache.remember('k', [tokenTag('t1')], 60_000, g.compute);
  await g.release();
  assert.is(await c, 'body 2');
});

test('a body whose data changed while it was computed is returned but not kept', async () => {
  const cache = createResponseCache();
  const g = gate();
  const a = cache.remember('k', [ANY], 60_000, g.compute);
  cache.invalidate([ANY]);
  await g.release();
  assert.is(await a, 'body 1');
  const b = cache.remember('k', [ANY], 60_000, g.compute);
  await g.release();
  assert.is(await b, 'body 2');
});

test('a body kept for the time it says: until then, or until its tags are invalidated', async () => {
  const clock = manualClock();
  const cache = createResponseCache({ clock: clock.now });
  const g = gate();
  const ask = (ttlMs: number) =>
    cache.rememberFor('t', [tokenTag('t1')], async () => ({ body: await g.compute(), ttlMs }));
  let answer = ask(10_000);
  await g.release();
  assert.is(await answer, 'body 1');
  clock.advance(9_000);
  assert.is(await ask(1), 'body 1', 'within its own time');
  cache.invalidate([tokenTag('t2')]);
  assert.is(await ask(1), 'body 1', 'another tag leaves it');
  clock.advance(1_001);
  answer = ask(500);
  await g.release();
  assert.is(await answer, 'body 2', 'recomputed once its time is over');
  clock.advance(499);
  assert.is(await ask(1), 'body 2');
  cache.invalidate([tokenTag('t1')]);
  answer = ask(500);
  await g.release();
  assert.is(await answer, 'body 3', 'its tag dropped it');
});

test('tagged bodies: dropped by their own tags or by the tags they computed, kept through others', async () => {
  const clock = manualClock();
  const cache = createResponseCache({ clock: clock.now });
  const g = gate();
  const tagged = (ttlMs?: number) => async () => ({ body: await g.compute(), tags: [tokenTag('held')], ttlMs });
  const ask = (ttlMs?: number) => cache.rememberTagged('h', [holderTag('me')], 2_000, tagged(ttlMs));
  let answer = ask();
  await g.release();
  assert.is(await answer, 'body 1');
  cache.invalidate([ANY, holderTag('someone else'), tokenTag('not held')]);
  assert.is(await ask(), 'body 1', 'other holders and tokens leave it');
  cache.invalidate([tokenTag('held')]);
  answer = ask();
  await g.release();
  assert.is(await answer, 'body 2', 'a token it computed as held drops it');
  cache.invalidate([holderTag('me')]);
  answer = ask();
  cache.invalidate([tokenTag('anything at all')]); // while computing, its tags are not known yet
  await g.release();
  assert.is(await answer, 'body 3');
  answer = ask(600_000);
  await g.release();
  assert.is(await answer, 'body 4', 'an invalidation while computing: not kept');
  clock.advance(60_000);
  assert.is(await ask(), 'body 4', 'the TTL the computation gave (10 min), not the one asked (2 s)');
});

test('revalidate: the first request waits; after a change the last body is served while one new body is computed', async () => {
  const clock = manualClock();
  const cache = createResponseCache({ clock: clock.now });
  const g = gate();
  const opts = { maxStaleMs: 1000 };
  const first = cache.remember('list', [ANY], 60_000, g.compute, opts);
  clock.advance(10); // the first computation takes 10 ms
  await g.release();
  assert.is(await first, 'body 1');
  assert.is(await cache.remember('list', [ANY], 60_000, g.compute, opts), 'body 1', 'fresh: served without computing');
  assert.is(g.calls(), 1);

  clock.advance(40); // the cooldown, 4 x 10 ms, is over
  cache.invalidate([ANY]);
  assert.is(await cache.remember('list', [ANY], 60_000, g.compute, opts), 'body 1', 'stale body served at once');
  assert.is(await cache.remember('list', [ANY], 60_000, g.compute, opts), 'body 1');
  assert.is(g.calls(), 2, 'one background computation for both requests');
  await g.release();
  assert.is(await cache.remember('list', [ANY], 60_000, g.compute, opts), 'body 2', 'the new body once computed');
});

test('revalidate: past maxStaleMs requests wait for the new body', async () => {
  const clock = manualClock();
  const cache = createResponseCache({ clock: clock.now });
  const g = gate();
  const opts = { maxStaleMs: 50 };
  const first = cache.remember('list', [ANY], 60_000, g.compute, opts);
  await g.release();
  await first;
  cache.invalidate([ANY]);
  clock.advance(51);
  let answered = false;
  const late = cache.remember('list', [ANY], 60_000, g.compute, opts).then((b) => {
    answered = true;
    return b;
  });
  await settled();
  assert.not.ok(answered, 'too stale to serve: waits');
  assert.is(g.calls(), 2, 'for the one new computation');
  await g.release();
  assert.is(await late, 'body 2');
});

test('revalidate: the TTL makes a body stale like an invalidation', async () => {
  const clock = manualClock();
  const cache = createResponseCache({ clock: clock.now });
  const g = gate();
  const opts = { maxStaleMs: 1000 };
  const first = cache.remember('list', [ANY], 30, g.compute, opts);
  await g.release();
  await first;
  clock.advance(29);
  assert.is(await cache.remember('list', [ANY], 30, g.compute, opts), 'body 1', 'within the TTL: fresh');
  assert.is(g.calls(), 1, 'not recomputed');
  clock.advance(1);
  assert.is(await cache.remember('list', [ANY], 30, g.compute, opts), 'body 1', 'expired: served stale');
  assert.is(g.calls(), 2, 'and recomputed');
  await g.release();
  assert.is(await cache.remember('list', [ANY], 30, g.compute, opts), 'body 2');
});

test('revalidate: a change during the computation leaves its body stale; recomputation waits 4x its duration', async () => {
  const clock = manualClock();
  const cache = createResponseCache({ clock: clock.now });
  const g = gate();
  const opts = { maxStaleMs: 5000 };
  const first = cache.remember('list', [ANY], 60_000, g.compute, opts);
  clock.advance(100); // the computation takes 100 ms
  await g.release();
  assert.is(await first, 'body 1');
  cache.invalidate([ANY]);
  assert.is(await cache.remember('list', [ANY], 60_000, g.compute, opts), 'body 1', 'served stale');
  clock.advance(399);
  assert.is(
    await cache.remember('list', [ANY], 60_000, g.compute, opts),
    'body 1',
    'cooling down: 4 x 100 ms since the last computation',
  );
  assert.is(g.calls(), 1, 'nothing recomputed while cooling down');
  clock.advance(1);
  assert.is(await cache.remember('list', [ANY], 60_000, g.compute, opts), 'body 1', 'stale still; recomputing now');
  assert.is(g.calls(), 2);
  cache.invalidate([ANY]); // during that computation
  clock.advance(100);
  await g.release();
  assert.is(
    await cache.remember('list', [ANY], 60_000, g.compute, opts),
    'body 2',
    'the new body, served though already stale',
  );
  assert.is(g.calls(), 2, 'cooling down again');
  clock.advance(400);
  assert.is(await cache.remember('list', [ANY], 60_000, g.compute, opts), 'body 2');
  assert.is(g.calls(), 3, 'the body that went stale during its computation is recomputed');
  await g.release();
  assert.is(await cache.remember('list', [ANY], 60_000, g.compute, opts), 'body 3', 'and fresh from then on');
  assert.is(g.calls(), 3);
});

test('revalidate: a failed background computation keeps the old body until maxStaleMs, then the error reaches the request', async () => {
  const clock = manualClock();
  const cache = createResponseCache({ clock: clock.now });
  let fail = false;
  let n = 0;
  const compute = async () => {
    if (fail) throw new Error('database unavailable');
    return `body ${++n}`;
  };
  const opts = { maxStaleMs: 60 };
  assert.is(await cache.remember('list', [ANY], 60_000, compute, opts), 'body 1');
  fail = true;
  cache.invalidate([ANY]);
  assert.is(
    await cache.remember('list', [ANY], 60_000, compute, opts),
    'body 1',
    'served stale; the recomputation fails',
  );
  await settled();
  clock.advance(60);
  assert.is(await cache.remember('list', [ANY], 60_000, compute, opts), 'body 1', 'still within maxStaleMs');
  await settled();
  clock.advance(1);
  const error = await cache.remember('list', [ANY], 60_000, compute, opts).then(
    () => undefined,
    (e: Error) => e,
  );
  assert.match(error?.message ?? '', /database unavailable/);
  fail = false;
  assert.is(await cache.remember('list', [ANY], 60_000, compute, opts), 'body 2');
});

test('a page of past trades is dropped by its tokens’ metadata (the names it shows), never by a new trade', async () => {
  const cache = createResponseCache();
  const change = (kind: 'trades' | 'metadata', tokens: string[]) => {
    const tags = staleTags({ kind, tokens });
    if (tags !== 'all') cache.invalidate(tags);
  };
  const keep = (key: string, address: string | undefined) => {
    const { tags, ttlMs } = reads.tradesBefore(address, true);
    return cache.rememberTagged(key, [], ttlMs, async () => ({ body: `${key}:${Math.random()}`, tags, ttlMs }));
  };
  const one = await keep('one', 'native1a');
  const all = await keep('all', undefined);
  change('trades', ['native1a']);
  assert.is(await keep('one', 'native1a'), one, 'a new trade cannot join a page of past trades');
  assert.is(await keep('all', undefined), all);
  change('metadata', ['native1b']);
  assert.is(await keep('one', 'native1a'), one, "another token's metadata");
  assert.is.not(await keep('all', undefined), all, 'every token’s page shows native1b’s name');
  change('metadata', ['native1a']);
  assert.is.not(await keep('one', 'native1a'), one, 'its name may have come');
});

test('a new oracle price drops the answers in USD (candles at the oracle’s prices), not the native ones', async () => {
  const cache = createResponseCache();
  let n = 0;
  const keep = (key: string, inUsd: boolean) => {
    const { tags, ttlMs } = reads.candles('native1a', inUsd);
    return cache.remember(key, tags, ttlMs, async () => `${key}:${++n}`);
  };
  const [native, usd] = [await keep('native', false), await keep('usd', true)];
  const tags = staleTags({ kind: 'prices' });
  if (tags !== 'all') cache.invalidate(tags);
  assert.is(await keep('native', false), native);
  assert.is.not(await keep('usd', true), usd);
});

test.run();
