// GET /api/wallet/tokens?address= (docs/launchpad-api.md "Wallet"): every known token the address
// holds, with its balance, price and graduation, highest value first. Answers are kept in the
// response cache under "any": every commit of the index that the API hears of drops them, and
// `ttlMs` bounds how long balances read from contracts are reused (0: not cached).
import { z } from 'zod';
import { sendJsonText } from '../../http/respond.ts';
import { ANY, type ResponseCache } from '../../http/response-cache.ts';
import { parseOrThrow } from '../../http/validate.ts';
import type { Handler } from '../handler.ts';
import type { Holdings } from '../holdings.ts';
import { launchpadRoutes } from '../openapi.ts';
import { type WalletOptions, walletAddress } from '../wallet.ts';

export const HOLDINGS_CACHE_MS = 2000;

export function walletTokens(
  { accountPrefix }: WalletOptions,
  holdings: Holdings,
  cache: ResponseCache,
  ttlMs = HOLDINGS_CACHE_MS,
): Handler {
  const query = walletTokensQuery(accountPrefix);
  return async (req, res) => {
    const { address } = parseOrThrow(query, req.query);
    const compute = async () => JSON.stringify({ address, tokens: await holdings.of(address) });
    sendJsonText(
      res,
      200,
      ttlMs > 0 ? await cache.remember(`holdings:${address}`, [ANY], ttlMs, compute) : await compute(),
    );
  };
}

/** The query walletTokens() parses, for an account prefix. */
export const walletTokensQuery = (prefix: string) => z.object({ address: walletAddress(prefix) });

launchpadRoutes.add({
  method: 'get',
  path: '/api/wallet/tokens',
  tag: 'Wallet',
  summary: 'Every known token an address holds',
  description:
    'Non-zero balances only, highest value (balance × price) first. Balances come from the index where it can vouch for them and from the token contract\'s `balance` query otherwise (docs/launchpad-api.md, "Wallet").',
  query: walletTokensQuery('native'),
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
});
