// Property: whatever a client sends, the Chain API answers with a 2xx or a 4xx (501 for a
// path or method it does not serve), never a 5xx, every answer but a HEAD's is JSON, every
// error the gateway's `{code, message, details}` with the status its code maps to, and the
// process keeps serving. Generated hostile input goes to every route and parameter (the
// approach of test/api/hostile-input.test.ts, from test/helpers/hostile.ts): bad numbers,
// heights and hashes, bech32-like and random addresses, base64 mistakes, unicode (lone
// surrogates and NUL bytes percent-encoded), SQL fragments, overlong values, repeated
// parameters, percent-encoding mistakes, prototype property names; POST bodies that are
// not JSON, not the request's fields, or a signed transaction's bytes mutated; odd methods
// and request lines the HTTP parser refuses.
import { randomBytes } from 'node:crypto';
import { sha256 } from '@cosmjs/crypto';
import { toBase64, toHex } from '@cosmjs/encoding';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChainCtx, closeChainApi, openChainApi, startTestChainApi } from '../helpers/chain-api.ts';
import { feeFor, queryClient, randomAddress, signingClient } from '../helpers/devnet.ts';
import {
  type Answer,
  addressesWith,
  checkWith,
  describe,
  enc,
  encodingMistakesWith,
  expectAnswer,
  holds,
  hostileFrom,
  inUrl,
  junkFrom,
  known,
  numbersWith,
  oddMethodRequests,
  overlongFrom,
  paramWith,
  protoKeysWith,
  query,
  type Request,
  recordErrors,
  refusedRequestLines,
  setUpBefore,
  sqlWith,
  unicodeWith,
  unknownPaths,
} from '../helpers/hostile.ts';
import { produceTraffic } from '../helpers/indexing.ts';

interface Ctx extends ChainCtx {
  /** what the chain holds, so requests also reach the index and the node with hostile neighbours */
  txHashes: string[];
  accounts: string[];
  contracts: string[];
  validators: string[];
  tip: number;
  /** a signed MsgSend, mutated into hostile transactions */
  tx: Uint8Array;
}
const test = suite('chain API: hostile input');
const ctx = {} as Ctx;

/** What the Chain API logged as errors (the cause of a 5xx), shown when the property fails. */
const { serverErrors, logger } = recordErrors();

// Each property's share of the run (about 700 requests in all, with the examples always tried).
const RUNS = {
  fixed: 40,
  blocks: 40,
  txHash: 40,
  txSearch: 80,
  txBlock: 30,
  bank: 80,
  wasm: 60,
  staking: 60,
  gov: 20,
  accounts: 30,
  broadcast: 80,
  simulate: 50,
  unknown: 40,
  methods: 40,
  raw: 30,
};

setUpBefore(test, async () => {
  await openChainApi(ctx);
  await produceTraffic(ctx.devnet, 6, 4);
  ctx.tip = ctx.devnet.height();
  await ctx.running.indexer.waitForHeight(ctx.tip, 30_000);
  await ctx.api.close();
  ctx.api = await startTestChainApi(ctx.t, ctx.running.chain, { logger });
  ctx.txHashes = [...new Set(ctx.devnet.ledger.trades.map((t) => t.txHash))];
  ctx.accounts = ctx.devnet.accounts.map((a) => a.address);
  ctx.contracts = [
    ctx.devnet.contracts.launchpad,
    ctx.devnet.contracts.amm,
    ...ctx.devnet.ledger.launches.map((l) => l.token),
  ];
  const { query, comet } = await queryClient(ctx.devnet);
  ctx.validators = [];
  for (const status of ['BOND_STATUS_BONDED', 'BOND_STATUS_UNBONDING', 'BOND_STATUS_UNBONDED'] as const)
    ctx.validators.push(...(await query.staking.validators(status)).validators.map((v) => v.operatorAddress));
  comet.disconnect();
  assert.ok(ctx.txHashes.length > 0 && ctx.validators.length > 0, 'the devnet has transactions and validators');
  const { client, address } = await signingClient(ctx.devnet, 2);
  const msg = {
    typeUrl: '/cosmos.bank.v1beta1.MsgSend',
    value: { fromAddress: address, toAddress: randomAddress(), amount: [{ denom: 'unative', amount: '3' }] },
  };
  ctx.tx = TxRaw.encode(await client.sign(address, [msg], feeFor(200_000), '')).finish();
  client.disconnect();
});

