// GET /api/wallet/balance?address= (docs/launchpad-api.md "Wallet"): the address's balance of
// the chain's native denom as the node's bank module holds it now.
import { z } from 'zod';
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../../http/routes.ts';
import { parseOrThrow } from '../../http/validate.ts';
import { type LaunchpadRoute, walletRoute } from '../context.ts';
import {
  DESCRIBED_PREFIX,
  nodeAnswered,
  nodeRefused,
  nodeUnavailable,
  type WalletOptions,
  walletAddressQuery,
} from './options.ts';

/** The handler for the native coin's base denom (`denom` of NativeCoin). */
export function walletBalance({ chain, accountPrefix }: WalletOptions, denom: string): Handler {
  const query = walletAddressQuery(accountPrefix);
  return async (req, res) => {
    const { address } = parseOrThrow(query, req.query);
    let amount: string;
    try {
      // an address the chain has never seen holds nothing: the bank module answers 0
      amount = (await chain.queries.bank.balance(address, denom))?.amount ?? '0';
    } catch (error) {
      if (nodeAnswered(error)) throw nodeRefused(error);
      throw nodeUnavailable();
    }
    sendJson(res, 200, { address, balance: amount || '0' });
  };
}

/** This file's routes (src/api/launchpad/route-table.ts serves and describes them). */
export const walletBalanceRoutes: LaunchpadRoute[] = [
  {
    method: 'get',
    path: '/api/wallet/balance',
    tag: 'Wallet',
    summary: "An address's balance of the native coin, from the chain",
    description:
      'The balance of the chain\'s native denom (`native.denom` of `/api/chain`, in its base units) the chain holds for the address now (no cache). A valid address the chain has never seen has `"0"`; 503 when the node cannot be reached, 502 with its words when it refuses the query.',
    query: walletAddressQuery(DESCRIBED_PREFIX),
    responses: {
      200: { description: 'The balance', body: z.strictObject({ address: z.string(), balance: z.string() }) },
    },
    ...walletRoute((wallet, ctx) => walletBalance(wallet.options, ctx.native.denom)),
  },
];
