// The Chain API's routes as OpenAPI, for the document the Launchpad API serves at
// /api/openapi.json. The Chain API reads its parameters as grpc-gateway does
// (src/api/chain/params.ts), not with zod, so the schemas here describe those parameters
// rather than parse them; test/api/openapi.test.ts checks that every route the route files
// register is listed here and that each listed one is served. Bodies are the Cosmos SDK's
// (docs/chain-api.md says each field).
import { z } from 'zod';
import { createRouteRegistry, type ResponseDoc, type RouteDoc } from '../http/openapi.ts';

export const chainRoutes = createRouteRegistry();

const gatewayError = z
  .object({
    code: z
      .number()
      .int()
      .describe('the gRPC status code: 3 invalid argument, 5 not found, 8 rate limited, 14 unavailable…'),
    message: z.string(),
    details: z.array(z.unknown()),
  })
  .meta({ id: 'GatewayError' });

const uint64 = z.string().regex(/^\d+$/);
const bool = z.enum(['true', 'false', '1', '0', 't', 'f', 'T', 'F', 'TRUE', 'FALSE', 'True', 'False']);

const PAGINATION = {
  'pagination.key': z.string().optional().describe("the previous page's `next_key` (base64, standard or URL-safe)"),
  'pagination.offset': uint64.optional().describe('items to skip (not with `pagination.key`)'),
  'pagination.limit': uint64.optional().describe('items per page'),
  'pagination.count_total': bool.optional().describe('count every item into `pagination.total`'),
  'pagination.reverse': bool.optional().describe('newest first'),
};
const paginated = (extra: z.ZodRawShape = {}) => z.object({ ...extra, ...PAGINATION });

const address = (what: string) =>
  z.string().describe(`a bech32 ${what} address with the chain's prefix (\`native1…\` on the devnet)`);
const height = z
  .string()
  .regex(/^[+-]?\d+$/)
  .describe('a block height (int64)');
const denom = z.string().describe('a denomination (`unative`); one containing `/` is sent percent-encoded');

/** An answer described by its top-level fields (docs/chain-api.md has each one). */
const answer = (fields: string): ResponseDoc => ({
  description: `\`{${fields}}\` as the Cosmos SDK's gateway prints it`,
  body: z.looseObject({}),
});

const notFound = (what: string): ResponseDoc => ({ description: `${what} (code 5)`, body: gatewayError });

const route = (tag: string, doc: Omit<RouteDoc, 'tag' | 'method'> & { method?: RouteDoc['method'] }) =>
  chainRoutes.add({ method: 'get', tag, ...doc });

const BLOCKS = 'Chain: blocks and transactions';
route(BLOCKS, {
  path: '/cosmos/base/tendermint/v1beta1/blocks/latest',
  summary: "The node's newest block (from the index)",
  responses: { 200: answer('block_id, block, sdk_block') },
});
route(BLOCKS, {
  path: '/cosmos/base/tendermint/v1beta1/blocks/:height',
  summary: 'The block at a height (from the index, else read through from the node)',
  params: z.object({ height }),
  responses: { 200: answer('block_id, block, sdk_block') },
});
route(BLOCKS, {
  path: '/cosmos/tx/v1beta1/txs/:hash',
  summary: 'A transaction by hash (from the index, else read through from the node)',
  params: z.object({ hash: z.string().describe('the tx hash, 64 hex digits, any case') }),
  responses: { 200: answer('tx, tx_response'), 404: notFound('no such transaction') },
});
route(BLOCKS, {
  path: '/cosmos/tx/v1beta1/txs',
  summary: 'Transactions matching event conditions (AND)',
  description:
    "Conditions on `message.sender`, `message.action`, `transfer.recipient` and `tx.height`, as `events=` (repeat for more) and/or `query=` (SDK 0.50's syntax, joined by AND). Pages by `pagination.*`, or SDK 0.47's `page` and `limit`.",
  query: paginated({
    events: z.string().optional().describe("a condition `type.attribute='value'`; repeat the parameter for more"),
    query: z.string().optional().describe("conditions `type.attribute='value'` joined by ` AND `"),
    order_by: z
      .enum(['ORDER_BY_UNSPECIFIED', 'ORDER_BY_ASC', 'ORDER_BY_DESC', '0', '1', '2'])
      .optional()
      .describe('oldest first unless ORDER_BY_DESC'),
    page: uint64.optional().describe('1-based page (with `limit`)'),
    limit: uint64.optional().describe('page size (with `page`)'),
  }),
  responses: { 200: answer('txs, tx_responses, pagination, total') },
});
route(BLOCKS, {
  path: '/cosmos/tx/v1beta1/txs/block/:height',
  summary: "A block with its transactions (GetBlockWithTxs), a page of the block's txs",
  params: z.object({ height }),
  query: paginated(),
  responses: { 200: answer('txs, block_id, block, pagination') },
});

