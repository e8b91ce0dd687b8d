// The dashboard on a chain whose native coin has 18 decimals and another name (INJ, base denom
// `inj`), in headless Chromium: the list, the tape, a live trade and the token page show every
// native amount in INJ with its 18 decimals, prices per whole token of the token's own decimals
// (6 when the index has not read them, 18 for a token that says 18), and no label says NATIVE.
// The index is written directly (no devnet): three tokens with amounts only 18 decimals make
// readable. Without Chromium the file is skipped with the reason, except under CI=true.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LaunchpadApi } from '../../src/api/launchpad/server.ts';
import type { NativeCoin } from '../../src/chain/native-coin.ts';
import { runJobs } from '../../src/db/jobs.ts';
import type { Trade } from '../../src/domain/events.ts';
import { appendToOutbox } from '../../src/feed/outbox.ts';
import { insertTrades } from '../../src/indexer/trades.ts';
import { chromiumMissing, startBrowser, type WatchedBrowser } from '../helpers/browser.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { randomAddress } from '../helpers/devnet.ts';
import { apiCaughtUp, startApi } from '../helpers/launchpad-api.ts';
import { makeTrade } from '../helpers/trades.ts';
import { waitFor } from '../helpers/wait.ts';

const INJ: NativeCoin = { denom: 'inj', display: 'INJ', decimals: 18 };
const E18 = 10n ** 18n;

interface Ctx {
  t: TestDatabase;
  api: LaunchpadApi;
  web: WatchedBrowser;
  /** a token of 6 decimals (unknown to the index: the default) with large reserves and volume */
  big: string;
  /** a token whose contract says 18 decimals */
  eighteen: string;
  /** a token of tiny price and reserves */
  dust: string;
  /** BIG's trades, oldest first */
  bigTrades: Trade[];
}

const test = suite<Ctx>('dashboard with an 18-decimal native coin', {} as Ctx);

const ARTEFACTS = path.resolve(import.meta.dirname, '../../.tmp/e2e');

async function addToken(
  ctx: Ctx,
  fields: { name: string; symbol: string; decimals: number | null; reserves: bigint; price: bigint },
): Promise<string> {
  const address = randomAddress();
  await ctx.t.db.query(
    `INSERT INTO tokens (address, name, symbol, decimals, source, first_seen_at, created_at, creator,
                         native_reserves, current_price, metadata_fetched, last_trade_at)
     VALUES ($1, $2, $3, $4, 'launchpad', now() - interval '2 hours', now() - interval '2 hours', $5, $6, $7, true,
             now() - interval '30 minutes')`,
    [
      address,
      fields.name,
      fields.symbol,
      fields.decimals,
      randomAddress(),
      String(fields.reserves),
      String(fields.price),
    ],
  );
  return address;
}

/** A buy at `price` (native base units per 10^6 token base units) of `tokens` base units. */
const buyAt = (tokenAddress: string, price: bigint, tokens: bigint, time: Date, blockHeight: number): Trade => {
  const volume = (price * tokens) / 1_000_000n;
  return makeTrade({
    time,
    blockHeight,
    tokenAddress,
    priceUnative: price,
    volumeUnative: volume,
    volumeToken: tokens,
    feeUnative: volume / 100n,
    inputAmount: volume + volume / 100n,
    outputAmount: tokens,
  });
};

/** The text of each cell of the token list's row of `address`. */
const rowCells = (page: Page, address: string) =>
  page.$$eval(`#token-rows tr[data-address="${address}"] td`, (tds) => tds.map((td) => td.textContent?.trim()));

/** The token page's details, term → text. */
const details = (page: Page) =>
  page.$$eval('#details dt', (dts) =>
    Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling?.textContent?.trim()])),
  );

/** The price, native and token cells of the token page's trades. */
const tradeCells = (page: Page) =>
  page.$$eval('#trade-rows tr[data-tx]', (trs) =>
    trs.map((tr) => [...tr.querySelectorAll('td')].slice(2, 5).map((td) => td.textContent)),
  );

