// Chain API bank and wasm routes against a devnet: balances, spendable balances, supply and
// denom metadata equal to what cosmjs reads from the node directly, in the shapes of the
// recorded node answers (test/fixtures/cosmos-rest), the SDK's pagination totals, smart
// queries on a CW20 the launchpad created, and every error case.
import { fromBech32, toBase64, toBech32, toUtf8 } from '@cosmjs/encoding';
import { createProtobufRpcClient } from '@cosmjs/stargate';
import { QueryClientImpl as BankQuery } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChainCtx, chainGet, closeChainApi, openChainApi } from '../helpers/chain-api.ts';
import { assertGatewayError } from '../helpers/chain-state.ts';
import { queryClient, randomAddress, signingClient } from '../helpers/devnet.ts';
import { launchToken, withBlocks } from '../helpers/indexing.ts';
import { assertShape, fixture, shapeDifferences } from '../helpers/rest-shape.ts';

type Ctx = ChainCtx & {
  direct: Awaited<ReturnType<typeof queryClient>>;
  sender: string;
  recipient: string;
  token: string;
};
const test = suite<Ctx>('Chain API: bank and wasm', {} as Ctx);

const SENT = '12345';
const b64 = (json: unknown) => toBase64(toUtf8(JSON.stringify(json)));
const get = (ctx: Ctx, path: string) => chainGet(ctx.api, path);

test.before(async (ctx) => {
  await openChainApi(ctx);
  ctx.direct = await queryClient(ctx.devnet);
  const sender = await signingClient(ctx.devnet, 1);
  ctx.sender = sender.address;
  ctx.recipient = randomAddress();
  try {
    const sent = await withBlocks(
      ctx.devnet,
      sender.client.sendTokens(sender.address, ctx.recipient, [{ denom: 'unative', amount: SENT }], 'auto'),
    );
    assert.is(sent.code, 0, sent.rawLog);
  } finally {
    sender.client.disconnect();
  }
  ({ token: ctx.token } = await launchToken(ctx.devnet, 2, {
    name: 'Chain Frog',
    symbol: 'CFROG',
    description: 'for the Chain API',
  }));
});
test.after(async (ctx) => {
  ctx.direct?.comet.disconnect();
  await closeChainApi(ctx);
});

// --- balances ---

test('balances: a sendTokens recipient holds exactly what was sent, as cosmjs reads it', async (ctx) => {
  const { status, body } = await get(ctx, `/cosmos/bank/v1beta1/balances/${ctx.recipient}`);
  assert.is(status, 200);
  assertShape(body, 'bank-balances');
  assert.equal(body.balances, [{ denom: 'unative', amount: SENT }]);
  assert.equal(body.balances, await ctx.direct.query.bank.allBalances(ctx.recipient));
  // No limit sent: the SDK counts the total.
  assert.equal(body.pagination, { next_key: null, total: '1' });
});

test('balances: the sender after its fee and send, equal to cosmjs', async (ctx) => {
  const { body } = await get(ctx, `/cosmos/bank/v1beta1/balances/${ctx.sender}`);
  const direct = await ctx.direct.query.bank.allBalances(ctx.sender);
  assert.equal(body.balances, direct);
  assert.ok(BigInt(direct[0]!.amount) < 1_000_000_000_000n - BigInt(SENT), 'the send and its fee left the sender');
});

test('balances: each request reads the node (a second send shows at once)', async (ctx) => {
  const path = `/cosmos/bank/v1beta1/balances/${ctx.recipient}/by_denom?denom=unative`;
  const before = BigInt((await get(ctx, path)).body.balance.amount);
  const sender = await signingClient(ctx.devnet, 3);
  try {
    const sent = await withBlocks(
      ctx.devnet,
      sender.client.sendTokens(sender.address, ctx.recipient, [{ denom: 'unative', amount: '7' }], 'auto'),
    );
    assert.is(sent.code, 0, sent.rawLog);
  } finally {
    sender.client.disconnect();
  }
  const after = (await get(ctx, path)).body.balance;
  assert.is(BigInt(after.amount), before + 7n);
  assert.equal(after, await ctx.direct.query.bank.balance(ctx.recipient, 'unative'));
  const all = await get(ctx, `/cosmos/bank/v1beta1/balances/${ctx.recipient}`);
  assert.equal(all.body.balances, [after]);
  // nothing read from the node's state now is kept by a cache in front (a sequence would go stale)
  for (const p of [path, `/cosmos/auth/v1beta1/accounts/${ctx.recipient}`, `/cosmos/staking/v1beta1/pool`]) {
    const answer = await get(ctx, p);
    assert.is(answer.status, 200, p);
    assert.is(answer.headers.get('cache-control'), 'no-store', p);
  }
});

