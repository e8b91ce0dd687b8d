// The Launchpad API (docs/launchpad-api.md) on one Polka app: tokens, trades, candles, health,
// the chain and its native coin, the SSE feed and the wallet routes, behind the per-client rate
// limit, with JSON errors and CORS everywhere.
import polka from 'polka';
import type { NativeCoin } from '../../chain/native-coin.ts';
import type { Database } from '../../db/types.ts';
import type { Logger } from '../../internal/logger.ts';
import { createErrorHandler, LAUNCHPAD_ERRORS, launchpadNoRoute, noRouteHandler } from '../http/errors.ts';
import type { IndexSource } from '../http/index-status.ts';
import { createMetrics } from '../http/metrics.ts';
import { createRateLimit } from '../http/rate-limit.ts';
import { CORS_HEADERS } from '../http/respond.ts';
import { ANY, createResponseCache, HOLDINGS, holderTag, tokenTag } from '../http/response-cache.ts';
import { type Served, serve } from '../http/serve.ts';
import { createBroadcaster } from './broadcast-once.ts';
import { createFeedHub } from './feed-hub.ts';
import { createHoldings } from './holdings.ts';
import { openApiJson } from './openapi.ts';
import { createPriceSource } from './price-source.ts';
import { candles } from './routes/candles.ts';
import { chain, checkedNativeCoin } from './routes/chain.ts';
import { feed } from './routes/feed.ts';
import { health } from './routes/health.ts';
import { getToken, listTokens } from './routes/tokens.ts';
import { recentTrades } from './routes/trades.ts';
import { walletBalance } from './routes/wallet-balance.ts';
import { walletBroadcast } from './routes/wallet-broadcast.ts';
import { walletPrices } from './routes/wallet-prices.ts';
import { walletTokens } from './routes/wallet-tokens.ts';
import { walletTransactions } from './routes/wallet-transactions.ts';
import type { WalletOptions } from './wallet.ts';
import { createWebPages, WEB_ROUTES } from './web.ts';

export interface LaunchpadApiOptions {
  db: Database;
  logger: Logger;
  host: string;
  /** 0 picks a free port. */
  port: number;
  rateLimit: { points: number; windowSeconds: number; trustedHops: number };
  /** Where the index stands (health and metrics). */
  index: IndexSource;
  keepaliveMs?: number;
  /** Unsent bytes after which an SSE subscriber that is not reading is dropped (default 1 MiB). */
  sseMaxBufferedBytes?: number;
  /**
   * The chain's native coin: the denom of the wallet balance and of every native amount, and
   * its display name and decimals, which /api/chain tells clients (the dashboard among them).
   */
  native: NativeCoin;
  /** The node and the chain's facts for the /api/wallet routes; without it they are not served. */
  wallet?: WalletOptions;
  /**
   * At most how long holdings that read a balance from a token contract are answered from
   * memory (default 2000 ms; 0: no holdings answer is). Answers from the index alone are kept
   * until a commit drops them (10 minutes at most).
   */
  holdingsCacheMs?: number;
  /** How long a request may take to arrive, headers and body (default 60 s; SSE streams are not bounded by it). */
  requestTimeoutMs?: number;
}

export interface LaunchpadApi {
  url: string;
  stats(): { subscribers: number; lastEventId: number; dropped: number; cachedResponses: number };
  close(): Promise<void>;
}

/** The served routes, for the metrics' `route` label. */
export const ROUTES: [RegExp, string][] = [
  [/^\/api\/health$/, '/api/health'],
  [/^\/api\/chain$/, '/api/chain'],
  [/^\/api\/tokens$/, '/api/tokens'],
  [/^\/api\/tokens\/[^/]+$/, '/api/tokens/:address'],
  [/^\/api\/trades\/recent$/, '/api/trades/recent'],
  [/^\/api\/candles\/[^/]+$/, '/api/candles/:tokenAddress'],
  [/^\/api\/sse\/feed$/, '/api/sse/feed'],
  [/^\/api\/wallet\/balance$/, '/api/wallet/balance'],
  [/^\/api\/wallet\/tokens$/, '/api/wallet/tokens'],
  [/^\/api\/wallet\/transactions$/, '/api/wallet/transactions'],
  [/^\/api\/wallet\/prices$/, '/api/wallet/prices'],
  [/^\/api\/wallet\/broadcast$/, '/api/wallet/broadcast'],
  [/^\/metrics$/, '/metrics'],
  [/^\/api\/openapi\.json$/, '/api/openapi.json'],
  ...WEB_ROUTES,
];

