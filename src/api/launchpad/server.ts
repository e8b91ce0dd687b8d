// The Launchpad API (docs/launchpad-api.md) on one Polka app: tokens, trades, candles, health,
// the chain and its native coin, the SSE feed and the wallet routes, behind the per-client rate
// limit, with JSON errors and CORS everywhere.
import polka from 'polka';
import type { NativeCoin } from '../../chain/native-coin.ts';
import type { Database } from '../../db/types.ts';
import type { Logger } from '../../internal/logger.ts';
import { createErrorHandler, LAUNCHPAD_ERRORS, launchpadNoRoute, noRouteHandler } from '../http/errors.ts';
import { applyChange } from '../http/freshness.ts';
import { createImmutableCache, DEFAULT_CACHE_BYTES } from '../http/http-cache.ts';
import type { IndexSource } from '../http/index-status.ts';
import { createMetrics } from '../http/metrics.ts';
import { createRateLimit } from '../http/rate-limit.ts';
import { CORS_HEADERS } from '../http/respond.ts';
import { createResponseCache } from '../http/response-cache.ts';
import { mount, routeLabels } from '../http/routes.ts';
import { type Served, serve } from '../http/serve.ts';
import type { LaunchpadContext } from './context.ts';
import { createFeedHub } from './feed-hub.ts';
import { LAUNCHPAD_ROUTES } from './route-table.ts';
import { checkedNativeCoin } from './routes/chain.ts';
import { createSqlContext, type SqlOptions } from './sql/options.ts';
import { createTokenFacts } from './token-facts.ts';
import { createTradeWindows } from './trade-windows.ts';
import { createBroadcaster } from './wallet/broadcast-once.ts';
import { createHoldings } from './wallet/holdings.ts';
import type { WalletOptions } from './wallet/options.ts';
import { createPriceSource } from './wallet/price-source.ts';
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
  /** Bytes of rendered answers kept in memory (CACHE_MB; default 64 MiB). */
  cacheBytes?: number;
  /** SQL over HTTP (docs/sql.md); without it, POST /api/sql is not served. */
  sql?: SqlOptions;
  /** How long a request may take to arrive, headers and body (default 60 s; SSE streams are not bounded by it). */
  requestTimeoutMs?: number;
}

/**
 * The share of CACHE_MB that keeps answers of closed candle ranges (docs/launchpad-api.md,
 * "Candles"); the other cached answers keep the rest, so the API holds CACHE_MB in all.
 */
const CLOSED_CANDLES_SHARE = 1 / 4;

export interface LaunchpadApi {
  url: string;
  stats(): { subscribers: number; lastEventId: number; dropped: number; cachedResponses: number };
  close(): Promise<void>;
}

export async function startLaunchpadApi(options: LaunchpadApiOptions): Promise<LaunchpadApi> {
  const { db, logger, index } = options;
  const native = checkedNativeCoin(options.native);
  const { wallet } = options;
  const cacheBytes = options.cacheBytes ?? DEFAULT_CACHE_BYTES;
  const candleBytes = Math.floor(cacheBytes * CLOSED_CANDLES_SHARE);
  const cache = createResponseCache({ maxBytes: cacheBytes - candleBytes });
  const answers = createImmutableCache(candleBytes);
  const facts = createTokenFacts(db);
  const windows = createTradeWindows(db, { allFacts: facts.all });
  const hub = createFeedHub({
    db,
    logger,
    keepaliveMs: options.keepaliveMs,
    maxBufferedBytes: options.sseMaxBufferedBytes,
    // what the indexer just committed makes the cached answers that read it stale
    onChange: (change) => {
      applyChange(cache, change);
      facts.apply(change);
      // a backfill writes trades below the chain order the windows of trades reached, and into candles kept as final
      if (change.kind === 'anything') {
        windows.reset();
        answers.clear();
      }
    },
  });
  await hub.start();
  const metrics = createMetrics({
    routes: [...routeLabels(LAUNCHPAD_ROUTES), ...WEB_ROUTES],
    indexerStatus: index.live,
    feed: () => hub.stats(),
  });
  const ctx: LaunchpadContext = {
    db,
    logger,
    index,
    native,
    cache,
    answers,
    hub,
    windows,
    metrics: metrics.handler,
    sql:
      options.sql &&
      createSqlContext(db, options.sql, {
        host: options.host,
        windowSeconds: options.rateLimit.windowSeconds,
        trustedHops: options.rateLimit.trustedHops,
      }),
    prices: wallet && createPriceSource({ chain: wallet.chain, launchpad: wallet.launchpad, logger }, wallet.prices),
    wallet: wallet && {
      options: wallet,
      holdings: createHoldings({ db, chain: wallet.chain, logger }),
      holdingsCacheMs: options.holdingsCacheMs,
      broadcast: createBroadcaster(db, wallet.chain, logger, wallet.broadcast),
    },
  };

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
    });
  mount(app, LAUNCHPAD_ROUTES, ctx);

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
