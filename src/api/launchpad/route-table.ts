// The Launchpad API's route table: every route it serves, in the order the router tries them,
// each written once in its own file as data (src/api/http/routes.ts). The server mounts it, the
// metrics label requests by it and GET /api/openapi.json describes it.
import { z } from 'zod';
import { sendJsonBytes } from '../http/respond.ts';
import type { LaunchpadRoute } from './context.ts';
import { launchpadOpenApi } from './openapi.ts';
import { candleRoutes } from './routes/candles.ts';
import { chainRoutes } from './routes/chain.ts';
import { feedRoutes } from './routes/feed.ts';
import { healthRoutes } from './routes/health.ts';
import { sqlRoutes } from './routes/sql.ts';
import { tokenHolderRoutes } from './routes/token-holders.ts';
import { tokenRoutes } from './routes/tokens.ts';
import { tradeRoutes } from './routes/trades.ts';
import { walletBalanceRoutes } from './wallet/balance.ts';
import { walletBroadcastRoutes } from './wallet/broadcast.ts';
import { walletPriceRoutes } from './wallet/prices.ts';
import { walletTokenRoutes } from './wallet/tokens.ts';
import { walletTransactionRoutes } from './wallet/transactions.ts';

/** The service's own routes: its description and its metrics. */
const serviceRoutes: LaunchpadRoute[] = [
  {
    method: 'get',
    path: '/api/openapi.json',
    tag: 'Service',
    summary: 'This description of both APIs (OpenAPI 3.1)',
    description: 'Made from the zod schemas the routes validate their parameters with. A readable page: `/api/docs`.',
    responses: { 200: { description: 'The OpenAPI document', body: z.looseObject({ openapi: z.literal('3.1.0') }) } },
    // made once, at the first request
    handler: () => {
      let body: Buffer | undefined;
      return async (req, res) => {
        body ??= Buffer.from(JSON.stringify(launchpadOpenApi(LAUNCHPAD_ROUTES)));
        await sendJsonBytes(req, res, body, { 'Cache-Control': 'public, max-age=60' });
      };
    },
  },
  {
    method: 'get',
    path: '/metrics',
    tag: 'Service',
    summary: 'Prometheus metrics: requests, the indexer’s height and lag, SSE subscribers',
    responses: { 200: { description: 'The Prometheus text format', contentType: 'text/plain; version=0.0.4' } },
    handler: (ctx) => ctx.metrics,
  },
];

export const LAUNCHPAD_ROUTES: readonly LaunchpadRoute[] = [
  ...healthRoutes,
  ...chainRoutes,
  ...tokenRoutes,
  ...tokenHolderRoutes,
  ...tradeRoutes,
  ...candleRoutes,
  ...feedRoutes,
  ...walletBalanceRoutes,
  ...walletTokenRoutes,
  ...walletTransactionRoutes,
  ...walletPriceRoutes,
  ...walletBroadcastRoutes,
  ...sqlRoutes,
  ...serviceRoutes,
];
