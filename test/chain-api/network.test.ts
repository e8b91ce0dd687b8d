// Chain API node and parameter routes against a devnet: node info, syncing, mint params,
// gov v1 params by type and accounts, equal to what cosmjs reads from the node directly and
// in the shapes of the recorded node answers (test/fixtures/cosmos-rest); every error case.
import { toBase64, toHex } from '@cosmjs/encoding';
import { Decimal } from '@cosmjs/math';
import { accountFromAny, createProtobufRpcClient, setupMintExtension } from '@cosmjs/stargate';
import { ServiceClientImpl as TendermintService } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query';
import { QueryClientImpl as GovQuery } from 'cosmjs-types/cosmos/gov/v1/query';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { type ChainCtx, chainGet, closeChainApi, openChainApi } from '../helpers/chain-api.ts';
import { assertGatewayError } from '../helpers/chain-state.ts';
import { queryClient, randomAddress, signingClient } from '../helpers/devnet.ts';
import { withBlocks } from '../helpers/indexing.ts';
import { assertShape } from '../helpers/rest-shape.ts';

type Ctx = ChainCtx & { direct: Awaited<ReturnType<typeof queryClient>> };
const test = suite<Ctx>('Chain API: node, params and accounts', {} as Ctx);

const get = (ctx: Ctx, path: string) => chainGet(ctx.api, path);
const duration = (d: { seconds: bigint } | undefined) => `${d?.seconds}s`;

/** Fields SDK v0.50 added to gov v1 `params` (expedited proposals, cancel ratio, deposit ratio); the fixtures are v0.47 answers (SOURCES.md). */
const GOV_V050_FIELDS = [
  'params.proposal_cancel_ratio',
  'params.proposal_cancel_dest',
  'params.expedited_voting_period',
  'params.expedited_threshold',
  'params.expedited_min_deposit',
  'params.min_deposit_ratio',
];

test.before(async (ctx) => {
  await openChainApi(ctx);
  ctx.direct = await queryClient(ctx.devnet);
});
test.after(async (ctx) => {
  ctx.direct?.comet.disconnect();
  await closeChainApi(ctx);
});

// --- node ---

test('node_info: the node identity and versions, in the node shape', async (ctx) => {
  const { status, body } = await get(ctx, '/cosmos/base/tendermint/v1beta1/node_info');
  assert.is(status, 200);
  // the devnet is not a Go binary: it has no build dependencies to list
  assertShape(body, 'node-info', { empty: ['application_version.build_deps'] });
  const { nodeInfo } = await ctx.direct.comet.status();
  const n = body.default_node_info;
  assert.is(n.network, nodeInfo.network);
  assert.is(n.default_node_id, toHex(nodeInfo.id));
  assert.is(n.version, nodeInfo.version);
  assert.is(n.moniker, nodeInfo.moniker);
  // base64 of the bytes the RPC status prints in hex.
  assert.is(n.channels, toBase64(Buffer.from(nodeInfo.channels, 'hex')));
  assert.equal(n.protocol_version, {
    p2p: String(nodeInfo.protocolVersion.p2p),
    block: String(nodeInfo.protocolVersion.block),
    app: String(nodeInfo.protocolVersion.app),
  });
  const direct = await new TendermintService(createProtobufRpcClient(ctx.direct.query)).GetNodeInfo({});
  const a = direct.applicationVersion!;
  assert.equal(body.application_version, {
    name: a.name,
    app_name: a.appName,
    version: a.version,
    git_commit: a.gitCommit,
    build_tags: a.buildTags,
    go_version: a.goVersion,
    build_deps: a.buildDeps.map((d) => ({ path: d.path, version: d.version, sum: d.sum })),
    cosmos_sdk_version: a.cosmosSdkVersion,
  });
  assert.is(body.application_version.cosmos_sdk_version, 'v0.50.13');
  assert.equal(n.other, {
    tx_index: direct.defaultNodeInfo!.other.txIndex,
    rpc_address: direct.defaultNodeInfo!.other.rpcAddress,
  });
  assert.is(n.listen_addr, direct.defaultNodeInfo!.listenAddr);
});