test.after(() => closeChainApi(ctx));

// ---------------------------------------------------------------------------------------
// Hostile values: the shared ones (test/helpers/hostile.ts) with the Chain API's own.

const knownAccount = known(() => ctx.accounts);
const knownContract = known(() => ctx.contracts);
const knownValidator = known(() => ctx.validators);
const knownHash = known(() => ctx.txHashes);

const numbers = numbersWith({
  texts: ['9223372036854775807', '9223372036854775808', '18446744073709551615', '-9223372036854775808'],
  bigIntBound: 2n ** 70n,
});
const heights = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: 1, max: 40 }).map(String) },
  { weight: 1, arbitrary: fc.constant(null).map(() => String(ctx.tip)) },
  { weight: 1, arbitrary: fc.constant(null).map(() => String(ctx.tip + 1)) },
);

/** bech32-like and random addresses: other prefixes and lengths, broken checksums, wrong case. */
const addresses = addressesWith({
  known: [
    { weight: 2, arbitrary: knownAccount },
    { weight: 1, arbitrary: knownContract },
    { weight: 1, arbitrary: knownValidator },
  ],
  prefixes: ['native', 'nativevaloper', 'nativevalcons', 'cosmos', 'a', 'NATIVE', '', 'x'.repeat(83)],
  lengths: [0, 1, 19, 20, 21, 32, 33, 64, 200],
  mangled: fc.oneof(knownAccount, knownValidator, knownContract),
});

const hashes = fc.oneof(
  { weight: 3, arbitrary: knownHash },
  { weight: 1, arbitrary: knownHash.map((h) => h.toLowerCase()) },
  { weight: 1, arbitrary: fc.constant(null).map(() => randomBytes(32).toString('hex')) },
  {
    weight: 2,
    arbitrary: fc.tuple(knownHash, fc.integer({ min: 0, max: 70 })).map(([h, n]) => h.slice(0, n) || h + h),
  },
  { weight: 1, arbitrary: knownHash.map((h) => `0x${h}`) },
  { weight: 1, arbitrary: fc.constant(null).map(() => randomBytes(32).toString('base64')) },
);

const base64s = fc.oneof(
  fc.uint8Array({ maxLength: 60 }).map((b) => toBase64(b)),
  fc.uint8Array({ maxLength: 60 }).map((b) => toBase64(b).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')),
  fc.constantFrom('', '=', '==', 'A', 'AB', 'ABC', 'A===', '****', 'YQ', 'YQ=', 'e30=', 'bnVsbA==', 'WzFd'),
  // 12 bytes, the size of a search's next_key, with any height and tx index (up to 2^32 - 1)
  fc.tuple(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), fc.nat({ max: 2 ** 32 - 1 })).map(([height, index]) => {
    const key = new Uint8Array(12);
    new DataView(key.buffer).setBigUint64(0, height);
    new DataView(key.buffer).setUint32(8, index);
    return toBase64(key);
  }),
);

const unicode = unicodeWith(knownAccount);

const sql = sqlWith(
  "'; DROP TABLE txs; --",
  "' UNION SELECT hash, raw_log FROM txs --",
  "message.sender='a' OR 1=1 --",
);

const protoKeys = protoKeysWith();

const hostile = hostileFrom({
  numbers,
  addresses,
  own: [
    { weight: 1, arbitrary: inUrl(hashes) },
    { weight: 1, arbitrary: inUrl(base64s) },
  ],
  unicode,
  sql,
  protoKeys,
  encodingMistakes: encodingMistakesWith(),
  overlong: overlongFrom(8_000, ['9', 'a', 'q', 'A', '%41', ',', 'é']),
});

const param = paramWith();
const junkParams = junkFrom(hostile);

