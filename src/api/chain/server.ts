// The Chain API (docs/chain-api.md): the Cosmos SDK's REST gateway shape on one Polka app.
// Blocks and transactions come from the index (read through from the node for heights
// it does not hold); state comes from the node through cosmjs ABCI queries; broadcast
// and simulate go to the node. Errors are the gateway's `{code, message, details}`. The
// routes are the Chain API's route table (src/api/chain/route-table.ts), mounted in order
// behind CORS and the rate limits.
import polka from 'polka';
import { followPrefixes, type Prefixes } from '../../chain/bech32-prefixes.ts';
import type { ChainClient } from '../../chain/client.ts';
import { startChainTypes } from '../../chain/reflection.ts';
import type { Database } from '../../db/types.ts';
import type { Logger } from '../../internal/logger.ts';
import { createErrorHandler, noRouteHandler } from '../http/errors.ts';
import { createImmutableCache, DEFAULT_CACHE_BYTES } from '../http/http-cache.ts';
import { createRateLimit, type Limited } from '../http/rate-limit.ts';
import { CORS_HEADERS } from '../http/respond.ts';
import { mount } from '../http/routes.ts';
import { type Served, serve } from '../http/serve.ts';
import { type ChainApiContext, createSlowCache } from './context.ts';
import { CHAIN_ERRORS, chainNoRoute, GatewayError, GRPC } from './gateway.ts';
import { CHAIN_ROUTES } from './route-table.ts';
import { createSpanReader } from './tx-search.ts';

export interface ChainApiOptions {
  db: Database;
  chain: ChainClient;
  logger: Logger;
  /**
   * The chain's bech32 account prefix; its validator and consensus prefixes are read from the
   * node at start (src/chain/bech32-prefixes.ts), made from it when the node cannot say.
   */
  accountPrefix: string;
  host: string;
  /** 0 picks a free port. */
  port: number;
  rateLimit: { reads: number; broadcasts: number; windowSeconds: number; trustedHops: number };
  /** Bytes of rendered answers that never change (blocks, transactions, pages of txs) kept in memory (CACHE_MB; default 64 MiB). */
  cacheBytes?: number;
  /**
   * The height this process's indexer has committed, where one runs here: a page of the newest
   * txs first then follows each new block at once, not up to a quarter second later.
   */
  indexedHeight?: () => number | null;
}

/** The share of CACHE_MB that keeps pages of txs (docs/chain-api.md "Caching"); blocks and txs keep the rest. */
const TX_PAGES_SHARE = 1 / 8;

export interface ChainApi {
  url: string;
  prefixes: Prefixes;
  close(): Promise<void>;
}

/** 429 in the gateway's shape: code 8, ResourceExhausted. */
const gatewayLimited = ({ points, windowSeconds, retryAfterSeconds, headers }: Limited) =>
  new GatewayError(
    GRPC.RESOURCE_EXHAUSTED,
    `rate limit exceeded: at most ${points} requests per ${windowSeconds} s per client; retry in ${retryAfterSeconds} s`,
    headers,
  );

/** Broadcasts count against their own, smaller limit; every other request against the read limit. */
const isBroadcast = (method: string | undefined, path: string) =>
  method === 'POST' && path === '/cosmos/tx/v1beta1/txs';

export async function startChainApi(options: ChainApiOptions): Promise<ChainApi> {
  const { db, chain, logger } = options;
  // the node's protocol read now, not by the first request (events print in its form)
  chain.heldProtocol();
  const followed = await followPrefixes(chain, options.accountPrefix, {
    onRead: (read) => logger.debug({ ...read }, "Read the chain's bech32 prefixes"),
    onMissing: (error) =>
      logger.warn(
        { err: error.message },
        "The node could not say the chain's validator and consensus prefixes yet; using the usual ones until it does (blocks are not kept meanwhile)",
      ),
  });
  const prefixes = followed.current;
  const cacheBytes = options.cacheBytes ?? DEFAULT_CACHE_BYTES;
  const txPageBytes = Math.floor(cacheBytes * TX_PAGES_SHARE);
  const ctx: ChainApiContext = {
    db,
    chain,
    logger,
    prefixes,
    prefixesRead: followed.read,
    slow: createSlowCache(),
    answers: createImmutableCache(cacheBytes - txPageBytes),
    txPages: createImmutableCache(txPageBytes),
    indexedSpan: createSpanReader(db, options.indexedHeight),
  };
  const stopChainTypes = startChainTypes(
    async (path, data) => (await chain.queries.queryAbci(path, data)).value,
    logger,
  );
  const { reads, broadcasts, windowSeconds, trustedHops } = options.rateLimit;
  const readLimit = createRateLimit({ points: reads, windowSeconds, trustedHops, limited: gatewayLimited });
  const broadcastLimit = createRateLimit({ points: broadcasts, windowSeconds, trustedHops, limited: gatewayLimited });

  const app = polka({ onError: createErrorHandler(logger, CHAIN_ERRORS), onNoMatch: noRouteHandler(chainNoRoute) })
    .use((req, res, next) => {
      if (req.method !== 'OPTIONS') return next();
      res.writeHead(204, {
        ...CORS_HEADERS,
        'Access-Control-Allow-Methods': 'GET, HEAD, POST, OPTIONS',
        'Access-Control-Allow-Headers': req.headers['access-control-request-headers'] ?? 'Content-Type',
        'Access-Control-Max-Age': 86400,
      });
      res.end();
    })
    .use((req, res, next) => (isBroadcast(req.method, req.path) ? broadcastLimit : readLimit)(req, res, next));
  mount(app, CHAIN_ROUTES, ctx);

  const served: Served = await serve(app, {
    host: options.host,
    port: options.port,
    style: CHAIN_ERRORS,
    noRoute: chainNoRoute,
  });
  const close = () => {
    stopChainTypes();
    followed.stop();
    return served.close();
  };
  return { url: served.url, prefixes, close };
}
