// `npm start`: runs the whole service. With no configuration it uses the embedded
// TimescaleDB in ./data and the built-in devnet, and prints where everything is.
import { startCommand } from './cli-args.ts';
import { ChainMismatchError, NodeUnsuitableError } from './indexer/errors.ts';
import { runBackfill, startService } from './service.ts';

/**
 * Exit code when the database holds the index of another chain than the node serves, or
 * the node cannot serve the index (pruned below it, no block results kept).
 */
const EXIT_CHAIN_MISMATCH = 3;

const { config, flags, logger, shutdown } = startCommand();

try {
  const service = await startService({ config, logger, shutdown });
  const width = Math.max(...service.endpoints.map((e) => e.name.length));
  const lines = service.endpoints.map((e) => `  ${e.name.padEnd(width)}  ${e.where}`);
  process.stdout.write(`\nLaunchpad index service is running (Ctrl-C to stop)\n${lines.join('\n')}\n\n`);
  if (flags.from !== undefined || flags.to !== undefined) {
    // the live indexer goes on meanwhile; the backfill fills the requested range beside it
    runBackfill(service, flags, { config, logger, shutdown }).catch((error) =>
      logger.error({ err: error }, 'Backfill failed'),
    );
  }
} catch (error) {
  if (error instanceof ChainMismatchError || error instanceof NodeUnsuitableError) {
    // not a crash: the index belongs to another chain (serving it as this one would be
    // wrong), or the node lacks what indexing needs
    logger.fatal(`Refused to start: ${error.message}`);
    await shutdown.run('refused the chain');
    process.exit(EXIT_CHAIN_MISMATCH);
  }
  logger.fatal({ err: error }, 'Start-up failed');
  await shutdown.run('start-up failed');
  process.exit(1);
}
