// What every Launchpad API route is given (its handler is made from it once, at start): the
// index, the response cache, the live feed, the chain's native coin and, when the service
// talks to a node, the wallet routes' own parts.
import type { NativeCoin } from '../../chain/native-coin.ts';
import type { Database } from '../../db/types.ts';
import type { Logger } from '../../internal/logger.ts';
import type { ImmutableCache } from '../http/http-cache.ts';
import type { IndexSource } from '../http/index-status.ts';
import type { ResponseCache } from '../http/response-cache.ts';
import type { Handler, Route } from '../http/routes.ts';
import type { FeedHub } from './feed-hub.ts';
import type { SqlContext } from './sql/options.ts';
import type { TradeWindows } from './trade-windows.ts';
import type { BroadcastResult } from './wallet/broadcast-once.ts';
import type { Holdings } from './wallet/holdings.ts';
import type { WalletOptions } from './wallet/options.ts';
import type { PriceSource } from './wallet/price-source.ts';

export interface WalletContext {
  options: WalletOptions;
  holdings: Holdings;
  /** How long holdings that read a contract's balance are answered from memory. */
  holdingsCacheMs: number | undefined;
  broadcast: (txBytes: Uint8Array) => Promise<BroadcastResult>;
}

export interface LaunchpadContext {
  db: Database;
  logger: Logger;
  index: IndexSource;
  native: NativeCoin;
  cache: ResponseCache;
  /** Answers that never change (candles of periods over and indexed), kept rendered within CACHE_MB. */
  answers: ImmutableCache;
  hub: FeedHub;
  /** The last day of trades in memory: the tokens' 24-hour figures and prices before each window. */
  windows: TradeWindows;
  /** GET /metrics's handler (src/api/http/metrics.ts). */
  metrics: Handler;
  /** The native coin's USD price (the launchpad's oracle, or PRICE_URL); absent without a node. */
  prices?: PriceSource;
  /** SQL over HTTP (docs/sql.md); absent: its routes are not served. */
  sql?: SqlContext;
  /** Absent when the service has no node for the wallet routes: they are not served then. */
  wallet?: WalletContext;
}

export type LaunchpadRoute = Route<LaunchpadContext>;
export type { SqlContext };

/** A wallet route's handler and its condition: served only with a node. */
export const walletRoute = (make: (wallet: WalletContext, ctx: LaunchpadContext) => Handler) => ({
  served: (ctx: LaunchpadContext) => ctx.wallet !== undefined,
  handler: (ctx: LaunchpadContext) => make(ctx.wallet!, ctx),
});
