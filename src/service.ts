// Assembles the service from its parts: the database (migrated; in embedded mode with
// its scheduled jobs), the chain (the configured node, or the built-in devnet), the
// indexer and the HTTP servers.
import path from 'node:path';
import { fromBech32 } from '@cosmjs/encoding';
import { startChainApi } from './api/chain/server.ts';
import { startLaunchpadApi } from './api/launchpad/server.ts';
import { DEFAULT_SQL_MAX_COST, sqlOff } from './api/launchpad/sql/options.ts';
import { startNodeHealth } from './api/node-health.ts';
import { type ChainClient, createChainClient } from './chain/client.ts';
import { type NativeCoin, readNativeCoin } from './chain/native-coin.ts';
import type { BackfillFlags } from './cli-args.ts';
import { type Config, cacheBytes } from './config.ts';
import { type Database, describeDatabase, openDatabase } from './db/index.ts';
import { scheduleEmbeddedJobs } from './db/jobs.ts';
import { migrate } from './db/migrate.ts';
import { createDevnet, DEVNET_CHAIN_ID, type Devnet } from './devnet/index.ts';
import type { ContractAddresses } from './domain/events.ts';
import { backfill, planBackfill } from './indexer/backfill.ts';
import { createIndexer, type Indexer, indexSource } from './indexer/indexer.ts';
import { createProgress } from './indexer/progress.ts';
import { readThreadsAtMost, setReadThreads } from './indexer/read-block.ts';
import { ServiceError } from './internal/errors.ts';
import type { Logger } from './internal/logger.ts';
import type { Shutdown } from './internal/shutdown.ts';

/** How long the APIs' chain client holds the node's protocol before reading it again. */
const API_PROTOCOL_RECHECK_MS = 60_000;

export interface ServiceContext {
  config: Config;
  logger: Logger;
  shutdown: Shutdown;
}

export interface Service {
  db: Database;
  chain: ChainClient;
  contracts: ContractAddresses;
  indexer: Indexer;
  devnet?: Devnet;
  /** Lines describing where everything is, printed at start. */
  endpoints: { name: string; where: string }[];
}

export async function startDatabase({ config, logger, shutdown }: ServiceContext): Promise<Database> {
  const where = { databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR };
  const started = performance.now();
  const db = await openDatabase({
    ...where,
    onCrash: (error) => {
      logger.fatal({ err: error }, 'Embedded database stopped');
      void shutdown.run('database crashed').then(() => process.exit(1));
    },
  });
  shutdown.add('database', () => db.close());
  const applied = await migrate(db);
  logger.info(
    {
      database: describeDatabase(where),
      migrations_applied: applied.length,
      duration_ms: Math.round(performance.now() - started),
    },
    'Opened the database',
  );
  if (db.kind === 'embedded') {
    const jobs = scheduleEmbeddedJobs(db, {
      refreshCron: config.CANDLE_REFRESH_CRON,
      retentionCron: config.RETENTION_CRON,
      logger,
    });
    shutdown.add('scheduled jobs', () => jobs.stop());
  }
  return db;
}

/** The built-in devnet, kept in DATA_DIR/devnet so its chain survives a restart like the index does. */
async function startDevnet({ config, logger, shutdown }: ServiceContext, { traffic = true } = {}): Promise<Devnet> {
  const devnet = await createDevnet({
    mnemonic: config.DEVNET_MNEMONIC,
    blockMs: config.DEVNET_BLOCK_MS,
    host: config.HOST,
    port: config.DEVNET_RPC_PORT,
    tradesPerBlock: traffic ? config.DEVNET_TRADES_PER_BLOCK : 0,
    cometVersion: config.DEVNET_COMET_VERSION,
    dataDir: config.DATA_DIR.startsWith('memory://') ? undefined : path.join(config.DATA_DIR, 'devnet'),
    logger: logger.child({ component: 'devnet' }),
  });
  shutdown.add('devnet', () => devnet.close());
  logger.info({ rpc: devnet.rpcUrl, chain_id: devnet.chainId, height: devnet.height() }, 'Started the built-in devnet');
  return devnet;
}

