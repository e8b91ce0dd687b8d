// The dashboard's pages and files over HTTP: served before the rate limit (a client at its
// limit still gets them, and they do not use it up), assets under a content-versioned path
// cached as immutable, pages revalidated with an ETag, this origin only (CSP), and anything
// else under /static an ordinary 404.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LaunchpadApi } from '../../src/api/launchpad/server.ts';
import { CHART_FILE } from '../../src/api/launchpad/web.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startApi } from '../helpers/launchpad-api.ts';

interface Ctx {
  t: TestDatabase;
  api: LaunchpadApi;
  /** `/static/<version>` as the pages name it. */
  assets: string;
}
const test = suite<Ctx>('dashboard pages over HTTP', {} as Ctx);

const LIMIT = 3;

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
  ctx.api = await startApi(ctx.t.db, { rateLimit: { points: LIMIT, windowSeconds: 60, trustedHops: 0 } });
});

test.after(async (ctx) => {
  await ctx.api?.close();
  await ctx.t?.dispose();
});

const fetchPath = (ctx: Ctx, path: string, init: RequestInit = {}) => fetch(`${ctx.api.url}${path}`, init);

test('the pages: HTML with a CSP of this origin only, revalidated by ETag, not counted by the rate limit', async (ctx) => {
  for (const [path, script] of [
    ['/', 'dashboard.js'],
    ['/tokens/native1anything', 'token.js'],
    ['/api/docs', 'docs.js'],
  ] as const) {
    const res = await fetchPath(ctx, path);
    assert.is(res.status, 200, path);
    assert.is(res.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.is(res.headers.get('cache-control'), 'no-cache');
    assert.is(res.headers.get('x-ratelimit-remaining'), null, `${path} is not counted`);
    const csp = res.headers.get('content-security-policy')!;
    assert.match(csp, "default-src 'none'");
    assert.match(csp, "connect-src 'self'");
    assert.match(csp, "img-src 'self' data:");
    const html = await res.text();
    const m = new RegExp(`src="(/static/[0-9a-f]{12})/${script}"`).exec(html);
    assert.ok(m, `${path} loads ${script} from a versioned path`);
    ctx.assets = m![1]!;
    assert.not.match(html, /https?:\/\/(?!www\.tradingview\.com\/lightweight-charts\/)/, 'nothing from another host');
    const etag = res.headers.get('etag')!;
    // a cache that holds it names it alone, weak, or in a list (RFC 9110 13.1.2)
    for (const held of [etag, `W/${etag}`, `"other", ${etag}`]) {
      const again = await fetchPath(ctx, path, { headers: { 'If-None-Match': held } });
      assert.is(again.status, 304, `${path}: ${held}`);
      assert.is(again.headers.get('etag'), etag);
    }
    assert.is((await fetchPath(ctx, path, { headers: { 'If-None-Match': '"other"' } })).status, 200);
  }
  const head = await fetchPath(ctx, '/', { method: 'HEAD' });
  assert.is(head.status, 200);
  assert.is(await head.text(), '');
});

test('assets: immutable for a year under their version; the chart library from its package', async (ctx) => {
  for (const [file, type] of [
    ['style.css', 'text/css'],
    ['common.js', 'text/javascript'],
    [`vendor/${CHART_FILE}`, 'text/javascript'],
  ]) {
    const res = await fetchPath(ctx, `${ctx.assets}/${file}`);
    assert.is(res.status, 200, file);
    assert.is(res.headers.get('content-type'), type);
    assert.is(res.headers.get('cache-control'), 'public,max-age=31536000,immutable');
    assert.is(res.headers.get('x-content-type-options'), 'nosniff');
    assert.is(res.headers.get('x-ratelimit-remaining'), null, `${file} is not counted`);
    assert.ok((await res.arrayBuffer()).byteLength > 0);
    const again = await fetchPath(ctx, `${ctx.assets}/${file}`, {
      headers: { 'If-None-Match': res.headers.get('etag')! },
    });
    assert.is(again.status, 304);
  }
  const library = await (await fetchPath(ctx, `${ctx.assets}/vendor/${CHART_FILE}`)).text();
  assert.match(library, 'createChart');
  assert.not.match(library, /\bimport\s*[{*]|\bfrom\s*["']/, 'standalone: it imports nothing');
});

test('the API calls count: after the pages, a client still has its whole limit', async (ctx) => {
  // every request above used none of the limit; now LIMIT API calls pass and the next is refused
  for (let i = 0; i < LIMIT; i++) {
    const res = await fetchPath(ctx, '/api/openapi.json');
    assert.is(res.status, 200);
    assert.is(res.headers.get('x-ratelimit-remaining'), String(LIMIT - 1 - i));
  }
  assert.is((await fetchPath(ctx, '/api/openapi.json')).status, 429);
  assert.is((await fetchPath(ctx, '/')).status, 200, 'the page is still served');
});

test('anything else under /static, and other methods, are the API 404', async (ctx) => {
  const api = await startApi(ctx.t.db);
  const fetchPath = (path: string, init: RequestInit = {}) => fetch(`${api.url}${path}`, init);
  try {
    for (const path of ['/static/000000000000/style.css', `${ctx.assets}/nothing.js`, `${ctx.assets}/../web.ts`]) {
      const res = await fetchPath(path);
      assert.is(res.status, 404, path);
      assert.equal(await res.json(), {
        error: 'Not found',
        details: [{ message: `no route GET ${new URL(path, 'http://x').pathname}` }],
      });
    }
    const post = await fetchPath('/', { method: 'POST' });
    assert.is(post.status, 404);
    await post.body?.cancel();
  } finally {
    await api.close();
  }
});

test.run();
