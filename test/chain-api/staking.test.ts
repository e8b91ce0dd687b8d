// Chain API staking routes against a devnet: validators (status filter, a next_key walk
// one validator per page, count_total), one validator, delegations of a validator and of
// a delegator, pool and params, equal to what cosmjs reads from the node directly and in
// the shapes of the recorded node answers (test/fixtures/cosmos-rest); every error case.
import { fromBech32, toBase64, toBech32 } from '@cosmjs/encoding';
import { PubKey } from 'cosmjs-types/cosmos/crypto/ed25519/keys';
import { BondStatus, bondStatusToJSON, type Validator } from 'cosmjs-types/cosmos/staking/v1beta1/staking';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { delegationResponseJson, validatorJson } from '../../src/api/chain/state-json.ts';
import { type ChainCtx, chainGet, closeChainApi, openChainApi } from '../helpers/chain-api.ts';
import { assertDec, assertGatewayError } from '../helpers/chain-state.ts';
import { queryClient, signingClient } from '../helpers/devnet.ts';
import { withBlocks } from '../helpers/indexing.ts';
import { assertShape } from '../helpers/rest-shape.ts';

type Ctx = ChainCtx & { direct: Awaited<ReturnType<typeof queryClient>>; validators: Validator[] };
const test = suite<Ctx>('Chain API: staking', {} as Ctx);

const get = (ctx: Ctx, path: string) => chainGet(ctx.api, path);
type DelegationJson = ReturnType<typeof delegationResponseJson>;

const timestampText = (t: { seconds: bigint; nanos: number }) =>
  `${new Date(Number(t.seconds) * 1000).toISOString().slice(0, 19)}Z`;

/** The API's validator against the one cosmjs decoded from the node. */
function assertValidator(api: ReturnType<typeof validatorJson>, v: Validator) {
  const what = v.operatorAddress;
  assert.is(api.operator_address, v.operatorAddress);
  assert.equal(api.consensus_pubkey, {
    '@type': '/cosmos.crypto.ed25519.PubKey',
    key: toBase64(PubKey.decode(v.consensusPubkey!.value).key),
  });
  assert.is(api.jailed, v.jailed);
  assert.is(api.status, bondStatusToJSON(v.status));
  assert.is(api.tokens, v.tokens);
  assertDec(api.delegator_shares, v.delegatorShares, `${what} delegator_shares`);
  assert.equal(api.description, {
    moniker: v.description.moniker,
    identity: v.description.identity,
    website: v.description.website,
    security_contact: v.description.securityContact,
    details: v.description.details,
  });
  assert.is(api.unbonding_height, v.unbondingHeight.toString());
  assert.is(api.unbonding_time, timestampText(v.unbondingTime));
  const rates = v.commission.commissionRates;
  assertDec(api.commission.commission_rates.rate, rates.rate, `${what} rate`);
  assertDec(api.commission.commission_rates.max_rate, rates.maxRate, `${what} max_rate`);
  assertDec(api.commission.commission_rates.max_change_rate, rates.maxChangeRate, `${what} max_change_rate`);
  assert.is(api.commission.update_time, timestampText(v.commission.updateTime));
  assert.is(api.min_self_delegation, v.minSelfDelegation);
  assert.is(api.unbonding_on_hold_ref_count, v.unbondingOnHoldRefCount.toString());
  assert.equal(
    api.unbonding_ids,
    v.unbondingIds.map((id) => id.toString()),
  );
}

test.before(async (ctx) => {
  await openChainApi(ctx);
  ctx.direct = await queryClient(ctx.devnet);
  ctx.validators = (await ctx.direct.query.staking.validators('')).validators;
  assert.is(ctx.validators.length, 5, 'the devnet has five validators');
});
test.after(async (ctx) => {
  ctx.direct?.comet.disconnect();
  await closeChainApi(ctx);
});

// --- validators ---

test('validators: every validator as cosmjs reads it, in the node shape', async (ctx) => {
  const { status, body } = await get(ctx, '/cosmos/staking/v1beta1/validators');
  assert.is(status, 200);
  assertShape(body, 'staking-validators');
  assert.is(body.validators.length, ctx.validators.length);
  ctx.validators.forEach((v, i) => {
    assertValidator(body.validators[i], v);
  });
  assert.equal(body.pagination, { next_key: null, total: String(ctx.validators.length) });
});

