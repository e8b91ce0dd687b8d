// What `npm start` and `npm run backfill` share before they start anything: the
// configuration, the --from/--to flags (either wrong: a message and exit code 2), the
// logger and the orderly shutdown on Ctrl-C.
import { parseArgs } from 'node:util';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { ServiceError } from './internal/errors.ts';
import { createLogger, type Logger } from './internal/logger.ts';
import { createShutdown, handleSignals, type Shutdown } from './internal/shutdown.ts';

export interface BackfillFlags {
  from?: number;
  to?: number;
}

export class UsageError extends ServiceError {
  override name = 'UsageError';
}

const height = (name: string, value: string | undefined) => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new UsageError(
      `--${name} must be a block height (a whole number of 1 or more), got ${JSON.stringify(value)}`,
    );
  return Number(value);
};

export function parseBackfillFlags(argv: string[]): BackfillFlags {
  let values: { from?: string; to?: string };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { from: { type: 'string' }, to: { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nUsage: --from <height> --to <height>`);
  }
  const flags = { from: height('from', values.from), to: height('to', values.to) };
  if (flags.from !== undefined && flags.to !== undefined && flags.to < flags.from)
    throw new UsageError(`--to ${flags.to} is below --from ${flags.from}`);
  return flags;
}

export function startCommand(): { config: Config; flags: BackfillFlags; logger: Logger; shutdown: Shutdown } {
  let config: Config;
  let flags: BackfillFlags;
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
  return { config, flags, logger, shutdown };
}
