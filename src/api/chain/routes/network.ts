// Node and module parameters from the node (docs/chain-api.md, "Network and parameters"):
// node info and sync state (the tendermint base service), mint params, gov v1 params by
// type, and accounts. The base service, mint and gov v1 have no cosmjs extension: their
// cosmjs-types clients run over cosmjs's ABCI query client. Node info and params are kept
// NODE_INFO_TTL_MS / PARAMS_TTL_MS; sync state and accounts are never cached.
import type { ServerResponse } from 'node:http';
import { createProtobufRpcClient } from '@cosmjs/stargate';
import { ServiceClientImpl as TendermintService } from 'cosmjs-types/cosmos/base/tendermint/v1beta1/query';
import { QueryClientImpl as GovQuery } from 'cosmjs-types/cosmos/gov/v1/query';
import { QueryClientImpl as MintQuery } from 'cosmjs-types/cosmos/mint/v1beta1/query';
import type { Polka, Request } from 'polka';
import { sendJson } from '../../http/respond.ts';
import type { ChainApiContext } from '../context.ts';
import { fromQuery, notFound } from '../gateway.ts';
import { addressParam } from '../params.ts';
import { accountJson, govParamsResponseJson, mintParamsJson, nodeInfoJson } from '../state-json.ts';

/** How long node info is kept (it changes when the node is upgraded). */
export const NODE_INFO_TTL_MS = 60_000;
/** How long mint and gov params are kept (they change only through governance). */
export const PARAMS_TTL_MS = 60_000;

export function registerNetwork(app: Polka, ctx: ChainApiContext): void {
  const { queries } = ctx.chain;
  const rpc = createProtobufRpcClient(queries);
  const tendermint = new TendermintService(rpc);
  const mint = new MintQuery(rpc);
  const gov = new GovQuery(rpc);
  const route = (path: string, answer: (req: Request) => Promise<object>) =>
    app.get(path, async (req: Request, res: ServerResponse) => sendJson(res, 200, await answer(req)));

  route('/cosmos/base/tendermint/v1beta1/node_info', () =>
    ctx.slow('tendermint/node_info', NODE_INFO_TTL_MS, async () =>
      nodeInfoJson(await fromQuery(() => tendermint.GetNodeInfo({}))),
    ),
  );

  route('/cosmos/base/tendermint/v1beta1/syncing', async () => ({
    syncing: (await fromQuery(() => tendermint.GetSyncing({}))).syncing,
  }));

  route('/cosmos/mint/v1beta1/params', () =>
    ctx.slow('mint/params', PARAMS_TTL_MS, async () => {
      const { params } = await fromQuery(() => mint.Params({}));
      return { params: params ? mintParamsJson(params) : null };
    }),
  );

  // `voting`, `deposit` or `tallying`: that legacy section filled, the other two null, and
  // the whole `params`; any other type is the node's 400 "unknown params type: <t>".
  route('/cosmos/gov/v1/params/:params_type', (req) => {
    const paramsType = req.params.params_type ?? '';
    return ctx.slow(`gov/params/${paramsType}`, PARAMS_TTL_MS, async () =>
      govParamsResponseJson(await fromQuery(() => gov.Params({ paramsType }))),
    );
  });

  // Unknown account: 404, code 5, "account <address> not found" (the node's words).
  route('/cosmos/auth/v1beta1/accounts/:address', async (req) => {
    const address = addressParam(req.params.address ?? '', ctx.prefixes.account);
    const account = await fromQuery(() => queries.auth.account(address));
    if (!account) throw notFound(`account ${address} not found`);
    return { account: accountJson(account) };
  });
}
