// Node and module parameters from the node (docs/chain-api.md, "Network and parameters"):
// node info and sync state (the tendermint base service), mint params, gov v1 params by
// type, and accounts. The base service, mint and gov v1 have no cosmjs extension: their
// cosmjs-types clients run over cosmjs's ABCI query client. Node info and params are kept
// NODE_INFO_TTL_MS / PARAMS_TTL_MS; sync state and accounts are never cached. The routes
// are data (src/api/http/routes.ts), each described beside its handler; the Chain API's
// route table (src/api/chain/route-table.ts) joins them for the server, which mounts it, and
// for the OpenAPI document, which describes it.
import { createProtobufRpcClient } from '@cosmjs/stargate';
import { ServiceClientImpl as TendermintService } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query';
import { QueryClientImpl as GovQuery } from 'cosmjs-types/cosmos/gov/v1/query';
import { QueryClientImpl as MintQuery } from 'cosmjs-types/cosmos/mint/v1beta1/query';
import { z } from 'zod';
import type { Route } from '../../http/routes.ts';
import { type ChainApiContext, perContext } from '../context.ts';
import { fromQuery, nodeStateJson, notFound } from '../gateway.ts';
import { addressParam } from '../params.ts';
import { accountParams, answer, notFoundAnswer, TAGS } from '../route-docs.ts';
import { accountJson, govParamsResponseJson, mintParamsJson, nodeInfoJson } from '../state-json.ts';

/** How long node info is kept (it changes when the node is upgraded). */
export const NODE_INFO_TTL_MS = 60_000;
/** How long mint and gov params are kept (they change only through governance). */
export const PARAMS_TTL_MS = 60_000;

/** The query clients cosmjs has no extension for, one set per server. */
const clientsOf = perContext((ctx) => {
  const rpc = createProtobufRpcClient(ctx.chain.queries);
  return { tendermint: new TendermintService(rpc), mint: new MintQuery(rpc), gov: new GovQuery(rpc) };
});

export const networkRoutes: Route<ChainApiContext>[] = [
  {
    method: 'get',
    path: '/cosmos/base/tendermint/v1beta1/node_info',
    tag: TAGS.network,
    summary: "The node's and the application's versions",
    responses: { 200: answer('default_node_info, application_version') },
    handler: (ctx) =>
      nodeStateJson(() =>
        ctx.slow('tendermint/node_info', NODE_INFO_TTL_MS, async () =>
          nodeInfoJson(await fromQuery(() => clientsOf(ctx).tendermint.GetNodeInfo({}))),
        ),
      ),
  },
  {
    method: 'get',
    path: '/cosmos/base/tendermint/v1beta1/syncing',
    tag: TAGS.network,
    summary: 'Whether the node is catching up',
    responses: { 200: answer('syncing') },
    handler: (ctx) =>
      nodeStateJson(async () => ({
        syncing: (await fromQuery(() => clientsOf(ctx).tendermint.GetSyncing({}))).syncing,
      })),
  },
  {
    method: 'get',
    path: '/cosmos/mint/v1beta1/params',
    tag: TAGS.network,
    summary: 'Mint parameters',
    responses: { 200: answer('params') },
    handler: (ctx) =>
      nodeStateJson(() =>
        ctx.slow('mint/params', PARAMS_TTL_MS, async () => {
          const { params } = await fromQuery(() => clientsOf(ctx).mint.Params({}));
          return { params: params ? mintParamsJson(params) : null };
        }),
      ),
  },
  // `voting`, `deposit` or `tallying`: that legacy section filled, the other two null, and
  // the whole `params`; any other type is the node's 400 "unknown params type: <t>".
  {
    method: 'get',
    path: '/cosmos/gov/v1/params/:params_type',
    tag: TAGS.network,
    summary: 'Governance parameters',
    params: z.object({ params_type: z.enum(['voting', 'deposit', 'tallying']) }),
    responses: { 200: answer('voting_params, deposit_params, tally_params, params') },
    handler: (ctx) =>
      nodeStateJson((req) => {
        const paramsType = req.params.params_type ?? '';
        return ctx.slow(`gov/params/${paramsType}`, PARAMS_TTL_MS, async () =>
          govParamsResponseJson(await fromQuery(() => clientsOf(ctx).gov.Params({ paramsType }))),
        );
      }),
  },
  // Unknown account: 404, code 5, "account <address> not found" (the node's words).
  {
    method: 'get',
    path: '/cosmos/auth/v1beta1/accounts/:address',
    tag: TAGS.network,
    summary: 'An account: its number, sequence and public key',
    params: accountParams,
    responses: { 200: answer('account'), 404: notFoundAnswer('no such account') },
    handler: (ctx) =>
      nodeStateJson(async (req) => {
        const address = addressParam(req.params.address ?? '', ctx.prefixes.account);
        const account = await fromQuery(() => ctx.chain.queries.auth.account(address));
        if (!account) throw notFound(`account ${address} not found`);
        return { account: accountJson(account) };
      }),
  },
];
