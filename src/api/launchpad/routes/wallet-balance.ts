// GET /api/wallet/balance?address= (docs/launchpad-api.md "Wallet"): the address's unative
// as the node's bank module holds it now.
import { z } from 'zod';
import { sendJson } from '../../http/respond.ts';
import { parseOrThrow } from '../../http/validate.ts';
import type { Handler } from '../handler.ts';
import { launchpadRoutes } from '../openapi.ts';
import { nodeAnswered, nodeUnavailable, type WalletOptions, walletAddress } from '../wallet.ts';

export const NATIVE_DENOM = 'unative';

export function walletBalance({ chain, accountPrefix }: WalletOptions): Handler {
  const query = walletBalanceQuery(accountPrefix);
  return async (req, res) => {
    const { address } = parseOrThrow(query, req.query);
    let amount: string;
    try {
      // an address the chain has never seen holds nothing: the bank module answers 0
      amount = (await chain.queries.bank.balance(address, NATIVE_DENOM))?.amount ?? '0';
    } catch (error) {
      if (nodeAnswered(error)) throw error;
      throw nodeUnavailable();
    }
    sendJson(res, 200, { address, balance: amount || '0' });
  };
}

/** The query walletBalance() parses, for an account prefix. */
export const walletBalanceQuery = (prefix: string) => z.object({ address: walletAddress(prefix) });

launchpadRoutes.add({
  method: 'get',
  path: '/api/wallet/balance',
  tag: 'Wallet',
  summary: "An address's NATIVE balance, from the chain",
  description:
    'The `unative` balance the chain holds for the address now (no cache). A valid address the chain has never seen has `"0"`; 503 when the node cannot be reached.',
  query: walletBalanceQuery('native'),
  responses: {
    200: { description: 'The balance', body: z.strictObject({ address: z.string(), balance: z.string() }) },
  },
});
