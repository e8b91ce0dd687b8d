// ABCI queries through cosmjs's QueryClient extensions: what the Chain API reads from the
// auth, bank, staking, mint and gov modules, with the SDK's pagination and errors.
import { toBech32 } from '@cosmjs/encoding';
import { Decimal } from '@cosmjs/math';
import { PageRequest } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import { GetNodeInfoRequest, GetNodeInfoResponse } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query';
import {
  QueryParamsRequest as GovParamsRequest,
  QueryParamsResponse as GovParamsResponse,
} from 'cosmjs-types/cosmos/gov/v1/query';
import { QueryValidatorsRequest, QueryValidatorsResponse } from 'cosmjs-types/cosmos/staking/v1beta1/query';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Devnet } from '../../src/devnet/index.ts';
import { queryClient, startDevnet } from '../helpers/devnet.ts';

let devnet: Devnet;
let ctx: Awaited<ReturnType<typeof queryClient>>;
const dec = (atomics: string) => Decimal.fromAtomics(atomics, 18).toString();

test.before(async () => {
  devnet = await startDevnet({ blockMs: 0 });
  ctx = await queryClient(devnet);
});
test.after(async () => {
  ctx.comet.disconnect();
  await devnet.close();
});

test('auth: an account has its number and sequence; an unknown one is NotFound', async () => {
  const account = await ctx.query.auth.account(devnet.accounts[0]!.address);
  assert.is(account?.typeUrl, '/cosmos.auth.v1beta1.BaseAccount');
  try {
    await ctx.query.auth.account(toBech32('native', new Uint8Array(20).fill(9)));
    assert.unreachable();
  } catch (error) {
    assert.match(
      (error as Error).message,
      /rpc error: code = NotFound desc = account native1\w+ not found: key not found/,
    );
  }
});

test('bank: supply, supply of unative and the unative metadata', async () => {
  const supply = await ctx.query.bank.totalSupply();
  assert.equal(
    supply.supply.map((c) => c.denom),
    ['unative'],
  );
  assert.is((await ctx.query.bank.supplyOf('unative')).amount, supply.supply[0]!.amount);
  const metadata = await ctx.query.bank.denomMetadata('unative');
  assert.is(metadata.base, 'unative');
  assert.is(metadata.display, 'NATIVE');
  assert.equal(
    metadata.denomUnits.map((u) => [u.denom, u.exponent]),
    [
      ['unative', 0],
      ['NATIVE', 6],
    ],
  );
  assert.is((await ctx.query.bank.denomsMetadata()).length, 1);
});

test('staking: validators exist in all three bond statuses, filtered by status', async () => {
  const all = await ctx.query.staking.validators('');
  assert.is(all.validators.length, 5);
  const bonded = await ctx.query.staking.validators('BOND_STATUS_BONDED');
  const unbonding = await ctx.query.staking.validators('BOND_STATUS_UNBONDING');
  const unbonded = await ctx.query.staking.validators('BOND_STATUS_UNBONDED');
  assert.equal([bonded.validators.length, unbonding.validators.length, unbonded.validators.length], [3, 1, 1]);
  const validator = bonded.validators[0]!;
  assert.match(validator.operatorAddress, /^nativevaloper1/);
  assert.is(dec(validator.commission.commissionRates.rate).length > 0, true);
  assert.is(
    (await ctx.query.staking.validator(validator.operatorAddress)).validator.operatorAddress,
    validator.operatorAddress,
  );
  const pool = await ctx.query.staking.pool();
  const bondedTokens = bonded.validators.reduce((sum, v) => sum + BigInt(v.tokens), 0n);
  assert.is(BigInt(pool.pool.bondedTokens), bondedTokens);
  assert.ok(BigInt(pool.pool.notBondedTokens) > 0n);
});

test('staking: params match the chain facts of docs/devnet.md', async () => {
  const { params } = await ctx.query.staking.params();
  assert.is(params.unbondingTime.seconds, 1_814_400n);
  assert.is(params.maxValidators, 100);
  assert.is(params.maxEntries, 7);
  assert.is(params.bondDenom, 'unative');
});

test('staking: delegations of a validator and of a delegator', async () => {
  const delegator = devnet.accounts[0]!.address;
  const mine = await ctx.query.staking.delegatorDelegations(delegator);
  assert.is(mine.delegationResponses.length, 1);
  const validator = mine.delegationResponses[0]!.delegation.validatorAddress;
  const theirs = await ctx.query.staking.validatorDelegations(validator);
  assert.ok(theirs.delegationResponses.some((d) => d.delegation.delegatorAddress === delegator));
  assert.is(mine.delegationResponses[0]!.balance.amount, '1000000000');
});

