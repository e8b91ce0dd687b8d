// The dashboard in headless Chromium against a running service: the token list is the API's,
// the token page draws the API's candles at every timeframe and reloads them on a switch, a
// trade and a launch made on the devnet reach the open pages within seconds, a feed dropped
// by the server resumes without losing events, an unknown token gets its not-found page, and
// the API reference renders every operation; throughout, no request leaves 127.0.0.1 and no
// page logs an error. Screenshots of both pages go to .tmp/e2e/ (and to docs/ with
// UPDATE_SCREENSHOTS=1). Without Chromium the file is skipped with the reason, except under
// CI=true, where that is a failure.
import { copyFileSync, mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LaunchpadApi } from '../../src/api/launchpad/server.ts';
import { notify } from '../../src/feed/notice.ts';
import { indexSource } from '../../src/indexer/indexer.ts';
import { chromiumMissing, startBrowser, type WatchedBrowser } from '../helpers/browser.ts';
import { randomAddress, wasmClient } from '../helpers/devnet.ts';
import { launchToken, withBlocks } from '../helpers/indexing.ts';
import {
  type ApiCtx,
  addOldToken,
  apiCaughtUp,
  closeApi,
  get,
  indexLaunches,
  type OldTokenCtx,
  openApi,
  startApi,
} from '../helpers/launchpad-api.ts';
import { waitFor } from '../helpers/wait.ts';

interface Token {
  address: string;
  source: string;
  graduated: boolean;
  current_price: string;
  volume_24h: string;
  trade_count_24h: number;
  holders: number;
  market_cap_unative: string | null;
  price_change: Record<'5m' | '1h' | '6h' | '24h', string | null>;
}
interface Candle {
  time: string;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}
interface Drawn {
  candles: { time: number; open: number; high: number; low: number; close: number }[];
  volume: { time: number; value: number }[];
}

type Ctx = ApiCtx & OldTokenCtx & { web: WatchedBrowser };
const test = suite<Ctx>('dashboard in a browser', {} as Ctx);

const ARTEFACTS = path.resolve(import.meta.dirname, '../../.tmp/e2e');
const DOCS = path.resolve(import.meta.dirname, '../../docs');
const TIMEFRAMES = ['1m', '5m', '1h', '1d'] as const;

/** A screenshot into .tmp/e2e/; `docs` ones also into docs/ with UPDATE_SCREENSHOTS=1 (the README shows them). */
async function screenshot(page: Page, name: string, docs = false) {
  mkdirSync(ARTEFACTS, { recursive: true });
  const file = path.join(ARTEFACTS, name);
  await page.screenshot({ path: file });
  if (docs && process.env.UPDATE_SCREENSHOTS === '1') copyFileSync(file, path.join(DOCS, name));
}

const tokensOf = async (api: LaunchpadApi) => (await get(api, '/api/tokens')).body.tokens as Token[];

/** What the chart should draw for the API's candles: seconds, NATIVE per token, NATIVE. */
const expectedDrawing = (candles: Candle[]) => ({
  candles: candles.map((c) => ({
    time: Date.parse(c.time) / 1000,
    open: Number(c.open) / 1e6,
    high: Number(c.high) / 1e6,
    low: Number(c.low) / 1e6,
    close: Number(c.close) / 1e6,
  })),
  volume: candles.map((c) => ({ time: Date.parse(c.time) / 1000, value: Number(c.volume) / 1e6 })),
});

const drawn = (page: Page) =>
  page.evaluate(() => {
    const d = (globalThis as unknown as { __chart: { drawn(): Drawn } }).__chart.drawn();
    return {
      candles: d.candles.map(({ time, open, high, low, close }) => ({ time, open, high, low, close })),
      volume: d.volume.map(({ time, value }) => ({ time, value })),
    };
  });

const chartState = (page: Page) =>
  page.evaluate(() => {
    const c = (globalThis as unknown as { __chart: { timeframe: string; state: string; url: string | null } }).__chart;
    return { timeframe: c.timeframe, state: c.state, url: c.url };
  });

/** The chart draws exactly what the API answers for the request it made. */
async function assertChartIsApis(ctx: Ctx, page: Page, what: string) {
  const { url } = await chartState(page);
  const { body } = await get(ctx.api, url!);
  assert.equal(await drawn(page), expectedDrawing(body.candles), `${what}: the chart draws the API's candles`);
  return body.candles as Candle[];
}