const BROADCAST = 'Chain: broadcast and simulate';
const txBytes = z.string().describe('base64 of the signed TxRaw');
route(BROADCAST, {
  method: 'post',
  path: '/cosmos/tx/v1beta1/txs',
  summary: 'Broadcast a signed transaction (SYNC: after CheckTx; ASYNC: at once)',
  body: {
    description: 'BroadcastTxRequest as JSON',
    schema: z.object({
      tx_bytes: txBytes,
      mode: z
        .enum(['BROADCAST_MODE_SYNC', 'BROADCAST_MODE_ASYNC', '2', '3'])
        .describe('BROADCAST_MODE_BLOCK is refused, as SDK 0.47+ refuses it'),
    }),
  },
  responses: {
    200: answer('tx_response'),
    413: { description: 'The body is larger than 2 MiB (code 8)', body: gatewayError },
  },
});
route(BROADCAST, {
  method: 'post',
  path: '/cosmos/tx/v1beta1/simulate',
  summary: "Simulate a signed transaction: the gas it would use and its messages' results",
  body: { description: 'SimulateRequest as JSON', schema: z.object({ tx_bytes: txBytes }) },
  responses: {
    200: answer('gas_info, result'),
    413: { description: 'The body is larger than 2 MiB (code 8)', body: gatewayError },
  },
});

const BANK = 'Chain: bank';
const account = z.object({ address: address('account') });
route(BANK, {
  path: '/cosmos/bank/v1beta1/balances/:address',
  summary: "An account's balances",
  params: account,
  query: paginated({ resolve_denom: bool.optional().describe('denominations by their metadata display name') }),
  responses: { 200: answer('balances, pagination') },
});
route(BANK, {
  path: '/cosmos/bank/v1beta1/balances/:address/by_denom',
  summary: "An account's balance of one denomination",
  params: account,
  query: z.object({ denom }),
  responses: { 200: answer('balance') },
});
route(BANK, {
  path: '/cosmos/bank/v1beta1/spendable_balances/:address',
  summary: "An account's spendable balances",
  params: account,
  query: paginated(),
  responses: { 200: answer('balances, pagination') },
});
route(BANK, {
  path: '/cosmos/bank/v1beta1/supply',
  summary: 'The total supply of every denomination',
  query: paginated(),
  responses: { 200: answer('supply, pagination') },
});
route(BANK, {
  path: '/cosmos/bank/v1beta1/supply/by_denom',
  summary: 'The total supply of one denomination',
  query: z.object({ denom }),
  responses: { 200: answer('amount') },
});
route(BANK, {
  path: '/cosmos/bank/v1beta1/denoms_metadata',
  summary: "Every denomination's metadata",
  query: paginated(),
  responses: { 200: answer('metadatas, pagination') },
});
route(BANK, {
  path: '/cosmos/bank/v1beta1/denoms_metadata/:denom',
  summary: "One denomination's metadata",
  params: z.object({ denom }),
  responses: { 200: answer('metadata'), 404: notFound('no metadata for the denomination') },
});

route('Chain: contracts', {
  path: '/cosmwasm/wasm/v1/contract/:contract_address/smart/:query_data',
  summary: "A contract's answer to a JSON query (CW20 `token_info`, `balance`, …)",
  params: z.object({
    contract_address: address('contract'),
    query_data: z.string().describe('base64 (standard or URL-safe) of the JSON query, e.g. `eyJ0b2tlbl9pbmZvIjp7fX0=`'),
  }),
  responses: { 200: answer('data') },
});