/** The chain to index: CHAIN_RPC_URL, or the built-in devnet when it is unset. */
export async function connectChain(
  ctx: ServiceContext,
  { traffic = true } = {},
): Promise<{ chain: ChainClient; apiChain: ChainClient; devnet?: Devnet; contracts: ContractAddresses }> {
  const { config, shutdown } = ctx;
  // the threads the indexer reads the chain's blocks on (src/indexer/read-block.ts)
  if (config.INDEXER_READ_THREADS !== undefined) setReadThreads(config.INDEXER_READ_THREADS);
  const devnet = config.CHAIN_RPC_URL ? undefined : await startDevnet(ctx, { traffic });
  const client = (attempts?: number, protocolRecheckMs?: number) =>
    createChainClient(config.CHAIN_RPC_URL ?? devnet!.rpcUrl, {
      headers: config.CHAIN_RPC_HEADERS,
      timeoutMs: config.CHAIN_RPC_TIMEOUT_MS,
      concurrency: config.CHAIN_RPC_CONCURRENCY,
      attempts,
      protocolRecheckMs,
      onRateLimited: (ms) => ctx.logger.debug({ retry_after_ms: ms }, 'The node asked to slow down'),
    });
  // the indexer's calls are retried by the transport; an API request that needs the node
  // fails fast instead (503, code 14 on the Chain API) and its client asks again
  const chain = client();
  // the APIs read the node's protocol again each minute: an upgrade changes how events read
  // through and print (base64 attributes on Tendermint 0.34), and no indexer round tells them
  const apiChain = client(1, API_PROTOCOL_RECHECK_MS);
  shutdown.add('chain client', () => {
    chain.disconnect();
    apiChain.disconnect();
  });
  // with CHAIN_RPC_URL set, loadConfig requires both addresses: the devnet's are only the devnet's
  const contracts = devnet ? devnet.contracts : { launchpad: config.LAUNCHPAD_CONTRACT!, amm: config.AMM_CONTRACT! };
  return { chain, apiChain, devnet, contracts };
}

/**
 * The chain's native coin (src/chain/native-coin.ts), read from the node with a few
 * retries; a node that cannot say refuses the start unless NATIVE_DENOM is configured
 * (then only the denom metadata is asked for, and its absence is no failure).
 */
async function nativeCoinOf(chain: ChainClient, config: Config): Promise<NativeCoin> {
  const overrides = { denom: config.NATIVE_DENOM, decimals: config.NATIVE_DECIMALS, display: config.NATIVE_DISPLAY };
  for (let attempt = 1; ; attempt++) {
    try {
      return await readNativeCoin(chain, overrides);
    } catch (error) {
      if (attempt < 3) {
        await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
        continue;
      }
      throw new ServiceError(
        `Could not read the chain's native coin from the node (${(error as Error).message}); set NATIVE_DENOM (and NATIVE_DECIMALS, NATIVE_DISPLAY) to start without it`,
      );
    }
  }
}

/** Runs a backfill with a progress bar (or log lines) and a summary line; returns when done. */
export async function runBackfill(
  { db, chain, contracts, indexer }: Pick<Service, 'db' | 'chain' | 'contracts'> & { indexer?: Indexer },
  flags: BackfillFlags,
  { logger, shutdown }: ServiceContext,
): Promise<void> {
  const plan = await planBackfill({ db, chain, ...flags, besideLiveIndexer: indexer !== undefined });
  logger.info(
    { from: plan.from, to: plan.to, moves_cursor: plan.movesCursor, read_threads: readThreadsAtMost() },
    'Began a backfill',
  );
  const progress = createProgress({ total: plan.to - plan.from + 1, logger });
  await backfill({ db, chain, contracts, logger, signal: shutdown.signal, onBatch: progress.update }, plan);
  const done = progress.finish();
  logger.info(
    {
      from: plan.from,
      to: plan.to,
      blocks: done.blocks,
      trades: done.trades,
      seconds: Number(done.seconds.toFixed(1)),
      blocks_per_s: Math.round(done.blocksPerSecond),
      trades_per_s: Math.round(done.tradesPerSecond),
    },
    shutdown.signal.aborted ? 'Interrupted the backfill' : 'Finished the backfill',
  );
}

/** A URL as printed: without a password or query (providers put keys there). */
function redactedUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  if (u.search) u.search = '?…';
  return u.toString();
}