test('balances: an address that holds nothing is the SDK empty answer', async (ctx) => {
  const { status, body } = await get(ctx, `/cosmos/bank/v1beta1/balances/${randomAddress()}`);
  assert.is(status, 200);
  assertShape(body, 'bank-balances-empty');
  assert.equal(body, { balances: [], pagination: { next_key: null, total: '0' } });
});

test('balances: a limit without count_total gives total "0"; count_total=true counts', async (ctx) => {
  const limited = await get(ctx, `/cosmos/bank/v1beta1/balances/${ctx.recipient}?pagination.limit=1`);
  assert.equal(limited.body.pagination, { next_key: null, total: '0' });
  const counted = await get(
    ctx,
    `/cosmos/bank/v1beta1/balances/${ctx.recipient}?pagination.limit=1&pagination.count_total=true`,
  );
  assert.equal(counted.body.pagination, { next_key: null, total: '1' });
});

test('balances/by_denom: the balance cosmjs reads; an unknown denom is 200 with amount "0"', async (ctx) => {
  const { status, body } = await get(ctx, `/cosmos/bank/v1beta1/balances/${ctx.sender}/by_denom?denom=unative`);
  assert.is(status, 200);
  assertShape(body, 'bank-balance-by-denom');
  assert.equal(body.balance, await ctx.direct.query.bank.balance(ctx.sender, 'unative'));
  const unknown = await get(ctx, `/cosmos/bank/v1beta1/balances/${ctx.sender}/by_denom?denom=uunknown`);
  assert.is(unknown.status, 200);
  assert.equal(unknown.body, { balance: { denom: 'uunknown', amount: '0' } });
});

test('spendable_balances: the node answer, in the balances shape', async (ctx) => {
  const { status, body } = await get(ctx, `/cosmos/bank/v1beta1/spendable_balances/${ctx.recipient}`);
  assert.is(status, 200);
  assertShape(body, 'bank-spendable-balances');
  const bank = new BankQuery(createProtobufRpcClient(ctx.direct.query));
  const direct = await bank.SpendableBalances({ address: ctx.recipient, pagination: undefined });
  assert.equal(body.balances, direct.balances);
  // Nothing on the devnet is locked or vesting: spendable equals the balance.
  assert.equal(body.balances, await ctx.direct.query.bank.allBalances(ctx.recipient));
  assert.is(body.balances.length, 1);
});

// --- supply ---

test('supply: the total supply cosmjs reads, total counted without a limit and "0" with one', async (ctx) => {
  const { status, body } = await get(ctx, '/cosmos/bank/v1beta1/supply');
  assert.is(status, 200);
  assertShape(body, 'bank-supply-stratos');
  const direct = await ctx.direct.query.bank.totalSupply();
  assert.equal(body.supply, direct.supply);
  assert.equal(body.pagination, { next_key: null, total: String(direct.supply.length) });

  const limited = await get(ctx, '/cosmos/bank/v1beta1/supply?pagination.limit=10000&pagination.offset=0');
  assertShape(limited.body, 'bank-supply');
  assert.equal(limited.body.pagination, { next_key: null, total: '0' });
});

test('supply/by_denom: {amount: coin} equal to cosmjs supplyOf', async (ctx) => {
  const { status, body } = await get(ctx, '/cosmos/bank/v1beta1/supply/by_denom?denom=unative');
  assert.is(status, 200);
  assertShape(body, 'bank-supply-by-denom');
  assert.equal(body.amount, await ctx.direct.query.bank.supplyOf('unative'));
});