/** pagination.* as list routes read them, each valid or hostile. */
const pagination = fc.tuple(
  param('pagination.key', hostile(base64s.map(enc))),
  param('pagination.offset', hostile(fc.nat({ max: 50 }).map(String))),
  param('pagination.limit', hostile(fc.nat({ max: 200 }).map(String))),
  param('pagination.count_total', hostile(fc.constantFrom('true', 'false', '1', '0', 'True', 'yes'))),
  param('pagination.reverse', hostile(fc.constantFrom('true', 'false', 't', 'F'))),
);

// ---------------------------------------------------------------------------------------
// The property every answer must satisfy: the shared one, and the gateway's error body.

/** grpc-gateway's HTTPStatusFromCode for the codes an answer may carry. */
const STATUS_OF_CODE: Record<number, number> = { 2: 500, 3: 400, 5: 404, 8: 429, 9: 400, 11: 400, 12: 501 };
/**
 * Answers whose status is not the code's (docs/chain-api.md): a refused simulation or
 * contract query (the node's body, but the request is at fault: 400), limits of the HTTP layer.
 */
const DOCUMENTED: [status: number, code: number, path?: string | RegExp][] = [
  [400, 2, '/cosmos/tx/v1beta1/simulate'],
  [400, 2, /^\/cosmwasm\/wasm\/v1\/contract\/[^/]+\/smart\/[^/]+$/],
  [413, 8],
  [431, 3],
  [408, 3],
  [400, 3],
];

function expectSane(r: Request, a: Answer) {
  const body = expectAnswer(r, a, { serverErrors, alsoAllowed: [501] });
  if (body === undefined) return;
  const what = describe(r);
  assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body), `${what}: a JSON object`);
  if (a.status < 300) return;
  const error = body as { code: unknown; message: unknown; details: unknown };
  assert.equal(Object.keys(error), ['code', 'message', 'details'], `${what}: the gateway's error body: ${a.text}`);
  assert.ok(Number.isInteger(error.code), `${what}: code is an integer`);
  assert.type(error.message, 'string', what);
  assert.ok((error.message as string).length > 0, `${what}: the message says why`);
  assert.equal(error.details, [], what);
  const code = error.code as number;
  const path = r.path.split('?')[0];
  const fits =
    STATUS_OF_CODE[code] === a.status ||
    DOCUMENTED.some(
      ([s, c, p]) =>
        s === a.status && c === code && (p === undefined || (typeof p === 'string' ? p === path : p.test(path!))),
    );
  assert.ok(fits, `${what}: HTTP ${a.status} with code ${code} (${error.message})`);
}

const check = checkWith(() => ctx.api.url, expectSane);

/** A GET route's property: the path from its parts, and the query from its parameters. */
function getRoute<Ts extends [unknown, ...unknown[]]>(
  runs: number,
  arbitraries: { [K in keyof Ts]: fc.Arbitrary<Ts[K]> },
  request: (...values: Ts) => string,
) {
  return holds(
    fc.asyncProperty(...arbitraries, async (...values: Ts) => {
      await check({ path: request(...values) });
    }),
    runs,
  );
}

// ---------------------------------------------------------------------------------------
// Every route with what it reads.

const TENDERMINT = '/cosmos/base/tendermint/v1beta1';

test('routes without parameters ignore any query: blocks/latest, node_info, syncing, pool, params, supply', async () => {
  const paths = fc.constantFrom(
    `${TENDERMINT}/blocks/latest`,
    `${TENDERMINT}/node_info`,
    `${TENDERMINT}/syncing`,
    '/cosmos/staking/v1beta1/pool',
    '/cosmos/staking/v1beta1/params',
    '/cosmos/mint/v1beta1/params',
  );
  await getRoute(RUNS.fixed, [paths, junkParams], (path, junk) => `${path}${query(junk)}`);
});

test('GET blocks/{height}', async () => {
  await getRoute(
    RUNS.blocks,
    [hostile(heights), junkParams],
    (height, junk) => `${TENDERMINT}/blocks/${height}${query(junk)}`,
  );
});

