// The API's response cache: tag invalidation, shared in-flight computations, and the
// stale-while-revalidate mode of the token list.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ANY, createResponseCache, tokenTag } from '../../src/api/http/response-cache.ts';
import { sleep } from '../helpers/wait.ts';

const test = suite('response cache');

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
      await sleep(0);
    },
  };
}

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

test('revalidate: the first request waits; after a change the last body is served while one new body is computed', async () => {
  const cache = createResponseCache();
  const g = gate();
  const opts = { maxStaleMs: 1000 };
  const first = cache.remember('list', [ANY], 60_000, g.compute, opts);
  await g.release();
  assert.is(await first, 'body 1');
  assert.is(await cache.remember('list', [ANY], 60_000, g.compute, opts), 'body 1', 'fresh: served without computing');
  assert.is(g.calls(), 1);

  await sleep(200); // past the cooldown (4x the first computation's time)
  cache.invalidate([ANY]);
  assert.is(await cache.remember('list', [ANY], 60_000, g.compute, opts), 'body 1', 'stale body served at once');
  assert.is(await cache.remember('list', [ANY], 60_000, g.compute, opts), 'body 1');
  assert.is(g.calls(), 2, 'one background computation for both requests');
  await g.release();
  assert.is(await cache.remember('list', [ANY], 60_000, g.compute, opts), 'body 2', 'the new body once computed');
});

test('revalidate: past maxStaleMs requests wait for the new body', async () => {
  const cache = createResponseCache();
  const g = gate();
  const opts = { maxStaleMs: 50 };
  const first = cache.remember('list', [ANY], 60_000, g.compute, opts);
  await g.release();
  await first;
  cache.invalidate([ANY]);
  await sleep(80);
  let answered = false;
  const late = cache.remember('list', [ANY], 60_000, g.compute, opts).then((b) => {
    answered = true;
    return b;
  });
  await sleep(20);
  assert.not.ok(answered, 'too stale to serve: waits');
  await g.release();
  assert.is(await late, 'body 2');
});

test('revalidate: the TTL makes a body stale like an invalidation', async () => {
  const cache = createResponseCache();
  const g = gate();
  const opts = { maxStaleMs: 1000 };
  const first = cache.remember('list', [ANY], 30, g.compute, opts);
  await g.release();
  await first;
  await sleep(200); // expired, and past the cooldown
  assert.is(await cache.remember('list', [ANY], 30, g.compute, opts), 'body 1', 'expired: served stale');
  assert.is(g.calls(), 2, 'and recomputed');
  await g.release();
  assert.is(await cache.remember('list', [ANY], 30, g.compute, opts), 'body 2');
});

test('revalidate: a change during the computation leaves its body stale; recomputation waits 4x its duration', async () => {
  const cache = createResponseCache();
  let n = 0;
  const slow = async () => {
    await sleep(100);
    return `body ${++n}`;
  };
  const opts = { maxStaleMs: 5000 };
  assert.is(await cache.remember('list', [ANY], 60_000, slow, opts), 'body 1');
  cache.invalidate([ANY]);
  assert.is(await cache.remember('list', [ANY], 60_000, slow, opts), 'body 1', 'served stale');
  assert.is(
    await cache.remember('list', [ANY], 60_000, slow, opts),
    'body 1',
    'cooling down: 4 x 100 ms since the last computation',
  );
  await sleep(900);
  assert.is(await cache.remember('list', [ANY], 60_000, slow, opts), 'body 1', 'stale still; recomputing now');
  cache.invalidate([ANY]); // during that computation
  await sleep(300);
  assert.is(n, 2);
  assert.is(
    await cache.remember('list', [ANY], 60_000, slow, opts),
    'body 2',
    'the new body, served though already stale',
  );
  await sleep(900);
  await cache.remember('list', [ANY], 60_000, slow, opts);
  await sleep(300);
  assert.is(n, 3, 'the body that went stale during its computation is recomputed');
});

test('revalidate: a failed background computation keeps the old body until maxStaleMs, then the error reaches the request', async () => {
  const cache = createResponseCache();
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
  assert.is(await cache.remember('list', [ANY], 60_000, compute, opts), 'body 1');
  await sleep(80);
  const error = await cache.remember('list', [ANY], 60_000, compute, opts).then(
    () => undefined,
    (e: Error) => e,
  );
  assert.match(error?.message ?? '', /database unavailable/);
  fail = false;
  assert.is(await cache.remember('list', [ANY], 60_000, compute, opts), 'body 2');
});

test.run();
