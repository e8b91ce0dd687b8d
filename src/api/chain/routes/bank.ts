// Bank state from the node (docs/chain-api.md, "Bank"): balances, spendable balances,
// supply and denom metadata through cosmjs ABCI queries. The `pagination.*` PageRequest
// goes to the node as sent and its PageResponse comes back as it answered (the node
// applies the SDK's rules for `total`). Balances and supply are never cached; metadata is
// kept METADATA_TTL_MS. The routes are data (src/api/http/routes.ts), each described beside
// its handler; the Chain API's route table (src/api/chain/route-table.ts) joins them for the
// server, which mounts it, and for the OpenAPI document, which describes it.
import { toBase64 } from '@cosmjs/encoding';
import { createProtobufRpcClient } from '@cosmjs/stargate';
import { QueryClientImpl as BankQuery } from 'cosmjs-types/cosmos/bank/v1beta1/query';
import type { PageRequest } from 'cosmjs-types/cosmos/base/query/v1beta1/pagination';
import type { Request } from 'polka';
import { z } from 'zod';
import type { Route } from '../../http/routes.ts';
import { type ChainApiContext, perContext } from '../context.ts';
import { fromQuery, nodeStateJson } from '../gateway.ts';
import { addressParam, boolParam, pageRequest, pageResponse, single } from '../params.ts';
import { coin, coins } from '../proto-json.ts';
import { accountParams, answer, bool, denomSchema, notFoundAnswer, paginated, TAGS } from '../route-docs.ts';
import { metadataJson } from '../state-json.ts';

/** How long denom metadata is kept before the node is asked again. */
export const METADATA_TTL_MS = 60_000;

/** A PageRequest as a cache key. */
export const pageKey = (p: PageRequest) => `${toBase64(p.key)}|${p.offset}|${p.limit}|${p.countTotal}|${p.reverse}`;

/** The bank module's query client, one per server. */
const bankOf = perContext((ctx) => new BankQuery(createProtobufRpcClient(ctx.chain.queries)));
const account = (ctx: ChainApiContext, req: Request) => addressParam(req.params.address ?? '', ctx.prefixes.account);

export const bankRoutes: Route<ChainApiContext>[] = [
  {
    method: 'get',
    path: '/cosmos/bank/v1beta1/balances/:address',
    tag: TAGS.bank,
    summary: "An account's balances",
    params: accountParams,
    query: paginated({ resolve_denom: bool.optional().describe('denominations by their metadata display name') }),
    responses: { 200: answer('balances, pagination') },
    handler: (ctx) =>
      nodeStateJson(async (req) => {
        const pagination = pageRequest(req.query);
        const resolveDenom = boolParam('resolve_denom', single(req.query, 'resolve_denom')) ?? false;
        const address = account(ctx, req);
        const r = await fromQuery(() => bankOf(ctx).AllBalances({ address, pagination, resolveDenom }));
        return { balances: coins(r.balances), pagination: pageResponse(r.pagination) };
      }),
  },
  // An unknown denom is a zero balance (200), as the SDK answers.
  {
    method: 'get',
    path: '/cosmos/bank/v1beta1/balances/:address/by_denom',
    tag: TAGS.bank,
    summary: "An account's balance of one denomination",
    params: accountParams,
    query: z.object({ denom: denomSchema }),
    responses: { 200: answer('balance') },
    handler: (ctx) =>
      nodeStateJson(async (req) => {
        const denom = single(req.query, 'denom') ?? '';
        const address = account(ctx, req);
        return { balance: coin(await fromQuery(() => ctx.chain.queries.bank.balance(address, denom))) };
      }),
  },
  {
    method: 'get',
    path: '/cosmos/bank/v1beta1/spendable_balances/:address',
    tag: TAGS.bank,
    summary: "An account's spendable balances",
    params: accountParams,
    query: paginated(),
    responses: { 200: answer('balances, pagination') },
    handler: (ctx) =>
      nodeStateJson(async (req) => {
        const pagination = pageRequest(req.query);
        const address = account(ctx, req);
        const r = await fromQuery(() => bankOf(ctx).SpendableBalances({ address, pagination }));
        return { balances: coins(r.balances), pagination: pageResponse(r.pagination) };
      }),
  },
  {
    method: 'get',
    path: '/cosmos/bank/v1beta1/supply',
    tag: TAGS.bank,
    summary: 'The total supply of every denomination',
    query: paginated(),
    responses: { 200: answer('supply, pagination') },
    handler: (ctx) =>
      nodeStateJson(async (req) => {
        const r = await fromQuery(() => bankOf(ctx).TotalSupply({ pagination: pageRequest(req.query) }));
        return { supply: coins(r.supply), pagination: pageResponse(r.pagination) };
      }),
  },
  {
    method: 'get',
    path: '/cosmos/bank/v1beta1/supply/by_denom',
    tag: TAGS.bank,
    summary: 'The total supply of one denomination',
    query: z.object({ denom: denomSchema }),
    responses: { 200: answer('amount') },
    handler: (ctx) =>
      nodeStateJson(async (req) => {
        const denom = single(req.query, 'denom') ?? '';
        return { amount: coin(await fromQuery(() => ctx.chain.queries.bank.supplyOf(denom))) };
      }),
  },
  {
    method: 'get',
    path: '/cosmos/bank/v1beta1/denoms_metadata',
    tag: TAGS.bank,
    summary: "Every denomination's metadata",
    query: paginated(),
    responses: { 200: answer('metadatas, pagination') },
    handler: (ctx) =>
      nodeStateJson((req) => {
        const pagination = pageRequest(req.query);
        return ctx.slow(`bank/denoms_metadata/${pageKey(pagination)}`, METADATA_TTL_MS, async () => {
          const r = await fromQuery(() => bankOf(ctx).DenomsMetadata({ pagination }));
          return { metadatas: r.metadatas.map(metadataJson), pagination: pageResponse(r.pagination) };
        });
      }),
  },
  // Unknown denom: 404, code 5, "client metadata for denom <d>" (the node's words).
  {
    method: 'get',
    path: '/cosmos/bank/v1beta1/denoms_metadata/:denom',
    tag: TAGS.bank,
    summary: "One denomination's metadata",
    params: z.object({ denom: denomSchema }),
    responses: { 200: answer('metadata'), 404: notFoundAnswer('no metadata for the denomination') },
    handler: (ctx) =>
      nodeStateJson((req) => {
        const denom = req.params.denom ?? '';
        return ctx.slow(`bank/denom_metadata/${denom}`, METADATA_TTL_MS, async () => ({
          metadata: metadataJson(await fromQuery(() => ctx.chain.queries.bank.denomMetadata(denom))),
        }));
      }),
  },
];