const STAKING = 'Chain: staking';
const validator = z.object({ validator_addr: z.string().describe('a validator operator address (`nativevaloper1…`)') });
route(STAKING, {
  path: '/cosmos/staking/v1beta1/validators',
  summary: 'Validators, optionally of one bond status',
  query: paginated({
    status: z.enum(['BOND_STATUS_BONDED', 'BOND_STATUS_UNBONDING', 'BOND_STATUS_UNBONDED']).optional(),
  }),
  responses: { 200: answer('validators, pagination') },
});
route(STAKING, {
  path: '/cosmos/staking/v1beta1/validators/:validator_addr',
  summary: 'One validator',
  params: validator,
  responses: { 200: answer('validator'), 404: notFound('no such validator') },
});
route(STAKING, {
  path: '/cosmos/staking/v1beta1/validators/:validator_addr/delegations',
  summary: "A validator's delegations",
  params: validator,
  query: paginated(),
  responses: { 200: answer('delegation_responses, pagination'), 404: notFound('no such validator') },
});
route(STAKING, {
  path: '/cosmos/staking/v1beta1/delegations/:delegator_addr',
  summary: "A delegator's delegations",
  params: z.object({ delegator_addr: address('account') }),
  query: paginated(),
  responses: { 200: answer('delegation_responses, pagination') },
});
route(STAKING, {
  path: '/cosmos/staking/v1beta1/pool',
  summary: 'Bonded and not bonded tokens',
  responses: { 200: answer('pool') },
});
route(STAKING, {
  path: '/cosmos/staking/v1beta1/params',
  summary: 'Staking parameters',
  responses: { 200: answer('params') },
});

const NETWORK = 'Chain: network and parameters';
route(NETWORK, {
  path: '/cosmos/base/tendermint/v1beta1/node_info',
  summary: "The node's and the application's versions",
  responses: { 200: answer('default_node_info, application_version') },
});
route(NETWORK, {
  path: '/cosmos/base/tendermint/v1beta1/syncing',
  summary: 'Whether the node is catching up',
  responses: { 200: answer('syncing') },
});
route(NETWORK, {
  path: '/cosmos/mint/v1beta1/params',
  summary: 'Mint parameters',
  responses: { 200: answer('params') },
});
route(NETWORK, {
  path: '/cosmos/gov/v1/params/:params_type',
  summary: 'Governance parameters',
  params: z.object({ params_type: z.enum(['voting', 'deposit', 'tallying']) }),
  responses: { 200: answer('voting_params, deposit_params, tally_params, params') },
});
route(NETWORK, {
  path: '/cosmos/auth/v1beta1/accounts/:address',
  summary: 'An account: its number, sequence and public key',
  params: account,
  responses: { 200: answer('account'), 404: notFound('no such account') },
});

/** The Chain API's part of the document: its routes, its port, its error body. */
export const chainApiGroup = {
  tags: [BLOCKS, BROADCAST, BANK, 'Chain: contracts', STAKING, NETWORK].map((name) => ({
    name,
    description: "The Chain API, on its own port (CHAIN_API_PORT): the Cosmos SDK's REST gateway",
  })),
  group: {
    registry: chainRoutes,
    servers: [
      {
        url: 'http://{host}:{port}',
        description: 'the Chain API',
        variables: {
          host: { default: '127.0.0.1', description: 'the host the service runs on (HOST)' },
          port: { default: '1317', description: 'CHAIN_API_PORT' },
        },
      },
    ],
    invalid: { description: 'A parameter is invalid (code 3), in grpc-gateway’s words', body: gatewayError },
    common: {
      429: { description: 'Rate limit exceeded (code 8)', body: gatewayError, headers: { 'Retry-After': 'seconds' } },
      500: { description: 'An unexpected failure, or the node’s own (code 2 or 13)', body: gatewayError },
      503: { description: 'The chain node cannot be reached (code 14)', body: gatewayError },
    },
  },
};
