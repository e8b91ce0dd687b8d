// GET /api/wallet/prices: NATIVE in USD from the launchpad's oracle price or from PRICE_URL,
// kept 5 minutes (a clock the test moves), 0 with one warning while the source fails, one
// fetch for concurrent callers; PRICE_URL and PRICE_JSON_PATH validated at start.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LaunchpadApi } from '../../src/api/launchpad/server.ts';
import { createPriceSource, PRICE_TTL_MS, type PriceOptions } from '../../src/api/launchpad/wallet/price-source.ts';
import { type ChainClient, createChainClient } from '../../src/chain/client.ts';
import { loadConfig } from '../../src/config.ts';
import type { Devnet } from '../../src/devnet/index.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startDevnet } from '../helpers/devnet.ts';
import { setOraclePrice } from '../helpers/indexing.ts';
import { get } from '../helpers/launchpad-api.ts';
import { countingChain, startWalletApi } from '../helpers/wallet.ts';

interface Ctx {
  t: TestDatabase;
  devnet: Devnet;
  chain: ChainClient & { configQueries: number };
}

const test = suite<Ctx>('wallet: prices', {} as Ctx);

test.before(async (ctx) => {
  ctx.t = await openTestDatabase();
  ctx.devnet = await startDevnet();
  const chain = countingChain(ctx.devnet) as unknown as Ctx['chain'];
  chain.configQueries = 0;
  const smartQuery = chain.smartQuery;
  chain.smartQuery = (contract, query) => {
    if ('config' in query) chain.configQueries++;
    return smartQuery(contract, query);
  };
  ctx.chain = chain;
});

test.after(async (ctx) => {
  ctx.chain?.disconnect();
  await ctx.devnet?.close().catch(() => {});
  await ctx.t?.dispose().catch(() => {});
});

/** A clock the test moves (milliseconds). */
function manualClock() {
  let now = 1_000_000;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** A logger whose warnings the test reads. */
function capturingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, warnings: () => lines.filter((l) => l.level === 40) };
}

/** An HTTP server answering `body()` as JSON, counting requests; `hold` delays each answer until released. */
async function priceServer(body: () => unknown) {
  let hits = 0;
  let held: (() => void)[] | undefined;
  const server: Server = createServer((_req, res) => {
    hits++;
    const answer = () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body()));
    };
    if (held) held.push(answer);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/price`,
    hits: () => hits,
    hold: () => {
      held = [];
    },
    release: () => {
      for (const answer of held ?? []) answer();
      held = undefined;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function withApi(ctx: Ctx, prices: PriceOptions, logger = pino({ level: 'silent' })) {
  return startWalletApi(ctx.t.db, ctx.devnet, ctx.chain, { prices }, { logger });
}

const nativeUsd = async (api: LaunchpadApi) => {
  const { status, body } = await get(api, '/api/wallet/prices');
  assert.is(status, 200);
  assert.equal(Object.keys(body), ['NATIVE']);
  return body.NATIVE as number;
};

test("by default: the launchpad's native_usd_micro ÷ 10^6, asked once per 5 minutes", async (ctx) => {
  const clock = manualClock();
  const api = await withApi(ctx, { clock: clock.now });
  try {
    const before = ctx.chain.configQueries;
    assert.is(await nativeUsd(api), 0.5, "the devnet oracle's default $0.50");
    assert.is(ctx.chain.configQueries - before, 1);
    await setOraclePrice(ctx.devnet, 1_250_000n);
    clock.advance(PRICE_TTL_MS - 1);
    assert.is(await nativeUsd(api), 0.5, 'kept: the new oracle price is not asked for within 5 minutes');
    assert.is(ctx.chain.configQueries - before, 1);
    clock.advance(1);
    assert.is(await nativeUsd(api), 1.25, 'asked again after 5 minutes');
    assert.is(ctx.chain.configQueries - before, 2);
  } finally {
    await api.close();
    await setOraclePrice(ctx.devnet, 500_000n);
  }
});

test('PRICE_URL: the number at PRICE_JSON_PATH (number or decimal string), kept 5 minutes', async (ctx) => {
  let price: unknown = 2.75;
  const source = await priceServer(() => ({ native: { usd: price } }));
  const clock = manualClock();
  const api = await withApi(ctx, { url: source.url, jsonPath: 'native.usd', clock: clock.now });
  try {
    const before = ctx.chain.configQueries;
    assert.is(await nativeUsd(api), 2.75);
    price = '3.5';
    clock.advance(60_000);
    assert.is(await nativeUsd(api), 2.75);
    assert.is(source.hits(), 1, 'a second call within 5 minutes does not ask');
    clock.advance(PRICE_TTL_MS);
    assert.is(await nativeUsd(api), 3.5);
    assert.is(source.hits(), 2);
    assert.is(ctx.chain.configQueries, before, 'the launchpad is not asked when PRICE_URL is set');
  } finally {
    await api.close();
    await source.close();
  }
});

test('a failing source: 0, never an error, and one warning however many requests', async (ctx) => {
  const { logger, warnings } = capturingLogger();
  const clock = manualClock();
  const api = await withApi(ctx, { url: `http://127.0.0.1:${await closedPort()}/price`, clock: clock.now }, logger);
  try {
    for (let i = 0; i < 5; i++) {
      assert.is(await nativeUsd(api), 0);
      clock.advance(PRICE_TTL_MS); // every request asks the source again
    }
    assert.is(warnings().length, 1, JSON.stringify(warnings()));
    assert.match(warnings()[0]!.msg, /price source failed/);
  } finally {
    await api.close();
  }

  // an answer without the number at the path fails the same way
  const source = await priceServer(() => ({ price: 'soon' }));
  const odd = createPriceSource(
    { chain: ctx.chain, launchpad: ctx.devnet.contracts.launchpad, logger },
    {
      url: source.url,
      jsonPath: 'price',
    },
  );
  assert.is(await odd.nativeUsd(), 0);
  assert.is(warnings().length, 2);
  await source.close();
});