// --- denom metadata ---

const metadataOf = (m: Awaited<ReturnType<Ctx['direct']['query']['bank']['denomMetadata']>>) => ({
  description: m.description,
  denom_units: m.denomUnits.map((u) => ({ denom: u.denom, exponent: u.exponent, aliases: u.aliases })),
  base: m.base,
  display: m.display,
  name: m.name,
  symbol: m.symbol,
  uri: m.uri,
  uri_hash: m.uriHash,
});

test('denoms_metadata: every denom metadata, as cosmjs reads it', async (ctx) => {
  const { status, body } = await get(ctx, '/cosmos/bank/v1beta1/denoms_metadata');
  assert.is(status, 200);
  // `uri` and `uri_hash` exist since SDK v0.46; the fixture is a v0.45 answer (SOURCES.md).
  // The display unit has no aliases; the base unit's carry the element shape.
  assertShape(body, 'bank-denoms-metadata', {
    ignore: ['metadatas[].uri', 'metadatas[].uri_hash'],
    empty: ['metadatas[].denom_units[].aliases'],
  });
  assert.ok(body.metadatas[0].denom_units.some((u: { aliases: string[] }) => u.aliases.length > 0));
  assert.equal(body.metadatas, (await ctx.direct.query.bank.denomsMetadata()).map(metadataOf));
  assert.equal(body.pagination, { next_key: null, total: '1' });
  assert.is(body.metadatas[0].denom_units[1].exponent, 6);
});

test('denoms_metadata/{denom}: {metadata}; an unknown denom is 404 code 5', async (ctx) => {
  const { status, body } = await get(ctx, '/cosmos/bank/v1beta1/denoms_metadata/unative');
  assert.is(status, 200);
  assert.equal(Object.keys(body), ['metadata']);
  assert.equal(body.metadata, metadataOf(await ctx.direct.query.bank.denomMetadata('unative')));
  // no recorded answer of this route: its metadata is one element of the list's
  const list = fixture('bank-denoms-metadata') as { metadatas: unknown[] };
  assert.equal(
    shapeDifferences(body.metadata, list.metadatas[0], {
      ignore: ['uri', 'uri_hash'],
      empty: ['denom_units[].aliases'],
    }),
    [],
  );
  assertGatewayError(
    await get(ctx, '/cosmos/bank/v1beta1/denoms_metadata/uunknown'),
    404,
    5,
    'client metadata for denom uunknown',
  );
});

// --- invalid addresses ---

test('an invalid address is 400 code 3 on every address route', async (ctx) => {
  const { data } = fromBech32(ctx.recipient, 256);
  const badChecksum = `${ctx.recipient.slice(0, -1)}${ctx.recipient.endsWith('q') ? 'p' : 'q'}`;
  for (const path of ['/cosmos/bank/v1beta1/balances/', '/cosmos/bank/v1beta1/spendable_balances/']) {
    assertGatewayError(await get(ctx, `${path}${badChecksum}`), 400, 3, /^invalid address: decoding bech32 failed: /);
    assertGatewayError(await get(ctx, `${path}not-an-address`), 400, 3, /^invalid address: decoding bech32 failed: /);
    assertGatewayError(
      await get(ctx, `${path}${toBech32('nativevaloper', data)}`),
      400,
      3,
      "invalid address: hrp does not match bech32 prefix: expected 'native' got 'nativevaloper'",
    );
  }
  assertGatewayError(
    await get(ctx, `/cosmos/bank/v1beta1/balances/${badChecksum}/by_denom?denom=unative`),
    400,
    3,
    /^invalid address: decoding bech32 failed: /,
  );
});

// --- wasm smart queries ---

const smart = (ctx: Ctx, contract: string, query: string) =>
  get(ctx, `/cosmwasm/wasm/v1/contract/${contract}/smart/${query}`);

