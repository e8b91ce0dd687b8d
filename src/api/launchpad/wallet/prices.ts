// GET /api/wallet/prices (docs/launchpad-api.md "Wallet"): `{"NATIVE": <USD>}`, the price of one
// display unit of the chain's native coin under the API's fixed key `NATIVE` whatever the coin
// is called; never an error: 0 while the price source fails (price-source.ts).

import { z } from 'zod';
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../../http/routes.ts';
import { type LaunchpadRoute, walletRoute } from '../context.ts';
import type { PriceSource } from './price-source.ts';

export function walletPrices(prices: PriceSource): Handler {
  return async (_req, res) => {
    sendJson(res, 200, { NATIVE: await prices.nativeUsd() });
  };
}

/** This file's routes (src/api/launchpad/route-table.ts serves and describes them). */
export const walletPriceRoutes: LaunchpadRoute[] = [
  {
    method: 'get',
    path: '/api/wallet/prices',
    tag: 'Wallet',
    summary: "The native coin's price in USD",
    description:
      "`NATIVE` (the key whatever the coin's display name) is the USD price of one display unit of the native coin (`native` of `/api/chain`). From the launchpad contract's oracle (or `PRICE_URL` when configured), cached 5 minutes; `0` when the source fails, never an error.",
    responses: { 200: { description: 'The prices', body: z.strictObject({ NATIVE: z.number() }) } },
    ...walletRoute((_wallet, ctx) => walletPrices(ctx.prices!)),
  },
];