test('GET txs/{hash} and txs/block/{height}', async () => {
  await getRoute(
    RUNS.txHash,
    [hostile(hashes), junkParams],
    (hash, junk) => `/cosmos/tx/v1beta1/txs/${hash}${query(junk)}`,
  );
  await getRoute(
    RUNS.txBlock,
    [hostile(heights), pagination, junkParams],
    (height, page, junk) => `/cosmos/tx/v1beta1/txs/block/${height}${query([...page, ...junk])}`,
  );
});

test('GET txs: events, query, order_by, page, limit and pagination', async () => {
  const conditions = fc.oneof(
    knownAccount.map((a) => `message.sender='${a}'`),
    knownAccount.map((a) => `transfer.recipient='${a}'`),
    heights.map((h) => `tx.height=${h}`),
    knownHash.map((h) => `tx.hash='${h}'`),
    fc.constantFrom(
      "message.action='/cosmwasm.wasm.v1.MsgExecuteContract'",
      "message.action='/cosmos.bank.v1beta1.MsgSend'",
      'tx.height<=10',
      'tx.height>=1',
      "message.sender CONTAINS 'native'",
      'message.sender EXISTS',
      "message.sender='",
      "='x'",
      'a.b.c.d=1',
      'tx.height=1 AND tx.height=2',
      "tx.height=1 OR message.sender='x'",
      'tx.height=99999999999999999999',
      "message.sender='x'' --",
      "message.sender='a\0b'",
      'message.action=\0',
    ),
  );
  const conditionList = fc.array(conditions, { minLength: 1, maxLength: 3 }).map((cs) => cs.join(' AND '));
  await holds(
    fc.asyncProperty(
      param('events', hostile(inUrl(conditions))),
      param('query', hostile(inUrl(conditionList))),
      param('order_by', hostile(fc.constantFrom('ORDER_BY_ASC', 'ORDER_BY_DESC', '1', '2', '0', 'asc', 'desc'))),
      param('page', hostile(fc.nat({ max: 20 }).map(String))),
      param('limit', hostile(fc.nat({ max: 150 }).map(String))),
      pagination,
      junkParams,
      async (events, q, order, page, limit, paging, junk) => {
        await check({ path: `/cosmos/tx/v1beta1/txs${query([events, q, order, page, limit, ...paging, ...junk])}` });
      },
    ),
    RUNS.txSearch,
  );
});

test('GET bank: balances (by_denom), spendable_balances, supply (by_denom), denoms_metadata (/denom)', async () => {
  const denoms = fc.constantFrom('unative', 'NATIVE', 'uatom', 'ibc/ABC', 'factory/x/y', 'u', 'a'.repeat(200));
  const shapes = fc.constantFrom(
    'balances',
    'by_denom',
    'spendable',
    'supply',
    'supply_by_denom',
    'metadatas',
    'metadata',
  );
  await holds(
    fc.asyncProperty(
      shapes,
      hostile(inUrl(addresses)),
      param('denom', hostile(inUrl(denoms))),
      param('resolve_denom', hostile(fc.constantFrom('true', 'false'))),
      hostile(inUrl(denoms)),
      pagination,
      junkParams,
      async (shape, address, denom, resolve, denomPath, paging, junk) => {
        const bank = '/cosmos/bank/v1beta1';
        const path = {
          balances: `${bank}/balances/${address}${query([resolve, ...paging, ...junk])}`,
          by_denom: `${bank}/balances/${address}/by_denom${query([denom, ...junk])}`,
          spendable: `${bank}/spendable_balances/${address}${query([...paging, ...junk])}`,
          supply: `${bank}/supply${query([...paging, ...junk])}`,
          supply_by_denom: `${bank}/supply/by_denom${query([denom, ...junk])}`,
          metadatas: `${bank}/denoms_metadata${query([...paging, ...junk])}`,
          metadata: `${bank}/denoms_metadata/${denomPath}${query(junk)}`,
        }[shape];
        await check({ path });
      },
    ),
    RUNS.bank,
  );
});

