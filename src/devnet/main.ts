// `npm run devnet`: serves the devnet standalone on DEVNET_RPC_PORT with traffic on
// (DEVNET_TRADES_PER_BLOCK, default 2), keeping the chain in DATA_DIR/devnet so a restart
// continues it (DATA_DIR=memory:// for a fresh in-memory chain each run). DEVNET_COMET_VERSION
// (0.34, 0.37 or 0.38; checked with the rest of the configuration, config.ts) picks the
// protocol of a new chain; unset, a data directory keeps the version it was made with. It logs
// with pino as LOG_LEVEL / LOG_FORMAT say and stops cleanly on SIGINT/SIGTERM.
import path from 'node:path';
import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';
import { type DevnetConfig, DevnetConfigError, loadDevnetConfig } from './config.ts';
import { createDevnet, type Devnet } from './index.ts';

let config: DevnetConfig;
try {
  config = loadDevnetConfig();
} catch (error) {
  if (error instanceof DevnetConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

/** JSON lines, or pino-pretty for LOG_FORMAT=pretty, and for auto on a terminal. */
function createLogger(level: string, format: DevnetConfig['LOG_FORMAT']): Logger {
  const usePretty = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  if (!usePretty) return pino({ level, base: undefined });
  return pino(
    { level, base: undefined },
    pretty({ colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname', sync: true }),
  );
}

/** The first SIGINT/SIGTERM closes the devnet and exits 0 (1 if closing takes 15 s); a second exits at once. */
function handleSignals(devnet: Devnet, logger: Logger, timeoutMs = 15_000): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130);
    stopping = true;
    logger.info({ reason: signal }, 'Began shutting down');
    const timer = setTimeout(() => {
      logger.error({ timeout_ms: timeoutMs }, 'Shutdown timed out; exiting');
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    void devnet
      .close()
      .catch((error: unknown) => logger.error({ err: error, step: 'devnet' }, 'Close step failed'))
      .then(() => {
        clearTimeout(timer);
        logger.info('Stopped');
        process.exit(0);
      });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

const logger = createLogger(config.LOG_LEVEL, config.LOG_FORMAT);
const dataDir = config.DATA_DIR === 'memory://' ? undefined : path.resolve(config.DATA_DIR, 'devnet');
const devnet = await createDevnet({
  host: config.HOST,
  port: config.DEVNET_RPC_PORT,
  blockMs: config.DEVNET_BLOCK_MS,
  mnemonic: config.DEVNET_MNEMONIC,
  tradesPerBlock: config.DEVNET_TRADES_PER_BLOCK,
  cometVersion: config.DEVNET_COMET_VERSION,
  dataDir,
  logger,
});
logger.info(
  { rpc_url: devnet.rpcUrl, chain_id: devnet.chainId, comet_version: devnet.cometVersion, height: devnet.height() },
  'Started the devnet',
);
handleSignals(devnet, logger);

const lines = [
  `Devnet RPC      ${devnet.rpcUrl}  (websocket ${devnet.rpcUrl.replace(/^http/, 'ws')}/websocket)`,
  `Chain id        ${devnet.chainId}  height ${devnet.height()}  (CometBFT ${devnet.cometVersion})`,
  `Data            ${dataDir ?? 'in memory'}`,
  `Launchpad       ${devnet.contracts.launchpad}`,
  `AMM             ${devnet.contracts.amm}`,
  `Traffic         ${devnet.generator.rate} trades per block every ${config.DEVNET_BLOCK_MS} ms`,
  'Funded accounts (account 0 administers the launchpad):',
  ...devnet.accounts.map((a) => `  ${String(a.index).padStart(2)}  ${a.address}`),
  'Press Ctrl-C to stop.',
];
console.log(lines.join('\n'));