test('validators: an unbonding validator has its unbonding time; bonded ones the zero time', async (ctx) => {
  const { body } = await get(ctx, '/cosmos/staking/v1beta1/validators?status=BOND_STATUS_UNBONDING');
  assert.is(body.validators.length, 1);
  const [draco] = body.validators;
  assert.is(draco.status, 'BOND_STATUS_UNBONDING');
  assert.match(draco.unbonding_time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3}|\.\d{6}|\.\d{9})?Z$/);
  assert.is.not(draco.unbonding_time, '1970-01-01T00:00:00Z');
  const bonded = await get(ctx, '/cosmos/staking/v1beta1/validators?status=BOND_STATUS_BONDED');
  for (const v of bonded.body.validators) assert.is(v.unbonding_time, '1970-01-01T00:00:00Z');
});

test('validators?status=: each bond status filters as the node does', async (ctx) => {
  const counts: Record<string, number> = {};
  for (const status of [
    BondStatus.BOND_STATUS_BONDED,
    BondStatus.BOND_STATUS_UNBONDING,
    BondStatus.BOND_STATUS_UNBONDED,
  ]) {
    const name = bondStatusToJSON(status);
    const { status: http, body } = await get(ctx, `/cosmos/staking/v1beta1/validators?status=${name}`);
    assert.is(http, 200);
    const direct = await ctx.direct.query.staking.validators(name as 'BOND_STATUS_BONDED');
    assert.equal(
      body.validators.map((v: { operator_address: string }) => v.operator_address),
      direct.validators.map((v) => v.operatorAddress),
    );
    for (const v of body.validators) assert.is(v.status, name);
    counts[name] = body.validators.length;
  }
  assert.equal(counts, { BOND_STATUS_BONDED: 3, BOND_STATUS_UNBONDING: 1, BOND_STATUS_UNBONDED: 1 });
});

test('validators: pagination.limit=1 and next_key visit each validator once', async (ctx) => {
  const visited: string[] = [];
  let key: string | null = null;
  for (let page = 0; page < 20; page++) {
    const query: string = key === null ? '' : `&pagination.key=${encodeURIComponent(key)}`;
    const { status, body } = await get(ctx, `/cosmos/staking/v1beta1/validators?pagination.limit=1${query}`);
    assert.is(status, 200, JSON.stringify(body));
    assert.is(body.validators.length, 1);
    visited.push(body.validators[0].operator_address);
    // A limit without count_total, or a key page: the SDK never counts.
    assert.is(body.pagination.total, '0');
    key = body.pagination.next_key;
    if (key === null) break;
    // next_key: standard base64 of the store key (length-prefixed operator address).
    assert.match(key, /^[A-Za-z0-9+/]+={0,2}$/);
  }
  assert.is(key, null, 'the walk ended');
  assert.equal(
    visited,
    ctx.validators.map((v) => v.operatorAddress),
  );
  assert.is(new Set(visited).size, ctx.validators.length);
});

test('validators: count_total=true with a limit counts; a key page does not', async (ctx) => {
  const first = await get(ctx, '/cosmos/staking/v1beta1/validators?pagination.limit=2&pagination.count_total=true');
  assert.is(first.body.pagination.total, String(ctx.validators.length));
  assert.is(first.body.validators.length, 2);
  const next = await get(
    ctx,
    `/cosmos/staking/v1beta1/validators?pagination.limit=2&pagination.count_total=true&pagination.key=${encodeURIComponent(first.body.pagination.next_key)}`,
  );
  assert.is(next.body.pagination.total, '0');
  assert.is(next.body.validators[0].operator_address, ctx.validators[2]!.operatorAddress);
  const reversed = await get(ctx, '/cosmos/staking/v1beta1/validators?pagination.reverse=true');
  assert.equal(
    reversed.body.validators.map((v: { operator_address: string }) => v.operator_address),
    ctx.validators.map((v) => v.operatorAddress).reverse(),
  );
});