test('GET wasm contract/{address}/smart/{query}', async () => {
  const queries = fc.oneof(
    fc.constantFrom(
      { config: {} },
      { token_info: {} },
      { tokens: { limit: 5 } },
      { pools: {} },
      { balance: { address: 'x' } },
      { nope: {} },
      [],
      null,
      1,
      'config',
      { config: { extra: '\u0000' } },
    ),
    fc.jsonValue({ maxDepth: 3 }),
  );
  const queryData = fc.oneof(
    { weight: 4, arbitrary: queries.map((q) => enc(toBase64(new TextEncoder().encode(JSON.stringify(q))))) },
    { weight: 1, arbitrary: queries.map((q) => Buffer.from(JSON.stringify(q)).toString('base64url')) },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((s) => enc(toBase64(new TextEncoder().encode(s)))) },
  );
  await holds(
    fc.asyncProperty(
      hostile(inUrl(fc.oneof(knownContract, addresses))),
      hostile(queryData),
      junkParams,
      async (address, data, junk) => {
        await check({ path: `/cosmwasm/wasm/v1/contract/${address}/smart/${data}${query(junk)}` });
      },
    ),
    RUNS.wasm,
  );
});

test('GET staking: validators (status), validators/{v}, /delegations, delegations/{d}', async () => {
  const statuses = fc.constantFrom(
    'BOND_STATUS_BONDED',
    'BOND_STATUS_UNBONDING',
    'BOND_STATUS_UNBONDED',
    'BOND_STATUS_UNSPECIFIED',
    '3',
    'bonded',
  );
  await holds(
    fc.asyncProperty(
      fc.constantFrom('validators', 'validator', 'validator_delegations', 'delegations'),
      hostile(inUrl(fc.oneof(knownValidator, addresses))),
      param('status', hostile(statuses)),
      pagination,
      junkParams,
      async (shape, address, status, paging, junk) => {
        const staking = '/cosmos/staking/v1beta1';
        const path = {
          validators: `${staking}/validators${query([status, ...paging, ...junk])}`,
          validator: `${staking}/validators/${address}${query(junk)}`,
          validator_delegations: `${staking}/validators/${address}/delegations${query([...paging, ...junk])}`,
          delegations: `${staking}/delegations/${address}${query([...paging, ...junk])}`,
        }[shape];
        await check({ path });
      },
    ),
    RUNS.staking,
  );
});

test('GET gov v1 params/{voting|deposit|tallying} and auth accounts/{address}', async () => {
  await getRoute(
    RUNS.gov,
    [hostile(fc.constantFrom('voting', 'deposit', 'tallying', 'VOTING', 'params', 'voting_params')), junkParams],
    (type, junk) => `/cosmos/gov/v1/params/${type}${query(junk)}`,
  );
  await getRoute(
    RUNS.accounts,
    [hostile(inUrl(fc.oneof(knownAccount, knownContract, addresses))), junkParams],
    (address, junk) => `/cosmos/auth/v1beta1/accounts/${address}${query(junk)}`,
  );
});

// ---------------------------------------------------------------------------------------
// POST bodies.

/** A signed transaction's bytes, mutated: bytes flipped, cut, appended, inserted, or random. */
const mutatedTx = fc.oneof(
  fc
    .tuple(fc.nat(), fc.integer({ min: 1, max: 255 }))
    .map(([i, x]) => ctx.tx.map((b, j) => (j === i % ctx.tx.length ? b ^ x : b))),
  fc.nat().map((n) => ctx.tx.slice(0, n % ctx.tx.length)),
  fc.uint8Array({ minLength: 1, maxLength: 12 }).map((extra) => new Uint8Array([...ctx.tx, ...extra])),
  fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 4 })).map(([i, extra]) => {
    const at = i % ctx.tx.length;
    return new Uint8Array([...ctx.tx.slice(0, at), ...extra, ...ctx.tx.slice(at)]);
  }),
  fc.uint8Array({ maxLength: 300 }),
  // TxRaw fields of hostile content: the signature kept, body or auth info replaced
  fc
    .tuple(fc.boolean(), fc.uint8Array({ maxLength: 40 }))
    .map(([body, bytes]) =>
      TxRaw.encode({ ...TxRaw.decode(ctx.tx), ...(body ? { bodyBytes: bytes } : { authInfoBytes: bytes }) }).finish(),
    ),
);