export async function startService(ctx: ServiceContext): Promise<Service> {
  const { config, logger, shutdown } = ctx;
  const db = await startDatabase(ctx);
  const { chain, apiChain, devnet, contracts } = await connectChain(ctx);
  const rpcUrl = chain.rpcUrl;
  // A devnet's history is short and all of it is wanted; on another chain start at the tip
  // unless START_HEIGHT says otherwise (history can be added with `npm run backfill`).
  const startHeight = config.START_HEIGHT ?? ((chainId: string) => (chainId === DEVNET_CHAIN_ID ? 1 : undefined));
  const indexer = createIndexer({
    db,
    chain,
    contracts,
    logger: logger.child({ component: 'indexer' }),
    pollIntervalMs: config.POLL_INTERVAL_MS,
    startHeight,
    subscribe: config.CHAIN_RPC_WEBSOCKET === 'on',
    fetchConcurrency: Math.max(1, Math.floor(config.CHAIN_RPC_CONCURRENCY / 2)),
    cw20Contracts: config.CW20_CONTRACTS,
  });
  indexer.start();
  shutdown.add('indexer', () => indexer.stop());
  // An index of another chain is refused before anything is served (ChainMismatchError)
  await indexer.checked();

  // the contracts' addresses carry the chain's account prefix
  const accountPrefix = fromBech32(contracts.launchpad, 1023).prefix;
  const native = await nativeCoinOf(chain, config);
  const launchpadApi = await startLaunchpadApi({
    native,
    db,
    logger: logger.child({ component: 'launchpad-api' }),
    host: config.HOST,
    port: config.LAUNCHPAD_API_PORT,
    rateLimit: {
      points: config.LAUNCHPAD_RATE_LIMIT,
      windowSeconds: config.RATE_LIMIT_WINDOW_S,
      trustedHops: config.TRUST_PROXY,
    },
    index: indexSource(db, indexer),
    cacheBytes: cacheBytes(config),
    sql: {
      mode: config.SQL_API,
      maxRows: config.SQL_MAX_ROWS,
      rateLimit: config.SQL_RATE_LIMIT,
      timeoutMs: config.SQL_TIMEOUT_MS,
      // a server interrupts a statement at its timeout; the embedded database cannot
      maxCost: config.SQL_MAX_COST ?? (db.kind === 'embedded' ? DEFAULT_SQL_MAX_COST : undefined),
    },
    wallet: {
      chain: apiChain,
      accountPrefix,
      launchpad: contracts.launchpad,
      prices: { url: config.PRICE_URL, jsonPath: config.PRICE_JSON_PATH },
    },
  });
  shutdown.add('launchpad API', () => launchpadApi.close());
  const chainApi = await startChainApi({
    db,
    chain: apiChain,
    logger: logger.child({ component: 'chain-api' }),
    accountPrefix,
    host: config.HOST,
    port: config.CHAIN_API_PORT,
    rateLimit: {
      reads: config.CHAIN_API_READ_LIMIT,
      broadcasts: config.CHAIN_API_BROADCAST_LIMIT,
      windowSeconds: config.RATE_LIMIT_WINDOW_S,
      trustedHops: config.TRUST_PROXY,
    },
    cacheBytes: cacheBytes(config),
    indexedHeight: () => indexer.status().indexedHeight,
  });
  shutdown.add('chain API', () => chainApi.close());
  const nodeHealth = await startNodeHealth({
    chain: apiChain,
    host: config.HOST,
    port: config.RPC_PORT,
    logger: logger.child({ component: 'node-health' }),
  });
  shutdown.add('node health', () => nodeHealth.close());

  return {
    db,
    chain,
    contracts,
    indexer,
    devnet,
    endpoints: [
      {
        name: 'launchpad API',
        where: `${launchpadApi.url}/api/tokens  (health ${launchpadApi.url}/api/health, metrics ${launchpadApi.url}/metrics)`,
      },
      { name: 'live feed', where: `${launchpadApi.url}/api/sse/feed` },
      {
        name: 'SQL',
        where: sqlOff(config.SQL_API, config.HOST)
          ? `off (SQL_API=${config.SQL_API}, HOST=${config.HOST})`
          : `POST ${launchpadApi.url}/api/sql  (npm run sql; docs/sql.md)`,
      },
      { name: 'dashboard', where: `${launchpadApi.url}/  (API reference ${launchpadApi.url}/api/docs)` },
      { name: 'chain API', where: `${chainApi.url}/cosmos/base/tendermint/v1beta1/blocks/latest` },
      { name: 'node health', where: nodeHealth.url },
      { name: 'database', where: describeDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR }) },
      {
        name: 'chain',
        where: devnet
          ? `built-in devnet ${devnet.chainId}, CometBFT ${chain.protocol} RPC ${devnet.rpcUrl}`
          : `CometBFT ${chain.protocol} RPC ${redactedUrl(rpcUrl)}`,
      },
      { name: 'contracts', where: `launchpad ${contracts.launchpad}, AMM ${contracts.amm}` },
      { name: 'native coin', where: `${native.display} (${native.denom}, ${native.decimals} decimals)` },
    ],
  };
}