test('validators?status=: an unknown status is 400 code 3', async (ctx) => {
  assertGatewayError(
    await get(ctx, '/cosmos/staking/v1beta1/validators?status=BONDED'),
    400,
    3,
    'invalid validator status BONDED',
  );
  assertGatewayError(
    await get(ctx, '/cosmos/staking/v1beta1/validators?pagination.limit=x'),
    400,
    3,
    'type mismatch, parameter: pagination.limit, error: strconv.ParseUint: parsing "x": invalid syntax',
  );
});

// --- one validator ---

test('validators/{valoper}: the validator cosmjs reads, in the node shape', async (ctx) => {
  for (const v of ctx.validators) {
    const { status, body } = await get(ctx, `/cosmos/staking/v1beta1/validators/${v.operatorAddress}`);
    assert.is(status, 200);
    assertShape(body, 'staking-validator');
    assertValidator(body.validator, (await ctx.direct.query.staking.validator(v.operatorAddress)).validator);
  }
});

test('validators/{valoper}: unknown is 404 code 5; an account address or bad checksum is 400 code 3', async (ctx) => {
  const unknown = toBech32('nativevaloper', new Uint8Array(20).fill(7));
  assertGatewayError(
    await get(ctx, `/cosmos/staking/v1beta1/validators/${unknown}`),
    404,
    5,
    `validator ${unknown} not found`,
  );
  const valoper = ctx.validators[0]!.operatorAddress;
  const account = toBech32('native', fromBech32(valoper, 256).data);
  assertGatewayError(
    await get(ctx, `/cosmos/staking/v1beta1/validators/${account}`),
    400,
    3,
    "invalid validator address: hrp does not match bech32 prefix: expected 'nativevaloper' got 'native'",
  );
  const badChecksum = `${valoper.slice(0, -1)}${valoper.endsWith('q') ? 'p' : 'q'}`;
  for (const path of [`validators/${badChecksum}`, `validators/${badChecksum}/delegations`])
    assertGatewayError(
      await get(ctx, `/cosmos/staking/v1beta1/${path}`),
      400,
      3,
      /^invalid validator address: decoding bech32 failed: /,
    );
});

test('validators/{valoper}: tokens are read from the node on each request (a delegation shows at once)', async (ctx) => {
  const valoper = ctx.validators[0]!.operatorAddress;
  const path = `/cosmos/staking/v1beta1/validators/${valoper}`;
  const before = BigInt((await get(ctx, path)).body.validator.tokens);
  const delegator = await signingClient(ctx.devnet, 4);
  try {
    const result = await withBlocks(
      ctx.devnet,
      delegator.client.delegateTokens(delegator.address, valoper, { denom: 'unative', amount: '5000000' }, 'auto'),
    );
    assert.is(result.code, 0, result.rawLog);
  } finally {
    delegator.client.disconnect();
  }
  const after = (await get(ctx, path)).body.validator;
  assert.is(BigInt(after.tokens), before + 5_000_000n);
  assertValidator(after, (await ctx.direct.query.staking.validator(valoper)).validator);
});

// --- delegations ---

test('validators/{valoper}/delegations: the delegations cosmjs reads, in the node shape', async (ctx) => {
  for (const v of ctx.validators) {
    const { status, body } = await get(ctx, `/cosmos/staking/v1beta1/validators/${v.operatorAddress}/delegations`);
    assert.is(status, 200);
    assertShape(body, 'staking-validator-delegations');
    const direct = await ctx.direct.query.staking.validatorDelegations(v.operatorAddress);
    assert.is(body.delegation_responses.length, direct.delegationResponses.length);
    direct.delegationResponses.forEach((d, i) => {
      const api = body.delegation_responses[i];
      assert.is(api.delegation.delegator_address, d.delegation.delegatorAddress);
      assert.is(api.delegation.validator_address, v.operatorAddress);
      assertDec(api.delegation.shares, d.delegation.shares, 'shares');
      assert.equal(api.balance, { denom: d.balance.denom, amount: d.balance.amount });
    });
    assert.equal(body.pagination, { next_key: null, total: String(direct.delegationResponses.length) });
  }
});