const txBytesValue = fc.oneof(
  { weight: 6, arbitrary: mutatedTx.map((b) => toBase64(b)) },
  { weight: 1, arbitrary: mutatedTx.map((b) => Buffer.from(b).toString('base64url')) },
  { weight: 1, arbitrary: base64s },
  { weight: 1, arbitrary: unicode },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);
const modeValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom('BROADCAST_MODE_SYNC', 'BROADCAST_MODE_ASYNC') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'BROADCAST_MODE_BLOCK',
      'BROADCAST_MODE_UNSPECIFIED',
      'sync',
      2,
      3,
      1,
      0,
      -1,
      2.5,
      1e300,
    ),
  },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
);

/** A request body: the request's fields with hostile values, other fields, or not a JSON object at all. */
const body = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record(fields, { requiredKeys: [] }).map((o) => JSON.stringify(o)),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.record(fields, { requiredKeys: [] }),
          fc.oneof(protoKeys, fc.string({ maxLength: 10 })),
          fc.jsonValue({ maxDepth: 1 }),
        )
        .map(
          ([o, k, v]) =>
            `${JSON.stringify(o).slice(0, -1)}${Object.keys(o).length ? ',' : ''}${JSON.stringify(k)}:${JSON.stringify(v) ?? 'null'}}`,
        ),
    },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? '') },
    {
      weight: 1,
      arbitrary: fc.oneof(
        unicode,
        sql,
        fc.constantFrom('', '{', '{"tx_bytes":', '{"tx_bytes":"AAAA"', '\uFEFF{}', '{"tx_bytes":"AAAA"}}'),
      ),
    },
  );

const contentTypes = fc.constantFrom(
  'application/json',
  'application/json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/octet-stream',
  'application/json; charset=latin1',
);

test('POST txs: hostile bodies and mutated transactions', async () => {
  await holds(
    fc.asyncProperty(
      body({ tx_bytes: txBytesValue, txBytes: txBytesValue, mode: modeValue }),
      contentTypes,
      async (text, type) => {
        const a = await check({
          method: 'POST',
          path: '/cosmos/tx/v1beta1/txs',
          body: text,
          headers: { 'Content-Type': type },
        });
        assert.ok([200, 400].includes(a.status), `${text.slice(0, 200)} → ${a.status} ${a.text.slice(0, 300)}`);
      },
    ),
    RUNS.broadcast,
    [
      [
        JSON.stringify({ tx_bytes: toBase64(new Uint8Array([0x1a, 0x00])), mode: 'BROADCAST_MODE_SYNC' }),
        'application/json',
      ],
      [
        JSON.stringify({ tx_bytes: toBase64(new Uint8Array([0x1a, 0x00])), mode: 'BROADCAST_MODE_ASYNC' }),
        'application/json',
      ],
    ],
  );
});

test('POST simulate: hostile bodies and mutated transactions', async () => {
  await holds(
    fc.asyncProperty(
      body({ tx_bytes: txBytesValue, tx: fc.jsonValue({ maxDepth: 2 }) }),
      contentTypes,
      async (text, type) => {
        const a = await check({
          method: 'POST',
          path: '/cosmos/tx/v1beta1/simulate',
          body: text,
          headers: { 'Content-Type': type },
        });
        assert.ok([200, 400].includes(a.status), `${text.slice(0, 200)} → ${a.status} ${a.text.slice(0, 300)}`);
      },
    ),
    RUNS.simulate,
    // a TxRaw with nothing but an empty signature: decodes, and the chain refuses it
    [[JSON.stringify({ tx_bytes: toBase64(new Uint8Array([0x1a, 0x00])) }), 'application/json']],
  );
});

// ---------------------------------------------------------------------------------------
// Paths, methods and request lines.

