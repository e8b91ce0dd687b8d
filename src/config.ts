// Service configuration: read once from the environment and validated with zod,
// so a bad value stops start-up with a message naming the variable.

import { fromBech32 } from '@cosmjs/encoding';
import cron from 'node-cron';
import { z } from 'zod';
import { ServiceError } from './internal/errors.ts';

/** The devnet's well-known test mnemonic (accounts 0..9 are funded at genesis). Never use it on a real chain. */
export const DEFAULT_DEVNET_MNEMONIC =
  'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

const integer = (message: string) => z.string().trim().regex(/^\d+$/, { message }).transform(Number);
/** A TCP port; 0 asks the system for any free one (the printed addresses say which). */
const PORT_MESSAGE = 'must be a port number from 0 (any free port) to 65535';
const port = integer(PORT_MESSAGE).pipe(z.number().min(0, PORT_MESSAGE).max(65535, PORT_MESSAGE));
const positiveInt = (min = 1) => integer('must be a whole number').pipe(z.number().min(min, `must be at least ${min}`));
const optionalString = z
  .string()
  .trim()
  .transform((v) => (v === '' ? undefined : v))
  .optional();

/** A bech32 contract address (its prefix is the chain's account prefix). */
const contractAddress = optionalString.refine(
  (v) => {
    if (v === undefined) return true;
    try {
      return fromBech32(v, 1023).data.length > 0 && v === v.toLowerCase();
    } catch {
      return false;
    }
  },
  { message: 'must be a bech32 contract address' },
);

const url = (protocols: string[]) =>
  z
    .string()
    .trim()
    .transform((v) => (v === '' ? undefined : v))
    .optional()
    .refine(
      (v) => {
        if (v === undefined) return true;
        try {
          return protocols.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      { message: `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}` },
    );

const cronExpression = z
  .string()
  .trim()
  .refine((v) => cron.validate(v), { message: 'must be a cron expression (5 or 6 fields, seconds first when 6)' });

const configSchema = z.object({
  DATABASE_URL: url(['postgres:', 'postgresql:']),
  DATA_DIR: z.string().trim().min(1).default('./data'),
  CHAIN_RPC_URL: url(['http:', 'https:']),
  LAUNCHPAD_CONTRACT: contractAddress,
  AMM_CONTRACT: contractAddress,
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  CHAIN_API_PORT: port.default(1317),
  LAUNCHPAD_API_PORT: port.default(3000),
  RPC_PORT: port.default(26657),
  DEVNET_RPC_PORT: port.default(26667),
  DEVNET_BLOCK_MS: positiveInt(50).default(1000),
  DEVNET_MNEMONIC: z
    .string()
    .trim()
    .refine((v) => [12, 15, 18, 21, 24].includes(v.split(/\s+/).length), {
      message: 'must be a BIP-39 mnemonic of 12 to 24 words',
    })
    .default(DEFAULT_DEVNET_MNEMONIC),
  DEVNET_TRADES_PER_BLOCK: z
    .string()
    .trim()
    .regex(/^\d+(\.\d+)?$/, {
      message: 'must be a number of trades per block (0 or more; a fraction is a probability)',
    })
    .transform(Number)
    .default(2),
  POLL_INTERVAL_MS: positiveInt(100).default(5000),
  START_HEIGHT: positiveInt(1).optional(),
  CANDLE_REFRESH_CRON: cronExpression.default('*/10 * * * * *'),
  RETENTION_CRON: cronExpression.default('17 * * * *'),
  LAUNCHPAD_RATE_LIMIT: positiveInt(1).default(100),
  CHAIN_API_READ_LIMIT: positiveInt(1).default(100),
  CHAIN_API_BROADCAST_LIMIT: positiveInt(1).default(10),
  RATE_LIMIT_WINDOW_S: positiveInt(1).default(60),
  TRUST_PROXY: integer('must be the number of proxy hops to trust (0 when clients connect directly)').default(0),
  PRICE_URL: url(['http:', 'https:']),
  PRICE_JSON_PATH: z
    .string()
    .trim()
    .regex(/^[^.\s]+(\.[^.\s]+)*$/, {
      message: 'must be property names (or array indexes) joined by dots, e.g. native.usd',
    })
    .default('NATIVE'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['pretty', 'json', 'auto']).default('auto'),
});

export type Config = z.infer<typeof configSchema>;

export class ConfigError extends ServiceError {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment; throws ConfigError listing every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const known = Object.keys(configSchema.shape);
  const input = Object.fromEntries(known.map((k) => [k, env[k]]).filter(([, v]) => v !== undefined));
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? '(environment)');
        const value = env[name];
        return `${name}=${JSON.stringify(value ?? '')}: ${issue.message}`;
      }),
    );
  }
  return parsed.data;
}