export async function startLaunchpadApi(options: LaunchpadApiOptions): Promise<LaunchpadApi> {
  const { db, logger, index } = options;
  const native = checkedNativeCoin(options.native);
  const { wallet } = options;
  const cache = createResponseCache();
  const hub = createFeedHub({
    db,
    logger,
    keepaliveMs: options.keepaliveMs,
    maxBufferedBytes: options.sseMaxBufferedBytes,
    // What the indexer just committed makes cached answers about those tokens (and
    // every all-token answer) stale.
    onEvents: (events) => cache.invalidate([ANY, ...new Set(events.map((e) => tokenTag(e.tokenAddress)))]),
    onChange: (change) => {
      if (change === 'anything') cache.clear();
      else if ('token' in change) cache.invalidate([ANY, tokenTag(change.token)]);
      // balances are read only by holdings answers
      else cache.invalidate(change.holders === 'all' ? [HOLDINGS] : change.holders.map(holderTag));
    },
  });
  await hub.start();
  const metrics = createMetrics({ routes: ROUTES, indexerStatus: index.live, feed: () => hub.stats() });

  const app = polka({ onError: createErrorHandler(logger), onNoMatch: noRouteHandler(launchpadNoRoute) })
    .use(metrics.middleware)
    // the dashboard's pages and assets: not counted by the rate limit (their API calls are)
    .use(createWebPages())
    .use(createRateLimit(options.rateLimit))
    .use((req, res, next) => {
      if (req.method !== 'OPTIONS') return next();
      // CORS preflight: public GET endpoints, and POST /api/wallet/broadcast (a JSON body)
      res.writeHead(204, {
        ...CORS_HEADERS,
        'Access-Control-Allow-Methods': 'GET, HEAD, POST, OPTIONS',
        'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ?? 'Content-Type, Last-Event-ID',
        'Access-Control-Max-Age': 86400,
      });
      res.end();
    })
    .get('/api/health', health(index, logger))
    .get('/api/chain', chain(index, native, wallet?.accountPrefix ?? null))
    .get('/api/tokens', listTokens(db, cache))
    .get('/api/tokens/:address', getToken(db, cache))
    .get('/api/trades/recent', recentTrades(db, cache))
    .get('/api/candles/:tokenAddress', candles(db, cache))
    .get('/api/sse/feed', feed(hub))
    .get('/api/openapi.json', openApiJson())
    .get('/metrics', metrics.handler);
  if (wallet) {
    const prices = createPriceSource({ chain: wallet.chain, launchpad: wallet.launchpad, logger }, wallet.prices);
    app
      .get('/api/wallet/balance', walletBalance(wallet, native.denom))
      .get(
        '/api/wallet/tokens',
        walletTokens(wallet, createHoldings({ db, chain: wallet.chain, logger }), cache, options.holdingsCacheMs),
      )
      .get('/api/wallet/transactions', walletTransactions(db, wallet))
      .get('/api/wallet/prices', walletPrices(prices))
      .post('/api/wallet/broadcast', walletBroadcast(createBroadcaster(db, wallet.chain, logger, wallet.broadcast)));
  }

  let served: Served;
  try {
    served = await serve(app, {
      host: options.host,
      port: options.port,
      style: LAUNCHPAD_ERRORS,
      noRoute: launchpadNoRoute,
      requestTimeoutMs: options.requestTimeoutMs,
    });
  } catch (error) {
    await hub.stop();
    throw error;
  }

  return {
    url: served.url,
    stats: () => ({ ...hub.stats(), cachedResponses: cache.size }),
    /** Stops taking connections, ends every SSE stream, lets requests in flight finish. */
    close: () => served.close(() => hub.stop()),
  };
}