test('syncing: {syncing} as the node reports catching up', async (ctx) => {
  const { status, body } = await get(ctx, '/cosmos/base/tendermint/v1beta1/syncing');
  assert.is(status, 200);
  assertShape(body, 'syncing');
  assert.equal(body, { syncing: (await ctx.direct.comet.status()).syncInfo.catchingUp });
});

// --- params ---

test('mint params: 18-decimal rates and blocks_per_year as a string, equal to cosmjs', async (ctx) => {
  const { status, body } = await get(ctx, '/cosmos/mint/v1beta1/params');
  assert.is(status, 200);
  assertShape(body, 'mint-params');
  const direct = await setupMintExtension(ctx.direct.query).mint.params();
  const p = body.params;
  assert.is(p.mint_denom, direct.mintDenom);
  assert.is(p.blocks_per_year, direct.blocksPerYear.toString());
  for (const [api, cosmjs] of [
    [p.inflation_rate_change, direct.inflationRateChange],
    [p.inflation_max, direct.inflationMax],
    [p.inflation_min, direct.inflationMin],
    [p.goal_bonded, direct.goalBonded],
  ] as const) {
    assert.match(api, /^\d+\.\d{18}$/);
    assert.ok(Decimal.fromUserInput(api, 18).equals(cosmjs), `${api} vs ${cosmjs.toString()}`);
  }
  assert.equal(p, {
    mint_denom: 'unative',
    inflation_rate_change: '0.000000000000000000',
    inflation_max: '0.000000000000000000',
    inflation_min: '0.000000000000000000',
    goal_bonded: '0.670000000000000000',
    blocks_per_year: '6311520',
  });
});

/** gov v1 `params` as the node holds them, printed as the gateway prints them. */
async function directGovParams(ctx: Ctx, paramsType: string) {
  const r = await new GovQuery(createProtobufRpcClient(ctx.direct.query)).Params({ paramsType });
  const p = r.params!;
  return {
    response: r,
    params: {
      min_deposit: p.minDeposit,
      max_deposit_period: duration(p.maxDepositPeriod),
      voting_period: duration(p.votingPeriod),
      quorum: p.quorum,
      threshold: p.threshold,
      veto_threshold: p.vetoThreshold,
      min_initial_deposit_ratio: p.minInitialDepositRatio,
      proposal_cancel_ratio: p.proposalCancelRatio,
      proposal_cancel_dest: p.proposalCancelDest,
      expedited_voting_period: duration(p.expeditedVotingPeriod),
      expedited_threshold: p.expeditedThreshold,
      expedited_min_deposit: p.expeditedMinDeposit,
      burn_vote_quorum: p.burnVoteQuorum,
      burn_proposal_deposit_prevote: p.burnProposalDepositPrevote,
      burn_vote_veto: p.burnVoteVeto,
      min_deposit_ratio: p.minDepositRatio,
    },
  };
}

test('gov v1 params/voting: voting_params set, the other sections null, the whole params', async (ctx) => {
  const { status, body } = await get(ctx, '/cosmos/gov/v1/params/voting');
  assert.is(status, 200);
  assertShape(body, 'gov-v1-params-voting', { ignore: GOV_V050_FIELDS });
  const direct = await directGovParams(ctx, 'voting');
  assert.equal(body.voting_params, { voting_period: duration(direct.response.votingParams!.votingPeriod) });
  assert.is(body.deposit_params, null);
  assert.is(body.tally_params, null);
  assert.equal(body.params, direct.params);
  // The legacy v1beta1 service, as cosmjs's gov extension asks it, agrees on the period.
  const legacy = await ctx.direct.query.gov.params('voting');
  assert.is(body.voting_params.voting_period, `${legacy.votingParams.votingPeriod.seconds}s`);
  assert.is(body.params.quorum, '0.334000000000000000');
});