test('unknown paths are a 501 (or a route, when the path normalizes to one)', async () => {
  const names = [
    'cosmos',
    'cosmwasm',
    'bank',
    'tx',
    'txs',
    'v1beta1',
    'v1',
    'base',
    'tendermint',
    'blocks',
    'latest',
    'staking',
    'validators',
    'gov',
    'params',
    'Cosmos',
  ];
  await holds(
    fc.asyncProperty(unknownPaths(hostile, names, 6), async (path) => {
      await check({ path });
    }),
    RUNS.unknown,
  );
});

test('odd methods on every route: POST, PUT, DELETE, PATCH, OPTIONS, HEAD', async () => {
  const paths = fc.oneof(
    fc.constantFrom(
      `${TENDERMINT}/blocks/latest`,
      `${TENDERMINT}/blocks/1`,
      `${TENDERMINT}/node_info`,
      '/cosmos/tx/v1beta1/txs',
      '/cosmos/tx/v1beta1/simulate',
      '/cosmos/tx/v1beta1/txs/block/1',
      '/cosmos/bank/v1beta1/supply',
      '/cosmos/staking/v1beta1/pool',
      '/cosmos/gov/v1/params/voting',
      '/nothing',
      '/',
    ),
    knownHash.map((h) => `/cosmos/tx/v1beta1/txs/${h}`),
    knownAccount.map((a) => `/cosmos/bank/v1beta1/balances/${a}`),
  );
  const requests = oddMethodRequests({
    paths,
    bodies: fc.oneof(unicode, sql, fc.constantFrom('{', '{"tx_bytes":"AAAA"}', 'null', '[]')),
    corsHeaders: ['Access-Control-Request-Headers', 'Origin'],
  });
  await holds(
    fc.asyncProperty(requests, async (r) => {
      const a = await check(r);
      const posted = r.method === 'POST' && /^\/cosmos\/tx\/v1beta1\/(txs|simulate)$/.test(r.path);
      if (r.method === 'OPTIONS') assert.is(a.status, 204, describe(r));
      else if (r.method !== 'HEAD' && !posted) assert.is(a.status, 501, describe(r));
    }),
    RUNS.methods,
  );
});

test('request lines the HTTP parser refuses, and request targets fetch cannot send', async () => {
  await refusedRequestLines({
    base: ctx.api.url,
    plain: `${TENDERMINT}/syncing`,
    targets: [
      '/cosmos/bank/v1beta1/balances/native1\u0000',
      '/cosmos/tx/v1beta1/txs/\u00ff',
      '/cosmos/tx/v1beta1/txs?events=tx.height=1\u007f',
    ],
    prefixes: [
      '/cosmos/tx/v1beta1/txs/',
      '/cosmos/base/tendermint/v1beta1/blocks/',
      '/cosmos/bank/v1beta1/balances/',
      '/cosmos/tx/v1beta1/txs?events=',
    ],
    methods: ['POST'],
    headers: ['Content-Length: 99999999999\r\n'],
    expectSane,
    runs: RUNS.raw,
  });
});

test('the process still serves: reads answer, a signed transaction is broadcast, nothing was logged as an error', async () => {
  const a = await check({ path: `${TENDERMINT}/syncing` });
  assert.is(a.status, 200);
  assert.equal(JSON.parse(a.text), { syncing: false });
  const { client, address } = await signingClient(ctx.devnet, 3);
  const msg = {
    typeUrl: '/cosmos.bank.v1beta1.MsgSend',
    value: { fromAddress: address, toAddress: randomAddress(), amount: [{ denom: 'unative', amount: '1' }] },
  };
  const tx = TxRaw.encode(await client.sign(address, [msg], feeFor(200_000), '')).finish();
  client.disconnect();
  const sent = await check({
    method: 'POST',
    path: '/cosmos/tx/v1beta1/txs',
    body: JSON.stringify({ tx_bytes: toBase64(tx), mode: 'BROADCAST_MODE_SYNC' }),
  });
  assert.is(sent.status, 200);
  const response = JSON.parse(sent.text).tx_response;
  assert.is(response.code, 0, response.raw_log);
  assert.is(response.txhash, toHex(sha256(tx)).toUpperCase());
  assert.equal(serverErrors, [], 'the Chain API logged no error');
});

test.run();