test('validators/{valoper}/delegations: count_total with limit=1 gives next_key and the total', async (ctx) => {
  const v = ctx.validators[0]!.operatorAddress;
  const all = (await ctx.direct.query.staking.validatorDelegations(v)).delegationResponses;
  assert.ok(all.length > 1, 'the validator has more than one delegator');
  const { body } = await get(
    ctx,
    `/cosmos/staking/v1beta1/validators/${v}/delegations?pagination.count_total=true&pagination.limit=1`,
  );
  assertShape(body, 'staking-validator-delegations-count-total');
  assert.is(body.delegation_responses.length, 1);
  assert.is(body.pagination.total, String(all.length));
  assert.type(body.pagination.next_key, 'string');
});

test('validators/{valoper}/delegations: an unknown validator is the node 404', async (ctx) => {
  const unknown = toBech32('nativevaloper', new Uint8Array(20).fill(9));
  assertGatewayError(
    await get(ctx, `/cosmos/staking/v1beta1/validators/${unknown}/delegations`),
    404,
    5,
    `validator ${unknown} not found`,
  );
});

test('delegations/{delegator}: every delegation of an account, as cosmjs reads it', async (ctx) => {
  const delegator = ctx.devnet.accounts[4]!.address;
  const { status, body } = await get(ctx, `/cosmos/staking/v1beta1/delegations/${delegator}`);
  assert.is(status, 200);
  assertShape(body, 'staking-delegator-delegations');
  const direct = await ctx.direct.query.staking.delegatorDelegations(delegator);
  assert.ok(direct.delegationResponses.length > 0);
  assert.equal(
    body.delegation_responses.map((d: DelegationJson) => [d.delegation.validator_address, d.balance?.amount]),
    direct.delegationResponses.map((d) => [d.delegation.validatorAddress, d.balance.amount]),
  );
  for (const [i, d] of direct.delegationResponses.entries()) {
    assert.is(body.delegation_responses[i].delegation.delegator_address, delegator);
    assertDec(body.delegation_responses[i].delegation.shares, d.delegation.shares, 'shares');
  }
  assertGatewayError(
    await get(ctx, '/cosmos/staking/v1beta1/delegations/native1notanaddress'),
    400,
    3,
    /^invalid address: decoding bech32 failed: /,
  );
  assertGatewayError(
    await get(ctx, `/cosmos/staking/v1beta1/delegations/${ctx.validators[0]!.operatorAddress}`),
    400,
    3,
    "invalid address: hrp does not match bech32 prefix: expected 'native' got 'nativevaloper'",
  );
});

// --- pool and params ---

test('pool: bonded and not bonded tokens as cosmjs reads them', async (ctx) => {
  const { status, body } = await get(ctx, '/cosmos/staking/v1beta1/pool');
  assert.is(status, 200);
  assertShape(body, 'staking-pool');
  const { pool } = await ctx.direct.query.staking.pool();
  assert.equal(body.pool, { not_bonded_tokens: pool.notBondedTokens, bonded_tokens: pool.bondedTokens });
  const bonded = ctx.validators.filter((v) => v.status === BondStatus.BOND_STATUS_BONDED);
  assert.is(BigInt(body.pool.bonded_tokens) > 0n, bonded.length > 0);
});

test('params: unbonding time "1814400s", 32-bit numbers as numbers, equal to cosmjs', async (ctx) => {
  const { status, body } = await get(ctx, '/cosmos/staking/v1beta1/params');
  assert.is(status, 200);
  assertShape(body, 'staking-params');
  const { params } = await ctx.direct.query.staking.params();
  assert.equal(body.params, {
    unbonding_time: `${params.unbondingTime.seconds}s`,
    max_validators: params.maxValidators,
    max_entries: params.maxEntries,
    historical_entries: params.historicalEntries,
    bond_denom: params.bondDenom,
    min_commission_rate: body.params.min_commission_rate,
  });
  assertDec(body.params.min_commission_rate, params.minCommissionRate, 'min_commission_rate');
  assert.is(body.params.unbonding_time, '1814400s');
  assert.is(body.params.max_validators, 100);
  assert.is(body.params.max_entries, 7);
  assert.is(body.params.bond_denom, 'unative');
});

test.run();
