// `npm run devnet`: serves the devnet standalone on DEVNET_RPC_PORT with traffic on
// (DEVNET_TRADES_PER_BLOCK, default 2), keeping the chain in DATA_DIR/devnet so a restart
// continues it (DATA_DIR=memory:// for a fresh in-memory chain each run). DEVNET_COMET_VERSION
// (0.34, 0.37 or 0.38; checked with the rest of the configuration) picks the protocol of a new
// chain; unset, a data directory keeps the version it was made with.
import path from 'node:path';
import { type Config, ConfigError, loadConfig } from '../config.ts';
import { createLogger } from '../internal/logger.ts';
import { createShutdown, handleSignals } from '../internal/shutdown.ts';
import { createDevnet } from './index.ts';

let config: Config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(1);
  }
  throw error;
}

const logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT });
const dataDir = config.DATA_DIR === 'memory://' ? undefined : path.resolve(config.DATA_DIR, 'devnet');
const devnet = await createDevnet({
  host: config.HOST,
  port: config.DEVNET_RPC_PORT,
  blockMs: config.DEVNET_BLOCK_MS,
  mnemonic: config.DEVNET_MNEMONIC,
  tradesPerBlock: config.DEVNET_TRADES_PER_BLOCK,
  cometVersion: process.env.DEVNET_COMET_VERSION ? config.DEVNET_COMET_VERSION : undefined,
  dataDir,
  logger,
});
logger.info(
  { rpc_url: devnet.rpcUrl, chain_id: devnet.chainId, comet_version: devnet.cometVersion, height: devnet.height() },
  'Started the devnet',
);
const shutdown = createShutdown(logger);
shutdown.add('devnet', () => devnet.close());
handleSignals(shutdown);

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
