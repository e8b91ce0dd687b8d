// GET /api/wallet/prices (docs/launchpad-api.md "Wallet"): `{"NATIVE": <USD>}`, never an
// error: 0 while the price source fails (src/api/launchpad/price-source.ts).
import { sendJson } from '../../http/respond.ts';
import type { Handler } from '../handler.ts';
import type { PriceSource } from '../price-source.ts';

export function walletPrices(prices: PriceSource): Handler {
  return async (_req, res) => {
    sendJson(res, 200, { NATIVE: await prices.nativeUsd() });
  };
}
