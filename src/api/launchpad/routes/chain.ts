// GET /api/chain (docs/launchpad-api.md "Chain"): what a client needs to read this API's
// amounts and addresses: the chain's id, its account prefix and its native coin (the base
// denom every amount is counted in, its display name and decimals). The dashboard formats
// every amount with it.
import { z } from 'zod';
import type { NativeCoin } from '../../../chain/native-coin.ts';
import { ServiceError } from '../../../internal/errors.ts';
import type { IndexSource } from '../../http/index-status.ts';
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../../http/routes.ts';
import type { LaunchpadRoute } from '../context.ts';

/** A NativeCoin, as startLaunchpadApi accepts it and /api/chain describes it. */
export const nativeCoinSchema = z
  .strictObject({
    // the Cosmos SDK's denom rule
    denom: z
      .string()
      .regex(/^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/, 'must be a Cosmos SDK denom')
      .describe('the base denom: every native amount of this API (the `*_unative` fields included) counts it'),
    display: z
      .string()
      .min(1, 'must not be empty')
      .max(128, 'must be at most 128 characters')
      .describe('the name of one display unit'),
    decimals: z
      .number()
      .int('must be a whole number')
      .min(0, 'must be from 0 to 36')
      .max(36, 'must be from 0 to 36')
      .describe('one display unit is 10^decimals base units'),
  })
  .meta({ id: 'NativeCoin' });

/** The option as given, or a ServiceError saying what is wrong with it. */
export function checkedNativeCoin(native: NativeCoin): NativeCoin {
  const parsed = nativeCoinSchema.safeParse(native);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'native'} ${i.message}`);
  throw new ServiceError(`Invalid native coin for the Launchpad API: ${problems.join('; ')}`);
}

/** GET /api/chain: the chain id from the index (the indexer's when it runs here), the rest as configured. */
export function chain(index: IndexSource, native: NativeCoin, accountPrefix: string | null): Handler {
  const coin = { denom: native.denom, display: native.display, decimals: native.decimals };
  return async (_req, res) => {
    const chainId = index.live?.().chainId ?? (await index.position())?.chainId ?? null;
    sendJson(res, 200, { chain_id: chainId, account_prefix: accountPrefix, native: coin });
  };
}

/** This file's routes (src/api/launchpad/route-table.ts serves and describes them). */
export const chainRoutes: LaunchpadRoute[] = [
  {
    method: 'get',
    path: '/api/chain',
    tag: 'Launchpad',
    summary: "The chain's id, account prefix and native coin",
    description:
      'How to read the amounts of this API: each native amount is in `native.denom`, and one `native.display` is 10^`native.decimals` of it. `chain_id` is that of the indexed chain (null before the index holds a block); `account_prefix` is what the wallet routes require of an address (null when this process serves no wallet routes).',
    responses: {
      200: {
        description: 'The chain',
        body: z
          .strictObject({
            chain_id: z.string().nullable(),
            account_prefix: z.string().nullable().describe("the bech32 prefix of the chain's account addresses"),
            native: nativeCoinSchema,
          })
          .meta({ id: 'Chain' }),
      },
    },
    handler: (ctx) => chain(ctx.index, ctx.native, ctx.wallet?.options.accountPrefix ?? null),
  },
];