test('a source that does not answer within its timeout: 0 and a warning naming the wait, for PRICE_URL and for the launchpad query', async (ctx) => {
  const { logger, warnings } = capturingLogger();
  const silent = await priceServer(() => ({ NATIVE: 9 }));
  silent.hold();
  // a node that takes the launchpad's config query and does not answer it
  const node = createChainClient(silent.url, { protocol: '0.38', attempts: 1, timeoutMs: 30_000 });
  try {
    for (const url of [silent.url, undefined]) {
      const prices = createPriceSource(
        { chain: node, launchpad: ctx.devnet.contracts.launchpad, logger },
        { url, timeoutMs: 200 },
      );
      // the source answers only once released, after both: 0 comes from the wait running out
      assert.is(await prices.nativeUsd(), 0);
    }
    assert.is(silent.hits(), 2, 'each source was asked');
    assert.is(warnings().length, 2, JSON.stringify(warnings()));
    assert.match(JSON.stringify(warnings()[1]), /no answer within 200 ms/);
  } finally {
    silent.release();
    node.disconnect();
    await silent.close();
  }
});

test('concurrent callers share one fetch', async (ctx) => {
  const source = await priceServer(() => ({ NATIVE: 0.42 }));
  source.hold();
  const prices = createPriceSource(
    { chain: ctx.chain, launchpad: ctx.devnet.contracts.launchpad, logger: pino({ level: 'silent' }) },
    { url: source.url },
  );
  const waiting = Array.from({ length: 20 }, () => prices.nativeUsd());
  const deadline = Date.now() + 5_000;
  while (source.hits() === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  source.release();
  assert.equal(await Promise.all(waiting), Array(20).fill(0.42));
  assert.is(source.hits(), 1);
  await source.close();
});

test('PRICE_URL and PRICE_JSON_PATH are validated at start', () => {
  assert.is(loadConfig({}).PRICE_JSON_PATH, 'NATIVE');
  assert.is(loadConfig({}).PRICE_URL, undefined);
  assert.is(
    loadConfig({ PRICE_URL: 'https://prices.example/native', PRICE_JSON_PATH: 'data.0.usd' }).PRICE_JSON_PATH,
    'data.0.usd',
  );
  assert.throws(() => loadConfig({ PRICE_URL: 'ftp://prices.example' }), /PRICE_URL/);
  assert.throws(() => loadConfig({ PRICE_JSON_PATH: 'a..b' }), /PRICE_JSON_PATH/);
});

test.run();
