// Command-line flags shared by `npm start` and `npm run backfill`: --from H --to H.
import { parseArgs } from 'node:util';

export interface BackfillFlags {
  from?: number;
  to?: number;
}

export class UsageError extends Error {
  override name = 'UsageError';
}

const height = (name: string, value: string | undefined) => {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`--${name} must be a block height (a whole number of 1 or more), got ${JSON.stringify(value)}`);
  return Number(value);
};

export function parseBackfillFlags(argv: string[]): BackfillFlags {
  let values: { from?: string; to?: string };
  try {
    ({ values } = parseArgs({ args: argv, options: { from: { type: 'string' }, to: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new UsageError(`${(error as Error).message}\nUsage: --from <height> --to <height>`);
  }
  const flags = { from: height('from', values.from), to: height('to', values.to) };
  if (flags.from !== undefined && flags.to !== undefined && flags.to < flags.from) throw new UsageError(`--to ${flags.to} is below --from ${flags.from}`);
  return flags;
}
