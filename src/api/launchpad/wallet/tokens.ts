// GET /api/wallet/tokens?address= (docs/launchpad-api.md "Wallet"): every known token the address
// holds, with its balance, price and graduation, highest value first. Answers are kept in the
// response cache under the address and the tokens it holds: a commit that moves the address's
// balances, trades or renames one of those tokens, or changes which tokens the index vouches
// for drops the answer. An answer that read a balance from a contract (which no commit
// announces) is kept for `ttlMs` at most (0: nothing is cached); one from the index alone for
// up to VOUCHED_CACHE_MS.
import { z } from 'zod';
import { reads } from '../../http/freshness.ts';
import { sendJsonBytes, sendJsonText } from '../../http/respond.ts';
import type { ResponseCache } from '../../http/response-cache.ts';
import type { Handler } from '../../http/routes.ts';
import { parseOrThrow } from '../../http/validate.ts';
import { type LaunchpadRoute, walletRoute } from '../context.ts';
import type { Holdings } from './holdings.ts';
import { DESCRIBED_PREFIX, type WalletOptions, walletAddressQuery } from './options.ts';

export const HOLDINGS_CACHE_MS = 2000;
/** How long an answer from the index alone is kept when no commit drops it. */
export const VOUCHED_CACHE_MS = 10 * 60_000;

export function walletTokens(
  { accountPrefix }: WalletOptions,
  holdings: Holdings,
  cache: ResponseCache,
  ttlMs = HOLDINGS_CACHE_MS,
): Handler {
  const query = walletAddressQuery(accountPrefix);
  return async (req, res) => {
    const { address } = parseOrThrow(query, req.query);
    const compute = async () => {
      const { holdings: tokens, contractReads } = await holdings.of(address);
      return {
        body: JSON.stringify({ address, tokens }),
        tags: reads.heldTokens(tokens.map((t) => t.address)),
        ttlMs: contractReads > 0 ? ttlMs : Math.max(ttlMs, VOUCHED_CACHE_MS),
      };
    };
    if (ttlMs <= 0) return sendJsonText(res, 200, (await compute()).body);
    await sendJsonBytes(
      req,
      res,
      await cache.rememberTagged(`holdings:${address}`, reads.holdings(address, ttlMs).tags, ttlMs, compute),
    );
  };
}

/** This file's routes (src/api/launchpad/route-table.ts serves and describes them). */
export const walletTokenRoutes: LaunchpadRoute[] = [
  {
    method: 'get',
    path: '/api/wallet/tokens',
    tag: 'Wallet',
    summary: 'Every known token an address holds',
    description:
      'Non-zero balances only, highest value (balance × price) first. Balances come from the index where it can vouch for them and from the token contract\'s `balance` query otherwise (docs/launchpad-api.md, "Wallet").',
    query: walletAddressQuery(DESCRIBED_PREFIX),
    responses: {
      200: {
        description: 'The holdings',
        body: z.strictObject({
          address: z.string(),
          tokens: z.array(
            z.strictObject({
              address: z.string(),
              name: z.string().nullable(),
              symbol: z.string().nullable(),
              balance: z.string(),
              price_unative: z.string(),
              graduated: z.boolean(),
            }),
          ),
        }),
      },
    },
    ...walletRoute((wallet, ctx) => walletTokens(wallet.options, wallet.holdings, ctx.cache, wallet.holdingsCacheMs)),
  },
];
