// Staking state from the node (docs/chain-api.md, "Staking"): validators (status filter,
// pagination), one validator, its delegations, a delegator's delegations, the pool and
// the params, through cosmjs ABCI queries. Validators' tokens, delegations and the pool
// are never cached; params are kept PARAMS_TTL_MS. The routes are data
// (src/api/http/routes.ts), each described beside its handler; the Chain API's route table
// (src/api/chain/route-table.ts) joins them for the server, which mounts it, and for the
// OpenAPI document, which describes it.
import { createProtobufRpcClient } from '@cosmjs/stargate';
import { QueryClientImpl as StakingQuery } from 'cosmjs-types/cosmos/staking/v1beta1/query';
import type { Request } from 'polka';
import { z } from 'zod';
import type { Route } from '../../http/routes.ts';
import { type ChainApiContext, perContext } from '../context.ts';
import { fromQuery, invalidArgument, nodeStateJson } from '../gateway.ts';
import { addressParam, pageRequest, pageResponse, single } from '../params.ts';
import { answer, bech32, notFoundAnswer, paginated, TAGS } from '../route-docs.ts';
import { delegationResponseJson, poolJson, stakingParamsJson, validatorJson } from '../state-json.ts';

/** How long staking params are kept before the node is asked again. */
export const PARAMS_TTL_MS = 60_000;

/** The `status` filter's values (x/staking's Query/Validators accepts these names or nothing). */
const BOND_STATUSES = new Set(['BOND_STATUS_UNBONDED', 'BOND_STATUS_UNBONDING', 'BOND_STATUS_BONDED']);

/** The staking module's query client, one per server. */
const stakingOf = perContext((ctx) => new StakingQuery(createProtobufRpcClient(ctx.chain.queries)));
const validatorAddress = (ctx: ChainApiContext, req: Request) =>
  addressParam(req.params.validator_addr ?? '', ctx.prefixes.validator, 'validator address');

const validatorParams = z.object({
  validator_addr: z.string().describe('a validator operator address (`nativevaloper1…`)'),
});

export const stakingRoutes: Route<ChainApiContext>[] = [
  {
    method: 'get',
    path: '/cosmos/staking/v1beta1/validators',
    tag: TAGS.staking,
    summary: 'Validators, optionally of one bond status',
    query: paginated({
      status: z.enum(['BOND_STATUS_BONDED', 'BOND_STATUS_UNBONDING', 'BOND_STATUS_UNBONDED']).optional(),
    }),
    responses: { 200: answer('validators, pagination') },
    handler: (ctx) =>
      nodeStateJson(async (req) => {
        const pagination = pageRequest(req.query);
        const status = single(req.query, 'status') ?? '';
        if (status !== '' && !BOND_STATUSES.has(status)) throw invalidArgument(`invalid validator status ${status}`);
        const r = await fromQuery(() => stakingOf(ctx).Validators({ status, pagination }));
        return { validators: r.validators.map(validatorJson), pagination: pageResponse(r.pagination) };
      }),
  },
  // Unknown validator: 404, code 5, "validator <address> not found" (the node's words).
  {
    method: 'get',
    path: '/cosmos/staking/v1beta1/validators/:validator_addr',
    tag: TAGS.staking,
    summary: 'One validator',
    params: validatorParams,
    responses: { 200: answer('validator'), 404: notFoundAnswer('no such validator') },
    handler: (ctx) =>
      nodeStateJson(async (req) => {
        const address = validatorAddress(ctx, req);
        const { validator } = await fromQuery(() => ctx.chain.queries.staking.validator(address));
        return { validator: validatorJson(validator) };
      }),
  },
  {
    method: 'get',
    path: '/cosmos/staking/v1beta1/validators/:validator_addr/delegations',
    tag: TAGS.staking,
    summary: "A validator's delegations",
    params: validatorParams,
    query: paginated(),
    responses: { 200: answer('delegation_responses, pagination'), 404: notFoundAnswer('no such validator') },
    handler: (ctx) =>
      nodeStateJson(async (req) => {
        const pagination = pageRequest(req.query);
        const validatorAddr = validatorAddress(ctx, req);
        const r = await fromQuery(() => stakingOf(ctx).ValidatorDelegations({ validatorAddr, pagination }));
        return {
          delegation_responses: r.delegationResponses.map(delegationResponseJson),
          pagination: pageResponse(r.pagination),
        };
      }),
  },
  {
    method: 'get',
    path: '/cosmos/staking/v1beta1/delegations/:delegator_addr',
    tag: TAGS.staking,
    summary: "A delegator's delegations",
    params: z.object({ delegator_addr: bech32('account') }),
    query: paginated(),
    responses: { 200: answer('delegation_responses, pagination') },
    handler: (ctx) =>
      nodeStateJson(async (req) => {
        const pagination = pageRequest(req.query);
        const delegatorAddr = addressParam(req.params.delegator_addr ?? '', ctx.prefixes.account);
        const r = await fromQuery(() => stakingOf(ctx).DelegatorDelegations({ delegatorAddr, pagination }));
        return {
          delegation_responses: r.delegationResponses.map(delegationResponseJson),
          pagination: pageResponse(r.pagination),
        };
      }),
  },
  {
    method: 'get',
    path: '/cosmos/staking/v1beta1/pool',
    tag: TAGS.staking,
    summary: 'Bonded and not bonded tokens',
    responses: { 200: answer('pool') },
    handler: (ctx) =>
      nodeStateJson(async () => ({
        pool: poolJson((await fromQuery(() => ctx.chain.queries.staking.pool())).pool),
      })),
  },
  {
    method: 'get',
    path: '/cosmos/staking/v1beta1/params',
    tag: TAGS.staking,
    summary: 'Staking parameters',
    responses: { 200: answer('params') },
    handler: (ctx) =>
      nodeStateJson(() =>
        ctx.slow('staking/params', PARAMS_TTL_MS, async () => {
          const { params } = await fromQuery(() => ctx.chain.queries.staking.params());
          return { params: params ? stakingParamsJson(params) : null };
        }),
      ),
  },
];