/** Clicks a column's header and waits for the rows it orders (drawn with its arrow, on the next frame). */
async function sortBy(page: Page, column: string) {
  await page.click(`th[data-sort="${column}"] button`);
  await page.waitForSelector(`th[data-sort="${column}"][aria-sort="descending"]`, { timeout: 5_000 });
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A curve token of the devnet (one the test can trade). */
async function curveToken(ctx: Ctx): Promise<Token> {
  const token = (await tokensOf(ctx.api)).find(
    (t) => t.source === 'launchpad' && !t.graduated && t.address !== ctx.old,
  );
  assert.ok(token, 'the devnet made a curve token');
  return token!;
}

async function buy(ctx: Ctx, token: string, unative: bigint): Promise<string> {
  const trader = await wasmClient(ctx.devnet, 3);
  try {
    const result = await withBlocks(
      ctx.devnet,
      trader.execute(ctx.devnet.contracts.launchpad, { buy: { token_address: token } }, [
        { denom: 'unative', amount: unative.toString() },
      ]),
    );
    return result.transactionHash;
  } finally {
    trader.client.disconnect();
  }
}

const missing = chromiumMissing();
if (missing && process.env.CI !== 'true') {
  console.log(`Skipping the dashboard's browser tests: ${missing}`);
  test.skip('the dashboard in headless Chromium', () => {});
} else if (missing) {
  test('Chromium is installed (CI=true)', () => assert.unreachable(missing));
} else {
  test.before(async (ctx) => {
    await openApi(ctx);
    await addOldToken(ctx);
    await indexLaunches(ctx, { blocks: 12, rate: 6, graduate: false });
    ctx.web = await startBrowser();
  });

  test.after(async (ctx) => {
    await ctx.web?.close();
    await closeApi(ctx);
  });

  test('on a slow network the list says it is loading, and is ready only once the API list is shown', async (ctx) => {
    const page = await ctx.web.page();
    // the API's own answer, held back (as a slow network would) until the test has seen the page
    // without it: a fixed delay can run out first on a busy machine
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/api/tokens', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(`${ctx.api.url}/`);
    // the script has run and drawn the table at least once (the sort is set, then a frame)
    await page.waitForSelector('th[aria-sort]');
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    assert.is((await page.textContent('#token-rows tr.placeholder'))?.trim(), 'Loading tokens…');
    assert.is(await page.getAttribute('body', 'data-ready'), null, 'not ready before the list is in');
    release();
    await page.waitForSelector('body[data-ready="true"]');
    const shown = await page.$$eval('#token-rows tr[data-address]', (trs) => trs.length);
    assert.is(shown, (await tokensOf(ctx.api)).length);
  });

  test('the list shows the API tokens, sorted by 24 h volume and by any column', async (ctx) => {
    const page = await ctx.web.page();
    await page.goto(`${ctx.api.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    assert.is(await page.textContent('th[data-sort="price"] button'), 'Price (NATIVE)', "the devnet's coin");
    const tokens = await tokensOf(ctx.api);
    const rows = await page.$$eval('#token-rows tr[data-address]', (trs) =>
      trs.map((tr) => ({
        address: tr.getAttribute('data-address'),
        cells: [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim()),
      })),
    );
    assert.equal(
      rows.map((r) => r.address).sort(),
      tokens.map((t) => t.address).sort(),
      'one row for each of the API tokens',
    );
    const volumes = rows.map((r) => BigInt(tokens.find((t) => t.address === r.address)!.volume_24h));
    assert.ok(
      volumes.every((v, i) => i === 0 || volumes[i - 1]! >= v),
      'highest 24 h volume first',
    );
    for (const row of rows) {
      const t = tokens.find((x) => x.address === row.address)!;
      const priceText = `${BigInt(t.current_price) / 1_000_000n}.${(BigInt(t.current_price) % 1_000_000n).toString().padStart(6, '0')}`;
      assert.is(row.cells[1], priceText, 'the price in NATIVE, six decimals');
      assert.is(row.cells[6], String(t.trade_count_24h), 'the 24 h trades');
      assert.is(row.cells[8], String(t.holders), 'the holders');
    }
    await sortBy(page, 'price');
    const byPrice = await page.$$eval('#token-rows tr[data-address]', (trs) => trs.map((tr) => tr.dataset.address));
    const prices = byPrice.map((a) => BigInt(tokens.find((t) => t.address === a)!.current_price));
    assert.ok(
      prices.every((p, i) => i === 0 || prices[i - 1]! >= p),
      'highest price first after sorting by price',
    );
    await sortBy(page, 'volume');
    await screenshot(page, 'dashboard.png', true);
    await page.close();
  });

  test('the list sorts by market cap and price change (tokens without one last); a token page shows its largest holders and top traders', async (ctx) => {
    const page = await ctx.web.page();
    await page.goto(`${ctx.api.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    const tokens = await tokensOf(ctx.api);
    const byApi = (a: string) => tokens.find((t) => t.address === a)!;
    for (const [column, value] of [
      ['mcap', (t: Token) => t.market_cap_unative],
      ['change24h', (t: Token) => t.price_change['24h']],
    ] as const) {
      await sortBy(page, column);
      const shown = await page.$$eval('#token-rows tr[data-address]', (trs) => trs.map((tr) => tr.dataset.address!));
      const values = shown.map((a) => value(byApi(a)));
      const firstNull = values.indexOf(null);
      assert.ok(firstNull === -1 || values.slice(firstNull).every((v) => v === null), `${column}: nulls last`);
      const numbers = values.filter((v): v is string => v !== null).map(Number);
      assert.ok(
        numbers.every((n, i) => i === 0 || numbers[i - 1]! >= n),
        `${column}: largest first`,
      );
    }
    const token = [...tokens].sort((a, b) => b.trade_count_24h - a.trade_count_24h)[0]!;
    await page.goto(`${ctx.api.url}/tokens/${token.address}`);
    await page.waitForSelector('#holder-rows tr');
    const holders = (await get(ctx.api, `/api/tokens/${token.address}/holders?limit=10`)).body.holders as {
      address: string;
    }[];
    const traders = (await get(ctx.api, `/api/tokens/${token.address}/traders?window=24h&limit=10`)).body.traders as {
      address: string;
    }[];
    const titles = (rows: string) =>
      page.$$eval(`${rows} tr td:first-child code`, (codes) => codes.map((c) => c.getAttribute('title')));
    assert.equal(
      await titles('#holder-rows'),
      holders.map((x) => x.address),
      'the largest holders, in order',
    );
    assert.equal(
      await titles('#trader-rows'),
      traders.map((x) => x.address),
      'the top traders, in order',
    );
    await page.close();
  });

  test('the token page draws the API candles at every timeframe; a switch loads them again', async (ctx) => {
    const page = await ctx.web.page();
    const loads: string[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/api/candles/')) loads.push(new URL(r.url()).searchParams.get('timeframe')!);
    });
    await page.goto(`${ctx.api.url}/tokens/${ctx.old}`);
    await page.waitForFunction(
      () => (globalThis as unknown as { __chart: { state: string } }).__chart.state === 'ready',
    );
    assert.is((await chartState(page)).timeframe, '5m', 'the page opens on 5m');
    await assertChartIsApis(ctx, page, '5m');
    for (const timeframe of ['1m', '1h', '1d', '5m'] as const) {
      const before = loads.length;
      await page.click(`button[data-timeframe="${timeframe}"]`);
      await page.waitForFunction((tf) => {
        const c = (globalThis as unknown as { __chart: { state: string; timeframe: string } }).__chart;
        return c.timeframe === tf && c.state === 'ready';
      }, timeframe);
      assert.equal(loads.slice(before), [timeframe], `switching to ${timeframe} requested its candles`);
      assert.is(await page.getAttribute(`button[data-timeframe="${timeframe}"]`, 'aria-pressed'), 'true');
      const candles = await assertChartIsApis(ctx, page, timeframe);
      assert.ok(candles.length > (timeframe === '1d' ? 2 : 0), `${timeframe}: the old token has candles to draw`);
    }
    assert.ok(TIMEFRAMES.every((tf) => loads.includes(tf)));
    await page.click('button[data-timeframe="1h"]');
    await page.waitForFunction(() => {
      const c = (globalThis as unknown as { __chart: { state: string; timeframe: string } }).__chart;
      return c.timeframe === '1h' && c.state === 'ready';
    });
    await screenshot(page, 'token-page.png', true);
    await page.close();
  });

  test('a devnet trade reaches the tape, the row and the last candle within seconds; a launch adds a row', async (ctx) => {
    const token = await curveToken(ctx);
    const list = await ctx.web.page();
    await list.goto(`${ctx.api.url}/`);
    await list.waitForSelector('body[data-ready="true"]');
    const chart = await ctx.web.page();
    await chart.goto(`${ctx.api.url}/tokens/${token.address}?timeframe=1m`);
    await chart.waitForFunction(
      () => (globalThis as unknown as { __chart: { state: string } }).__chart.state === 'ready',
    );
    await assertChartIsApis(ctx, chart, 'before the trade');
    await waitFor(async () => (await chart.textContent('#feed-status')) === 'Live', 10_000);
    await waitFor(async () => (await list.textContent('#feed-status')) === 'Live', 10_000);

    const started = Date.now();
    const hash = await buy(ctx, token.address, 25_000_000n);
    assert.ok(
      await waitFor(async () => (await list.$(`#tape li[data-tx="${hash}"]`)) !== null, 10_000, 50),
      'the trade is on the tape',
    );
    await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 10_000);
    const { body } = await get(ctx.api, `/api/trades/recent?token_address=${token.address}&limit=5`);
    const trade = body.trades.find((t: { tx_hash: string }) => t.tx_hash === hash);
    assert.ok(trade, 'the API has the trade');
    const period = Math.floor(Date.parse(trade.time) / 60_000) * 60;
    assert.ok(
      await waitFor(
        async () => {
          const last = (await drawn(chart)).candles.at(-1);
          return last?.time === period && last.close === Number(trade.price_unative) / 1e6;
        },
        10_000,
        50,
      ),
      "the last candle closes at the trade's price",
    );
    assert.ok(Date.now() - started < 15_000, 'within seconds of the trade');
    assert.ok(await chart.$(`#trade-rows tr[data-tx="${hash}"]`), "the trade is in the token's recent trades");
    const trades = await list.textContent(`#token-rows tr[data-address="${token.address}"] td:nth-child(7)`);
    assert.is(trades, String(token.trade_count_24h + 1), 'the row counts the trade');
    // the page then replaces what it worked out from the feed with the index's candles
    await apiCaughtUp(ctx);
    const { url } = await chartState(chart);
    let expected: ReturnType<typeof expectedDrawing> | undefined;
    assert.ok(
      await waitFor(
        async () => {
          expected = expectedDrawing((await get(ctx.api, url!)).body.candles);
          return JSON.stringify(await drawn(chart)) === JSON.stringify(expected);
        },
        15_000,
        250,
      ),
      "after the trade the chart draws the API's candles",
    );
    await screenshot(chart, 'token-page-live.png');

    const { token: launched } = await launchToken(ctx.devnet, 4, { name: 'Browser Test', symbol: 'BRWSR' });
    assert.ok(
      await waitFor(async () => (await list.$(`#token-rows tr[data-address="${launched}"]`)) !== null, 10_000, 50),
      'the launch adds a row',
    );
    assert.ok(await list.$(`#tape li[data-key="launch:${launched}"]`), 'and is on the tape');
    assert.ok(
      await waitFor(
        async () => (await list.textContent(`tr[data-address="${launched}"] a`)) === 'Browser Test',
        // the index reads the name from the token contract after the launch; the page asks
        // for the token 1, 3, 7, 15 and 31 s after the launch event until it has one
        35_000,
      ),
      "the row gets the token's name from the API",
    );
    await list.close();
    await chart.close();
  });

  test('the feed shows when it is cut, and resumes after the last event it had', async (ctx) => {
    const port = await freePort();
    const options = {
      port,
      rateLimit: { points: 100_000, windowSeconds: 60, trustedHops: 0 },
      index: indexSource(ctx.t.db, ctx.running.indexer),
      keepaliveMs: 250,
    };
    let api = await startApi(ctx.t.db, options);
    const before = ctx.web.errors.length;
    try {
      const page = await ctx.web.page();
      await page.goto(`${api.url}/`);
      await page.waitForSelector('body[data-ready="true"]');
      assert.ok(await waitFor(async () => (await page.textContent('#feed-status')) === 'Live', 10_000));
      await api.close();
      assert.ok(
        await waitFor(async () => (await page.getAttribute('#feed-status', 'data-state')) === 'down', 10_000),
        'the page says the feed is down',
      );
      const token = await curveToken(ctx);
      const hash = await buy(ctx, token.address, 3_000_000n);
      await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 10_000);
      api = await startApi(ctx.t.db, options);
      assert.ok(
        await waitFor(async () => (await page.$(`#tape li[data-tx="${hash}"]`)) !== null, 15_000, 100),
        'the trade made while the feed was down is on the tape (Last-Event-ID)',
      );
      assert.is(await page.textContent('#feed-status'), 'Live');
      await page.close();
    } finally {
      await api.close();
    }
    // the browser logs the stream the server ended and the reconnects it refused; nothing else
    const logged = ctx.web.errors.splice(before);
    assert.ok(
      logged.every((e) => /Failed to load resource: net::ERR_(INCOMPLETE_CHUNKED_ENCODING|CONNECTION_REFUSED)/.test(e)),
      logged.join('\n'),
    );
  });

  test('an unknown or malformed address gets a not-found page', async (ctx) => {
    const page = await ctx.web.page();
    const before = ctx.web.errors.length;
    const unknown = randomAddress();
    await page.goto(`${ctx.api.url}/tokens/${unknown}`);
    await page.waitForSelector('#not-found:not([hidden])');
    assert.is(await page.title(), 'Token not found — Launchpad');
    assert.ok((await page.textContent('#not-found'))!.includes(unknown));
    await page.goto(`${ctx.api.url}/tokens/not-an-address`);
    await page.waitForSelector('#not-found:not([hidden])');
    assert.ok((await page.textContent('#not-found'))!.includes('is not a token address'));
    // the browser logs the API's 404 and 400 as failed loads; nothing else
    const logged = ctx.web.errors.splice(before);
    assert.ok(
      logged.every((e) => /Failed to load resource: the server responded with a status of (404|400)/.test(e)),
      logged.join('\n'),
    );
    await page.close();
  });

  test('the API reference renders every operation of /api/openapi.json', async (ctx) => {
    const page = await ctx.web.page();
    await page.goto(`${ctx.api.url}/`);
    await page.click('a[href="/api/docs"]');
    await page.waitForSelector('body[data-ready="true"]');
    const { body } = await get(ctx.api, '/api/openapi.json');
    const operations = Object.values(body.paths as Record<string, object>).flatMap((item) =>
      Object.keys(item).filter((k) => ['get', 'post'].includes(k)),
    );
    assert.is(await page.locator('section.operation').count(), operations.length);
    assert.ok(await page.locator('#toc a[href="#getApiCandlesTokenAddress"]').count());
    await page.close();
  });

  test('a market cap read after the page loaded reaches the list within a minute, with no feed event', async (ctx) => {
    const page = await ctx.web.page();
    await page.clock.install(); // the page's clock, to be moved a minute on
    await page.goto(`${ctx.api.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    const column = await page.$$eval('thead th', (ths) =>
      ths.findIndex((th) => th.getAttribute('data-sort') === 'mcap'),
    );
    const cell = `#token-rows tr[data-address="${ctx.old}"] td:nth-child(${column + 1})`;
    assert.is((await page.textContent(cell))?.trim(), '—', 'no total supply yet: no market cap');
    // the index reads the token's total supply, as the metadata reader does after a launch
    await ctx.t.db.query(`UPDATE tokens SET total_supply = 1000000000000 WHERE address = $1`, [ctx.old]);
    await notify(ctx.t.db, { kind: 'metadata', tokens: [ctx.old] });
    const capped = await waitFor(
      async () => (await tokensOf(ctx.api)).find((t) => t.address === ctx.old)?.market_cap_unative != null,
      10_000,
    );
    assert.ok(capped, 'the API answers the market cap');
    await page.clock.fastForward(61_000);
    assert.ok(
      await waitFor(async () => (await page.textContent(cell))?.trim() !== '—', 10_000),
      'the list read again, with the market cap',
    );
    assert.match((await page.textContent(cell))!, /\d/, 'the market cap shown');
    await page.close();
  });

  test('no request left 127.0.0.1 and no page logged an error', (ctx) => {
    assert.equal(ctx.web.outside, [], 'requests to other hosts');
    assert.equal(ctx.web.errors, [], 'console errors');
  });
}

test.run();