test('smart query: token_info of a CW20 the launchpad created, equal to cosmjs', async (ctx) => {
  const { status, body } = await smart(ctx, ctx.token, b64({ token_info: {} }));
  assert.is(status, 200);
  // The contract's JSON is embedded as an object; its keys are the contract's (not the fixture's).
  assertShape(body, 'wasm-smart-query', { ignore: ['data'] });
  assert.equal(Object.keys(body), ['data']);
  assert.equal(body.data, { name: 'Chain Frog', symbol: 'CFROG', decimals: 6, total_supply: '1000000000000000' });
  const direct = await ctx.running.chain.queries.wasm.queryContractSmart(ctx.token, { token_info: {} });
  assert.equal(body.data, direct);
  assert.is((await smart(ctx, ctx.token, b64({ token_info: {} }))).headers.get('cache-control'), 'no-store');
});

test('smart query: the contract answer as the node gave it, config of the launchpad', async (ctx) => {
  const { status, body } = await smart(ctx, ctx.devnet.contracts.launchpad, b64({ config: {} }));
  assert.is(status, 200);
  const direct = await ctx.running.chain.queries.wasm.queryContractSmart(ctx.devnet.contracts.launchpad, {
    config: {},
  });
  assert.equal(body, { data: direct });
});

test('smart query: URL-safe, unpadded and percent-encoded standard base64 are all read', async (ctx) => {
  // '?' and '~' in a string make the standard encoding hold both '/' and '+'.
  const query = { tokens: { start_after: '???~~~' } };
  const standard = b64(query);
  assert.match(standard, /\/.*\+.*=$/);
  const urlSafe = standard.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const direct = await ctx.running.chain.queries.wasm.queryContractSmart(ctx.devnet.contracts.launchpad, query);
  for (const encoded of [urlSafe, `${urlSafe}=`, encodeURIComponent(standard)]) {
    const { status, body } = await smart(ctx, ctx.devnet.contracts.launchpad, encoded);
    assert.is(status, 200, `${encoded}: ${JSON.stringify(body)}`);
    assert.equal(body, { data: direct });
  }
});

test('smart query: bad base64 or a query that is not JSON is 400 code 3', async (ctx) => {
  assertGatewayError(
    await smart(ctx, ctx.token, '%21%21%21'),
    400,
    3,
    'type mismatch, parameter: query_data, error: illegal base64 data at input byte 0',
  );
  assertGatewayError(
    await smart(ctx, ctx.token, 'eyJ0b2tl*W5mbyI6e319'),
    400,
    3,
    /illegal base64 data at input byte 8$/,
  );
  assertGatewayError(
    await smart(ctx, ctx.token, 'e'),
    400,
    3,
    /^type mismatch, parameter: query_data, error: illegal base64/,
  );
  assertGatewayError(await smart(ctx, ctx.token, toBase64(toUtf8('token_info'))), 400, 3, 'invalid query data');
  assertGatewayError(
    await smart(ctx, 'native1notanaddress', b64({ token_info: {} })),
    400,
    3,
    /^invalid contract address: decoding bech32 failed: /,
  );
});

test('smart query: a contract error or no contract is the node error body (code 2, its message), HTTP 400', async (ctx) => {
  const query = { no_such_query: {} };
  const answer = await smart(ctx, ctx.token, b64(query));
  let nodeLog = '';
  try {
    await ctx.running.chain.queries.wasm.queryContractSmart(ctx.token, query);
    assert.unreachable('the contract refuses the query');
  } catch (error) {
    nodeLog = /^Query failed with \(\d+\): ([\s\S]*)$/.exec((error as Error).message)?.[1] ?? '';
  }
  assert.match(nodeLog, /query wasm contract failed$/);
  // The SDK's body (code 2, the node's text) with HTTP 400: the query is at fault (docs/chain-api.md, "Contracts").
  assertGatewayError(answer, 400, 2, nodeLog);
  const nowhere = randomAddress();
  assertGatewayError(
    await smart(ctx, nowhere, b64({ token_info: {} })),
    400,
    2,
    `address ${nowhere}: no such contract`,
  );
});

test.run();
