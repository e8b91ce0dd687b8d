// `npm run backfill -- --from H --to H`: indexes a range of past heights and exits.
// Without flags it fills all history below the index's first block (or, on an empty
// database, indexes the chain up to its tip without feeding SSE).
import { ConfigError, loadConfig } from '../src/config.ts';
import { parseBackfillFlags, UsageError } from '../src/cli-args.ts';
import { createLogger } from '../src/internal/logger.ts';
import { createShutdown, handleSignals } from '../src/internal/shutdown.ts';
import { connectChain, runBackfill, startDatabase } from '../src/service.ts';

let config;
let flags;
try {
  config = loadConfig();
  flags = parseBackfillFlags(process.argv.slice(2));
} catch (error) {
  if (error instanceof ConfigError || error instanceof UsageError) {
    console.error(error.message);
    process.exit(2);
  }
  throw error;
}
const logger = createLogger({ level: config.LOG_LEVEL, format: config.LOG_FORMAT });
const shutdown = createShutdown(logger);
handleSignals(shutdown);
const ctx = { config, logger, shutdown };
try {
  const db = await startDatabase(ctx);
  const { chain, contracts } = await connectChain(ctx, { traffic: false });
  await runBackfill({ db, chain, contracts }, flags, ctx);
  await shutdown.run('backfill done');
} catch (error) {
  logger.error({ err: error }, `Backfill failed: ${(error as Error).message}`);
  await shutdown.run('backfill failed');
  process.exit(1);
}
