// Staking state from the node (docs/chain-api.md, "Staking"): validators (status filter,
// pagination), one validator, its delegations, a delegator's delegations, the pool and
// the params, through cosmjs ABCI queries. Validators' tokens, delegations and the pool
// are never cached; params are kept PARAMS_TTL_MS.
import type { ServerResponse } from 'node:http';
import { createProtobufRpcClient } from '@cosmjs/stargate';
import { QueryClientImpl as StakingQuery } from 'cosmjs-types/cosmos/staking/v1beta1/query';
import type { Polka, Request } from 'polka';
import { sendJson } from '../../http/respond.ts';
import type { ChainApiContext } from '../context.ts';
import { fromQuery, invalidArgument } from '../gateway.ts';
import { addressParam, pageRequest, pageResponse, single } from '../params.ts';
import { delegationResponseJson, poolJson, stakingParamsJson, validatorJson } from '../state-json.ts';

/** How long staking params are kept before the node is asked again. */
export const PARAMS_TTL_MS = 60_000;

/** The `status` filter's values (x/staking's Query/Validators accepts these names or nothing). */
const BOND_STATUSES = new Set(['BOND_STATUS_UNBONDED', 'BOND_STATUS_UNBONDING', 'BOND_STATUS_BONDED']);

export function registerStaking(app: Polka, ctx: ChainApiContext): void {
  const { queries } = ctx.chain;
  const staking = new StakingQuery(createProtobufRpcClient(queries));
  const validatorAddress = (req: Request) =>
    addressParam(req.params.validator_addr ?? '', ctx.prefixes.validator, 'validator address');
  const route = (path: string, answer: (req: Request) => Promise<object>) =>
    app.get(path, async (req: Request, res: ServerResponse) => sendJson(res, 200, await answer(req)));

  route('/cosmos/staking/v1beta1/validators', async (req) => {
    const pagination = pageRequest(req.query);
    const status = single(req.query, 'status') ?? '';
    if (status !== '' && !BOND_STATUSES.has(status)) throw invalidArgument(`invalid validator status ${status}`);
    const r = await fromQuery(() => staking.Validators({ status, pagination }));
    return { validators: r.validators.map(validatorJson), pagination: pageResponse(r.pagination) };
  });

  // Unknown validator: 404, code 5, "validator <address> not found" (the node's words).
  route('/cosmos/staking/v1beta1/validators/:validator_addr', async (req) => {
    const address = validatorAddress(req);
    const { validator } = await fromQuery(() => queries.staking.validator(address));
    return { validator: validatorJson(validator) };
  });

  route('/cosmos/staking/v1beta1/validators/:validator_addr/delegations', async (req) => {
    const pagination = pageRequest(req.query);
    const validatorAddr = validatorAddress(req);
    const r = await fromQuery(() => staking.ValidatorDelegations({ validatorAddr, pagination }));
    return {
      delegation_responses: r.delegationResponses.map(delegationResponseJson),
      pagination: pageResponse(r.pagination),
    };
  });

  route('/cosmos/staking/v1beta1/delegations/:delegator_addr', async (req) => {
    const pagination = pageRequest(req.query);
    const delegatorAddr = addressParam(req.params.delegator_addr ?? '', ctx.prefixes.account);
    const r = await fromQuery(() => staking.DelegatorDelegations({ delegatorAddr, pagination }));
    return {
      delegation_responses: r.delegationResponses.map(delegationResponseJson),
      pagination: pageResponse(r.pagination),
    };
  });

  route('/cosmos/staking/v1beta1/pool', async () => ({
    pool: poolJson((await fromQuery(() => queries.staking.pool())).pool),
  }));

  route('/cosmos/staking/v1beta1/params', () =>
    ctx.slow('staking/params', PARAMS_TTL_MS, async () => {
      const { params } = await fromQuery(() => queries.staking.params());
      return { params: params ? stakingParamsJson(params) : null };
    }),
  );
}