test('gov v1 params/deposit: deposit_params set, the other sections null', async (ctx) => {
  const { status, body } = await get(ctx, '/cosmos/gov/v1/params/deposit');
  assert.is(status, 200);
  assertShape(body, 'gov-v1-params-deposit-sdk047-stratos', { ignore: GOV_V050_FIELDS });
  const direct = await directGovParams(ctx, 'deposit');
  const deposit = direct.response.depositParams!;
  assert.equal(body.deposit_params, {
    min_deposit: deposit.minDeposit,
    max_deposit_period: duration(deposit.maxDepositPeriod),
  });
  assert.is(body.voting_params, null);
  assert.is(body.tally_params, null);
  assert.equal(body.params, direct.params);
});

test('gov v1 params/tallying: tally_params set, the other sections null', async (ctx) => {
  const { status, body } = await get(ctx, '/cosmos/gov/v1/params/tallying');
  assert.is(status, 200);
  const direct = await directGovParams(ctx, 'tallying');
  const tally = direct.response.tallyParams!;
  assert.equal(body, {
    voting_params: null,
    deposit_params: null,
    tally_params: { quorum: tally.quorum, threshold: tally.threshold, veto_threshold: tally.vetoThreshold },
    params: direct.params,
  });
});

test('gov v1 params/{type}: another type is the node 400 code 3', async (ctx) => {
  assertGatewayError(await get(ctx, '/cosmos/gov/v1/params/voting2'), 400, 3, 'unknown params type: voting2');
});

// --- accounts ---

test('accounts/{address}: a BaseAccount whose sequence and key follow its transactions', async (ctx) => {
  const holder = await signingClient(ctx.devnet, 5);
  const path = `/cosmos/auth/v1beta1/accounts/${holder.address}`;
  try {
    const before = await get(ctx, path);
    assert.is(before.status, 200);
    assert.equal(Object.keys(before.body), ['account']);
    assert.equal(Object.keys(before.body.account), ['@type', 'address', 'pub_key', 'account_number', 'sequence']);
    const direct = accountFromAny((await ctx.direct.query.auth.account(holder.address))!);
    assert.equal(before.body.account, {
      '@type': '/cosmos.auth.v1beta1.BaseAccount',
      address: holder.address,
      pub_key: null,
      account_number: String(direct.accountNumber),
      sequence: String(direct.sequence),
    });

    const sent = await withBlocks(
      ctx.devnet,
      holder.client.sendTokens(holder.address, randomAddress(), [{ denom: 'unative', amount: '1' }], 'auto'),
    );
    assert.is(sent.code, 0, sent.rawLog);
    const after = (await get(ctx, path)).body.account;
    const afterDirect = accountFromAny((await ctx.direct.query.auth.account(holder.address))!);
    assert.is(after.sequence, String(afterDirect.sequence));
    assert.is(after.sequence, String(direct.sequence + 1));
    assert.is(after.account_number, String(afterDirect.accountNumber));
    const [{ pubkey }] = await holder.signer.getAccounts();
    assert.equal(after.pub_key, { '@type': '/cosmos.crypto.secp256k1.PubKey', key: toBase64(pubkey!) });
    assert.equal(afterDirect.pubkey, { type: 'tendermint/PubKeySecp256k1', value: toBase64(pubkey!) });
  } finally {
    holder.client.disconnect();
  }
});

test('accounts/{address}: unknown is 404 code 5; invalid is 400 code 3', async (ctx) => {
  const unknown = randomAddress();
  assertGatewayError(
    await get(ctx, `/cosmos/auth/v1beta1/accounts/${unknown}`),
    404,
    5,
    `account ${unknown} not found`,
  );
  assertGatewayError(
    await get(ctx, '/cosmos/auth/v1beta1/accounts/native1notanaddress'),
    400,
    3,
    /^invalid address: decoding bech32 failed: /,
  );
  assertGatewayError(
    await get(ctx, '/cosmos/auth/v1beta1/accounts/nativevaloper1qltwxpcmp7cuuws4xeect3aw3anzusck2gehl3'),
    400,
    3,
    "invalid address: hrp does not match bech32 prefix: expected 'native' got 'nativevaloper'",
  );
});

test.run();
