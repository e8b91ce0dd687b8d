// What the Chain API's route descriptions share: the gateway's error body, the tags the
// routes are listed under, and the schemas of parameters several routes take. The Chain
// API reads its parameters as grpc-gateway does (src/api/chain/params.ts), not with zod,
// so these schemas describe those parameters for the OpenAPI document rather than parse
// them. Bodies are the Cosmos SDK's (docs/chain-api.md says each field). The route files
// import this; it imports none of them.
import { z } from 'zod';
import type { ResponseDoc } from '../http/openapi.ts';

/** The gateway's error body (src/api/chain/gateway.ts). */
export const gatewayError = z
  .object({
    code: z
      .number()
      .int()
      .describe('the gRPC status code: 3 invalid argument, 5 not found, 8 rate limited, 14 unavailable…'),
    message: z.string(),
    details: z.array(z.unknown()),
  })
  .meta({ id: 'GatewayError' });

/** The groups the Chain API's routes are listed under, in the document's order. */
export const TAGS = {
  blocks: 'Chain: blocks and transactions',
  broadcast: 'Chain: broadcast and simulate',
  bank: 'Chain: bank',
  contracts: 'Chain: contracts',
  staking: 'Chain: staking',
  network: 'Chain: network and parameters',
} as const;

export const uint64 = z.string().regex(/^\d+$/);
export const bool = z.enum(['true', 'false', '1', '0', 't', 'f', 'T', 'F', 'TRUE', 'FALSE', 'True', 'False']);

/** The `pagination.*` PageRequest parameters. */
export const PAGINATION = {
  'pagination.key': z.string().optional().describe("the previous page's `next_key` (base64, standard or URL-safe)"),
  'pagination.offset': uint64.optional().describe('items to skip (not with `pagination.key`)'),
  'pagination.limit': uint64.optional().describe('items per page'),
  'pagination.count_total': bool.optional().describe('count every item into `pagination.total`'),
  'pagination.reverse': bool.optional().describe('newest first'),
};
/** A query of `extra` parameters and the `pagination.*` ones. */
export const paginated = (extra: z.ZodRawShape = {}) => z.object({ ...extra, ...PAGINATION });

/** A bech32 address parameter. */
export const bech32 = (what: string) =>
  z.string().describe(`a bech32 ${what} address with the chain's prefix (\`native1…\` on the devnet)`);
export const heightSchema = z
  .string()
  .regex(/^[+-]?\d+$/)
  .describe('a block height (int64)');
export const denomSchema = z
  .string()
  .describe('a denomination (`unative`); one containing `/` is sent percent-encoded');
/** The path parameters of a route about one account. */
export const accountParams = z.object({ address: bech32('account') });

/** An answer described by its top-level fields (docs/chain-api.md has each one). */
export const answer = (fields: string): ResponseDoc => ({
  description: `\`{${fields}}\` as the Cosmos SDK's gateway prints it`,
  body: z.looseObject({}),
});

/** A 404 answer, code 5. */
export const notFoundAnswer = (what: string): ResponseDoc => ({ description: `${what} (code 5)`, body: gatewayError });