/** The token's page once its chart is drawn and its trades are shown (a row each, or the placeholder). */
async function openToken(ctx: Ctx, address: string): Promise<Page> {
  const page = await ctx.web.page();
  await page.goto(`${ctx.api.url}/tokens/${address}`);
  await page.waitForFunction(() => (globalThis as unknown as { __chart: { state: string } }).__chart.state === 'ready');
  await page.waitForSelector('#trade-rows tr');
  return page;
}

const missing = chromiumMissing();
if (missing && process.env.CI !== 'true') {
  console.log(`Skipping the 18-decimal dashboard's browser tests: ${missing}`);
  test.skip('the dashboard with an 18-decimal coin in headless Chromium', () => {});
} else if (missing) {
  test('Chromium is installed (CI=true)', () => assert.unreachable(missing));
} else {
  test.before(async (ctx) => {
    ctx.t = await openTestDatabase();
    ctx.big = await addToken(ctx, {
      name: 'Big Reserve',
      symbol: 'BIG',
      decimals: null,
      reserves: 2_500n * E18,
      price: (3n * E18) / 2n,
    });
    ctx.eighteen = await addToken(ctx, {
      name: 'Eighteen',
      symbol: 'EIGHT',
      decimals: 18,
      reserves: (7n * E18) / 10n,
      price: 2_250_000n,
    });
    ctx.dust = await addToken(ctx, { name: 'Dust', symbol: 'DUST', decimals: null, reserves: 5n, price: 40n });
    const at = new Date(Date.now() - 30 * 60_000);
    // 120 INJ for 100 BIG, then 1,234.5 INJ for 823 BIG; and 6.75 INJ for 3 EIGHT
    ctx.bigTrades = [
      buyAt(ctx.big, (6n * E18) / 5n, 100_000_000n, new Date(at.getTime() - 60 * 60_000), 99),
      buyAt(ctx.big, (3n * E18) / 2n, 823_000_000n, at, 100),
    ];
    await insertTrades(ctx.t.db, [...ctx.bigTrades, buyAt(ctx.eighteen, 2_250_000n, 3n * E18, at, 101)]);
    await runJobs(ctx.t.db, 'refresh');
    ctx.api = await startApi(ctx.t.db, { native: INJ, keepaliveMs: 250 });
    ctx.web = await startBrowser();
  });

  test.after(async (ctx) => {
    await ctx.web?.close();
    await ctx.api?.close();
    await ctx.t?.dispose();
  });

  /** The row's price, 24 h volume, 24 h trades and reserves. */
  const pick = (cells: (string | null | undefined)[]) => [cells[1], cells[5], cells[6], cells[9]];

  test('the list: prices, volumes and reserves in INJ of 18 decimals, per token of its own decimals', async (ctx) => {
    const page = await ctx.web.page();
    await page.goto(`${ctx.api.url}/`);
    await page.waitForSelector('body[data-ready="true"]');
    assert.is(await page.textContent('th[data-sort="price"] button'), 'Price (INJ)');
    // token, price, (USD, 1 h, 24 h), 24 h volume, 24 h trades, (market cap, holders), reserves
    assert.equal(pick(await rowCells(page, ctx.big)), ['1.500000', '1,354.5', '2', '2,500']);
    assert.equal(pick(await rowCells(page, ctx.eighteen)), ['2.250000', '6.75', '1', '0.7']);
    assert.equal(
      pick(await rowCells(page, ctx.dust)),
      ['0.000000000000000040', '0', '0', '<0.01'],
      'a price of 40 base units per token: every digit to the first significant ones',
    );
    const tape = await page.$$eval('#tape li .what', (whats) => whats.map((w) => w.textContent));
    assert.equal(tape.sort(), ['BIG 1,234.5 INJ at 1.500000', 'BIG 120 INJ at 1.200000', 'EIGHT 6.75 INJ at 2.250000']);
    const foot = (await page.textContent('footer'))!.replace(/\s+/g, ' ');
    assert.match(foot, 'Prices in INJ per token, amounts in INJ (1 INJ = 1018 inj).');
    assert.is(await page.textContent('footer sup'), '18');
    assert.not.match((await page.textContent('body'))!, /NATIVE|unative/);
    mkdirSync(ARTEFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTEFACTS, 'dashboard-18-decimals.png') });

    // a trade on the feed: 100 BIG at 1.5 INJ each
    assert.ok(
      await waitFor(async () => (await page.textContent('#feed-status')) === 'Live', 10_000),
      'the feed is live',
    );
    const live = { ...buyAt(ctx.big, (3n * E18) / 2n, 100_000_000n, new Date(), 102), nativeReserves: 2_650n * E18 };
    const { blockHeight, time, txHash, txIndex, msgIndex, eventIndex } = live;
    await appendToOutbox(ctx.t.db, [
      { kind: 'trade', at: { blockHeight, time, txHash, txIndex, msgIndex, eventIndex }, trade: live },
    ]);
    await apiCaughtUp(ctx);
    assert.ok(
      await waitFor(async () => (await page.$(`#tape li[data-tx="${live.txHash}"]`)) !== null, 10_000, 50),
      'the feed trade is on the tape',
    );
    assert.is(await page.textContent(`#tape li[data-tx="${live.txHash}"] .what`), 'BIG 150 INJ at 1.500000');
    assert.equal(
      pick(await rowCells(page, ctx.big)),
      ['1.500000', '1,504.5', '3', '2,650'],
      'the row adds the trade and takes its reserves',
    );
    await page.close();
  });

  test('the token page: details, trades and chart in INJ of 18 decimals', async (ctx) => {
    const page = await openToken(ctx, ctx.big);
    const shown = await details(page);
    assert.is(shown.Price, '1.500000 INJ');
    assert.is(shown['24 h volume'], '1,354.5 INJ');
    assert.is(shown.Reserves, '2,500 INJ');
    assert.is(await page.textContent('thead th[data-coin]'), 'INJ', "the trades' native column");
    assert.equal(await tradeCells(page), [
      ['1.500000', '1,234.5', '823'],
      ['1.200000', '120', '100'],
    ]);
    assert.match((await page.textContent('#chart-note'))!, 'in INJ per token; volume in INJ; times in UTC.');
    const drawn = await page.evaluate(() =>
      (
        globalThis as unknown as {
          __chart: { drawn(): { candles: { close: number }[]; volume: { value: number }[] } };
        }
      ).__chart.drawn(),
    );
    // two candles, so the price axis has a range to mark (in INJ per BIG)
    assert.equal(
      drawn.candles.map((c) => c.close),
      [1.2, 1.5],
      'the closes in INJ per BIG',
    );
    assert.equal(
      drawn.volume.map((v) => v.value),
      ctx.bigTrades.map((t) => Number(t.volumeUnative) / 10 ** 18),
    );
    assert.ok(Math.abs(drawn.volume[1]!.value - 1234.5) < 1e-9, 'the volume in INJ');
    assert.not.match((await page.textContent('body'))!, /NATIVE|unative/);
    await page.screenshot({ path: path.join(ARTEFACTS, 'token-page-18-decimals.png') });
    await page.close();

    const eighteen = await openToken(ctx, ctx.eighteen);
    assert.is((await details(eighteen)).Price, '2.250000 INJ', 'per token of 18 decimals');
    assert.equal(await tradeCells(eighteen), [['2.250000', '6.75', '3']], '3 tokens of 18 decimals');
    const close = await eighteen.evaluate(
      () =>
        (globalThis as unknown as { __chart: { drawn(): { candles: { close: number }[] } } }).__chart.drawn().candles[0]
          ?.close,
    );
    assert.is(close, 2.25);
    await eighteen.close();

    const dust = await openToken(ctx, ctx.dust);
    const dustDetails = await details(dust);
    assert.is(dustDetails.Price, '0.000000000000000040 INJ');
    assert.is(dustDetails.Reserves, '<0.01 INJ');
    await dust.close();
  });

  test('no request left 127.0.0.1 and no page logged an error', (ctx) => {
    assert.equal(ctx.web.outside, [], 'requests to other hosts');
    assert.equal(ctx.web.errors, [], 'console errors');
  });
}

test.run();
