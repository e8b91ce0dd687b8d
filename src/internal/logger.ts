// Structured logging: JSON lines for machines, pino-pretty on a terminal.
import { type Logger, pino } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export interface LoggerOptions {
  level: string;
  format: 'pretty' | 'json' | 'auto';
}

export function createLogger({ level, format }: LoggerOptions): Logger {
  const usePretty = format === 'pretty' || (format === 'auto' && process.stdout.isTTY === true);
  if (!usePretty) return pino({ level, base: undefined });
  return pino(
    { level, base: undefined },
    pretty({ colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname', sync: true }),
  );
}

/** A logger that writes nothing: for tests and one-off tools that print their own output. */
export const silentLogger: Logger = pino({ level: 'silent' });