async function validatorsPage(pagination: Partial<PageRequest>) {
  const request = QueryValidatorsRequest.encode({
    status: '',
    pagination: PageRequest.fromPartial(pagination),
  }).finish();
  const response = await ctx.query.queryAbci('/cosmos.staking.v1beta1.Query/Validators', request);
  return QueryValidatorsResponse.decode(response.value);
}

test('pagination: limit, next_key and count_total behave as in the SDK', async () => {
  const page1 = await validatorsPage({});
  assert.is(page1.pagination?.total, 5n, 'no limit: total is counted');
  const limited = await validatorsPage({ limit: 2n });
  assert.is(limited.validators.length, 2);
  assert.is(limited.pagination?.total, 0n, 'a limit without count_total counts nothing');
  assert.ok(limited.pagination!.nextKey.length > 0);
  assert.is(limited.pagination!.nextKey[0], 20, 'next_key is the length-prefixed operator address');
  const counted = await validatorsPage({ limit: 2n, countTotal: true });
  assert.is(counted.pagination?.total, 5n);
  const page2 = await validatorsPage({ key: limited.pagination!.nextKey, limit: 3n, countTotal: true });
  assert.is(page2.pagination?.total, 0n, 'a key page is never counted');
  const seen = [...limited.validators, ...page2.validators].map((v) => v.operatorAddress);
  assert.is(new Set(seen).size, 5, 'the pages do not overlap and cover every validator');
});

test('mint: no inflation, 6311520 blocks per year, goal bonded 0.67', async () => {
  const params = await ctx.query.mint.params();
  assert.is(params.mintDenom, 'unative');
  assert.is(params.inflationMax.toString(), '0');
  assert.is(params.inflationMin.toString(), '0');
  assert.is(params.inflationRateChange.toString(), '0');
  assert.is(params.goalBonded.toString(), '0.67');
  assert.is(params.blocksPerYear, 6_311_520n);
});

test('gov: v1 params by type carry voting period, quorum and threshold', async () => {
  const v1 = GovParamsResponse.decode(
    (
      await ctx.query.queryAbci(
        '/cosmos.gov.v1.Query/Params',
        GovParamsRequest.encode({ paramsType: 'voting' }).finish(),
      )
    ).value,
  );
  assert.is(v1.votingParams?.votingPeriod?.seconds, 172_800n);
  assert.is(v1.depositParams, undefined, 'only the requested legacy section is set');
  assert.is(v1.params?.quorum, '0.334000000000000000');
  assert.is(v1.params?.threshold, '0.500000000000000000');
  const voting = await ctx.query.gov.params('voting');
  assert.is(voting.votingParams?.votingPeriod?.seconds, 172_800n);
  const tallying = await ctx.query.gov.params('tallying');
  assert.ok(tallying.tallyParams);
  const deposit = await ctx.query.gov.params('deposit');
  assert.is(deposit.depositParams?.minDeposit[0]?.denom, 'unative');
});

test('node info: the tendermint base service names the chain and versions', async () => {
  const response = await ctx.query.queryAbci(
    '/cosmos.base.tendermint.v1beta1.Service/GetNodeInfo',
    GetNodeInfoRequest.encode({}).finish(),
  );
  const info = GetNodeInfoResponse.decode(response.value);
  assert.is(info.defaultNodeInfo?.network, 'native-devnet-1');
  const sdk = { '0.34': 'v0.45.', '0.37': 'v0.47.', '0.38': 'v0.50.' }[devnet.cometVersion];
  assert.ok(info.defaultNodeInfo!.version.startsWith(`${devnet.cometVersion}.`), info.defaultNodeInfo!.version);
  assert.ok(info.applicationVersion!.cosmosSdkVersion.startsWith(sdk), info.applicationVersion!.cosmosSdkVersion);
});

test('abci: an unknown query path is an SDK error, not a crash', async () => {
  try {
    await ctx.query.queryAbci('/cosmos.nothing.v1.Query/Nothing', new Uint8Array());
    assert.unreachable();
  } catch (error) {
    assert.match(
      (error as Error).message,
      /Query failed with \(6\): unknown query path: \/cosmos.nothing.v1.Query\/Nothing: unknown request/,
    );
  }
  const info = await ctx.comet.abciInfo();
  assert.is(info.lastBlockHeight, devnet.height());
  assert.is(info.data, 'native');
});

test.run();
