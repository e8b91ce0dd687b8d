// Property: whatever a client sends to the wallet routes (balance, tokens, transactions,
// prices, broadcast), the Launchpad API answers with a 2xx or 4xx and JSON (never a 5xx), and
// keeps serving. Generated hostile input (test/helpers/hostile.ts) goes to every parameter:
// addresses of every shape, numbers, cursors, unicode, SQL fragments, overlong values,
// repeated parameters, percent-encoding mistakes, and broadcast bodies that are not a
// signed transaction (none is broadcast: the node's mempool is asked for nothing).
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { LaunchpadApi } from '../../src/api/launchpad/server.ts';
import type { ChainClient } from '../../src/chain/client.ts';
import { signedTxBytes } from '../../src/chain/signed-tx.ts';
import type { Devnet } from '../../src/devnet/index.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/database.ts';
import { startDevnet } from '../helpers/devnet.ts';
import {
  addressesWith,
  checkWith,
  encodingMistakesWith,
  expectAnswer,
  holds,
  hostileFrom,
  inUrl,
  junkFrom,
  known,
  numbersWith,
  overlongFrom,
  paramWith,
  protoKeysWith,
  query,
  recordErrors,
  setUpBefore,
  sqlWith,
  unicodeWith,
} from '../helpers/hostile.ts';
import { produceTraffic, startIndexer } from '../helpers/indexing.ts';
import { countingChain, startWalletApi } from '../helpers/wallet.ts';

const test = suite('wallet: hostile input');
const ctx = {} as {
  t: TestDatabase;
  devnet: Devnet;
  running: ReturnType<typeof startIndexer>;
  chain: ChainClient & { broadcasts: number };
  api: LaunchpadApi;
  /** the devnet's accounts, some with a history */
  accounts: string[];
  /** a real `next_cursor` of a history page */
  cursor: string;
};

const { serverErrors, logger } = recordErrors();

// Each property's share of the run (about 300 requests in all).
const RUNS = { balance: 50, tokens: 50, transactions: 90, cursor: 40, prices: 20, broadcast: 90 };

setUpBefore(test, async () => {
  ctx.t = await openTestDatabase();
  ctx.devnet = await startDevnet();
  ctx.running = startIndexer(ctx.t.db, ctx.devnet, { pollIntervalMs: 100 });
  await produceTraffic(ctx.devnet, 6, 4);
  await ctx.running.indexer.waitForHeight(ctx.devnet.height(), 30_000);
  ctx.chain = countingChain(ctx.devnet);
  ctx.api = await startWalletApi(ctx.t.db, ctx.devnet, ctx.chain, {}, { logger });
  ctx.accounts = ctx.devnet.accounts.map((a) => a.address);
  const { next_cursor } = (await (
    await fetch(`${ctx.api.url}/api/wallet/transactions?address=${ctx.accounts[0]}&limit=1`)
  ).json()) as { next_cursor: string | null };
  ctx.cursor = next_cursor ?? '1-0';
});

test.after(async () => {
  for (const step of [() => ctx.api?.close(), () => ctx.running?.stop(), () => ctx.devnet?.close()])
    await step()?.catch(() => {});
  ctx.chain?.disconnect();
  await ctx.t?.dispose();
});

const knownAccount = known(() => ctx.accounts);

const addresses = addressesWith({
  known: [{ weight: 4, arbitrary: knownAccount }],
  prefixes: ['native', 'cosmos', 'nativevaloper', 'a', 'NATIVE', '', 'x'.repeat(83)],
  lengths: [0, 1, 19, 20, 21, 32, 33, 64],
  mangled: knownAccount,
});

const numbers = numbersWith({
  texts: ['5.', '1E2', '0X1F', '1e308', 'undefined', '1_000'],
  bigIntBound: 2n ** 70n,
  more: [fc.nat().map((n) => `0x${n.toString(16)}`)],
});

const cursors = fc.oneof(
  fc.constant(null).map(() => ctx.cursor),
  fc.tuple(fc.bigInt({ min: -3n, max: 2n ** 40n }), fc.integer({ min: -3, max: 70_000 })).map(([h, i]) => `${h}-${i}`),
  fc.constantFrom('0-0', '1-65535', '2147483647-65535', '2147483648-0', '1-', '-1', '1--1', '1-1-1', '١-١', '1.0-0'),
);

const unicode = unicodeWith(knownAccount);
const sql = sqlWith("'; DROP TABLE txs; --", "' OR 1=1 --", "native1'::text");
const overlong = overlongFrom(10_000, ['9', 'a', '%41', '-']);

const hostile = hostileFrom({
  numbers,
  addresses,
  own: [{ weight: 3, arbitrary: inUrl(cursors) }],
  unicode,
  sql,
  protoKeys: protoKeysWith('valueOf'),
  encodingMistakes: encodingMistakesWith('%C0%AF', '%2525', '&&', '1%2C2'),
  overlong,
});

const param = paramWith();
const junkParams = junkFrom(hostile);

const check = checkWith(
  () => ctx.api.url,
  (r, a) => expectAnswer(r, a, { serverErrors }),
);

