// Bank state from the node (docs/chain-api.md, "Bank"): balances, spendable balances,
// supply and denom metadata through cosmjs ABCI queries. The `pagination.*` PageRequest
// goes to the node as sent and its PageResponse comes back as it answered (the node
// applies the SDK's rules for `total`). Balances and supply are never cached; metadata is
// kept METADATA_TTL_MS.
import type { ServerResponse } from 'node:http';
import { toBase64 } from '@cosmjs/encoding';
import { createProtobufRpcClient } from '@cosmjs/stargate';
import { QueryClientImpl as BankQuery } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import type { PageRequest } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import type { Polka, Request } from 'polka';
import { sendJson } from '../../http/respond.ts';
import type { ChainApiContext } from '../context.ts';
import { fromQuery } from '../gateway.ts';
import { addressParam, boolParam, pageRequest, pageResponse, single } from '../params.ts';
import { coin, coins } from '../proto-json.ts';
import { metadataJson } from '../state-json.ts';

/** How long denom metadata is kept before the node is asked again. */
export const METADATA_TTL_MS = 60_000;

/** A PageRequest as a cache key. */
export const pageKey = (p: PageRequest) => `${toBase64(p.key)}|${p.offset}|${p.limit}|${p.countTotal}|${p.reverse}`;

export function registerBank(app: Polka, ctx: ChainApiContext): void {
  const { queries } = ctx.chain;
  const bank = new BankQuery(createProtobufRpcClient(queries));
  const account = (req: Request) => addressParam(req.params.address ?? '', ctx.prefixes.account);
  const route = (path: string, answer: (req: Request) => Promise<object>) =>
    app.get(path, async (req: Request, res: ServerResponse) => sendJson(res, 200, await answer(req)));

  route('/cosmos/bank/v1beta1/balances/:address', async (req) => {
    const pagination = pageRequest(req.query);
    const resolveDenom = boolParam('resolve_denom', single(req.query, 'resolve_denom')) ?? false;
    const address = account(req);
    const r = await fromQuery(() => bank.AllBalances({ address, pagination, resolveDenom }));
    return { balances: coins(r.balances), pagination: pageResponse(r.pagination) };
  });

  // An unknown denom is a zero balance (200), as the SDK answers.
  route('/cosmos/bank/v1beta1/balances/:address/by_denom', async (req) => {
    const denom = single(req.query, 'denom') ?? '';
    const address = account(req);
    return { balance: coin(await fromQuery(() => queries.bank.balance(address, denom))) };
  });

  route('/cosmos/bank/v1beta1/spendable_balances/:address', async (req) => {
    const pagination = pageRequest(req.query);
    const address = account(req);
    const r = await fromQuery(() => bank.SpendableBalances({ address, pagination }));
    return { balances: coins(r.balances), pagination: pageResponse(r.pagination) };
  });

  route('/cosmos/bank/v1beta1/supply', async (req) => {
    const r = await fromQuery(() => bank.TotalSupply({ pagination: pageRequest(req.query) }));
    return { supply: coins(r.supply), pagination: pageResponse(r.pagination) };
  });

  route('/cosmos/bank/v1beta1/supply/by_denom', async (req) => {
    const denom = single(req.query, 'denom') ?? '';
    return { amount: coin(await fromQuery(() => queries.bank.supplyOf(denom))) };
  });

  route('/cosmos/bank/v1beta1/denoms_metadata', (req) => {
    const pagination = pageRequest(req.query);
    return ctx.slow(`bank/denoms_metadata/${pageKey(pagination)}`, METADATA_TTL_MS, async () => {
      const r = await fromQuery(() => bank.DenomsMetadata({ pagination }));
      return { metadatas: r.metadatas.map(metadataJson), pagination: pageResponse(r.pagination) };
    });
  });

  // Unknown denom: 404, code 5, "client metadata for denom <d>" (the node's words).
  route('/cosmos/bank/v1beta1/denoms_metadata/:denom', (req) => {
    const denom = req.params.denom ?? '';
    return ctx.slow(`bank/denom_metadata/${denom}`, METADATA_TTL_MS, async () => ({
      metadata: metadataJson(await fromQuery(() => queries.bank.denomMetadata(denom))),
    }));
  });
}