test('GET /api/wallet/balance and /api/wallet/tokens: any address is a 200 or a 400', async () => {
  for (const [path, runs] of [
    ['/api/wallet/balance', RUNS.balance],
    ['/api/wallet/tokens', RUNS.tokens],
  ] as const) {
    await holds(
      fc.asyncProperty(param('address', hostile(inUrl(addresses))), junkParams, async (address, junk) => {
        const url = `${path}${query([address, ...junk])}`;
        const a = await check({ path: url });
        assert.ok([200, 400, 431].includes(a.status), `${url} → ${a.status}`);
      }),
      runs,
    );
  }
});

test('GET /api/wallet/transactions: address, limit, page and cursor', async () => {
  const limits = fc.integer({ min: 1, max: 100 }).map(String);
  const pages = fc.integer({ min: 1, max: 5 }).map(String);
  await holds(
    fc.asyncProperty(
      param('address', hostile(inUrl(addresses))),
      param('limit', hostile(limits)),
      param('page', hostile(pages)),
      param('cursor', hostile(inUrl(cursors))),
      junkParams,
      async (address, limit, page, cursor, junk) => {
        const url = `/api/wallet/transactions${query([address, limit, page, cursor, ...junk])}`;
        const a = await check({ path: url });
        assert.ok([200, 400, 431].includes(a.status), `${url} → ${a.status}`);
      },
    ),
    RUNS.transactions,
  );
});

test('GET /api/wallet/transactions by cursor: any position in bounds is a page of the txs before it; one out of bounds is a 400 naming cursor', async () => {
  const positions = fc.tuple(fc.integer({ min: -2, max: 2 ** 31 + 2 }), fc.integer({ min: -2, max: 65_538 }));
  await holds(
    fc.asyncProperty(knownAccount, fc.integer({ min: 1, max: 100 }), positions, async (address, limit, [h, i]) => {
      const url = `/api/wallet/transactions?address=${address}&limit=${limit}&cursor=${h}-${i}`;
      const a = await check({ path: url });
      const body = JSON.parse(a.text);
      if (h >= 1 && h <= 2 ** 31 - 1 && i >= 0 && i <= 65_535) {
        assert.is(a.status, 200, `${url} → ${a.text.slice(0, 200)}`);
        assert.is(body.page, null);
        assert.ok(body.transactions.length <= limit);
        for (const tx of body.transactions) assert.ok(tx.height <= h, `${url}: ${tx.height} is not before ${h}`);
      } else {
        assert.is(a.status, 400, url);
        assert.is(body.details[0].parameter, 'cursor', url);
      }
    }),
    RUNS.cursor,
    // a real page's cursor, and the bounds themselves
    [
      [ctx.accounts[0]!, 2, ctx.cursor.split('-').map(Number) as [number, number]],
      [ctx.accounts[0]!, 1, [2 ** 31 - 1, 65_535]],
      [ctx.accounts[0]!, 1, [1, 0]],
    ],
  );
});

test('GET /api/wallet/prices ignores any query', async () => {
  await holds(
    fc.asyncProperty(junkParams, async (junk) => {
      const a = await check({ path: `/api/wallet/prices${query(junk)}` });
      assert.ok([200, 431].includes(a.status), `${query(junk)} → ${a.status}`);
    }),
    RUNS.prices,
  );
});

test('POST /api/wallet/broadcast: bodies that are not a signed transaction are 4xx, and nothing reaches the node', async () => {
  const before = ctx.chain.broadcasts;
  const base64ish = fc
    .oneof(
      fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b).toString('base64')),
      fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b).toString('base64url')),
      fc.constantFrom('', '=', 'A', 'AB==', 'CgA=', 'CgASAA==', '****'),
      unicode,
      sql,
    )
    // not a signed tx as the service reads one (random bytes rarely are: `GgA=` is a TxRaw of one empty signature)
    .filter((text) => {
      try {
        signedTxBytes(text);
        return false;
      } catch {
        return true;
      }
    });
  const values = fc.oneof(
    base64ish.map((s) => JSON.stringify(s)),
    fc.constantFrom('null', 'true', '0', '1e999', '[]', '{}', '"\\u0000"'),
  );
  const bodies = fc.oneof(
    { weight: 5, arbitrary: values.map((v) => `{"tx_bytes":${v}}`) },
    { weight: 1, arbitrary: values.map((v) => `{"txBytes":${v},"mode":"BROADCAST_MODE_SYNC"}`) },
    {
      weight: 1,
      arbitrary: fc.tuple(protoKeysWith('tx_bytes'), values).map(([k, v]) => `{${JSON.stringify(k)}:${v}}`),
    },
    { weight: 1, arbitrary: fc.constantFrom('', '{', 'null', '[]', '"x"', '{"tx_bytes":"AA=="', '\u0000') },
    { weight: 1, arbitrary: fc.oneof(unicode, sql, overlong) },
  );
  const types = fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', '');
  await holds(
    fc.asyncProperty(bodies, types, junkParams, async (body, type, junk) => {
      const a = await check({
        method: 'POST',
        path: `/api/wallet/broadcast${query(junk)}`,
        headers: type ? { 'Content-Type': type } : {},
        body,
      });
      assert.ok([400, 413, 415, 431].includes(a.status), `${body.slice(0, 80)} → ${a.status} ${a.text.slice(0, 200)}`);
    }),
    RUNS.broadcast,
  );
  assert.is(ctx.chain.broadcasts, before, 'no body reached the node');
});

test('the process still serves', async () => {
  const a = await check({ path: `/api/wallet/transactions?address=${ctx.accounts[0]}` });
  assert.is(a.status, 200);
});

test.run();
