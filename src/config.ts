// Service configuration: read once from the environment and validated with zod,
// so a bad value stops start-up with a message naming the variable.

import { fromBech32 } from '@cosmjs/encoding';
import cron from 'node-cron';
import { z } from 'zod';
import { ServiceError } from './internal/errors.ts';

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

/**
 * HTTP headers for the node's provider (an API key): `Name: value` pairs, one per line or
 * separated by `;`, or a JSON object of strings. Their values are secrets: an error names
 * the variable and the problem, never what it holds.
 */
const httpHeaders = z
  .string()
  .optional()
  .transform((v, ctx): Record<string, string> => {
    const text = v?.trim() ?? '';
    if (text === '') return {};
    const fail = (message: string) => {
      ctx.addIssue({ code: 'custom', message, fatal: true });
      return z.NEVER;
    };
    const token = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
    const out: Record<string, string> = {};
    if (text.startsWith('{')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return fail('must be a JSON object of header names to string values, or `Name: value` pairs');
      }
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
        return fail('must be a JSON object of header names to string values');
      for (const [name, value] of Object.entries(parsed)) {
        if (!token.test(name) || typeof value !== 'string' || /[\r\n]/.test(value))
          return fail(`header ${JSON.stringify(name)} needs a valid name and a one-line string value`);
        out[name] = value;
      }
      return out;
    }
    for (const pair of text.split(/[;\n]/)) {
      if (pair.trim() === '') continue;
      const colon = pair.indexOf(':');
      const name = pair.slice(0, colon).trim();
      if (colon < 1 || !token.test(name)) return fail('must be `Name: value` pairs separated by `;` or new lines');
      out[name] = pair.slice(colon + 1).trim();
    }
    return out;
  });

/** Contract addresses separated by commas or spaces. */
const contractList = z
  .string()
  .optional()
  .transform((v) => (v ?? '').split(/[\s,]+/).filter(Boolean))
  .refine((list) => list.every((a) => contractAddress.safeParse(a).success), {
    message: 'must be bech32 contract addresses separated by commas',
  });

const cronExpression = z
  .string()
  .trim()
  .refine((v) => cron.validate(v), { message: 'must be a cron expression (5 or 6 fields, seconds first when 6)' });

const configSchema = z.object({
  DATABASE_URL: url(['postgres:', 'postgresql:']),
  DATA_DIR: z.string().trim().min(1).default('./data'),
  CHAIN_RPC_URL: url(['http:', 'https:']),
  CHAIN_RPC_HEADERS: httpHeaders,
  CHAIN_RPC_CONCURRENCY: positiveInt(1).pipe(z.number().max(256, 'must be at most 256')).default(16),
  CHAIN_RPC_TIMEOUT_MS: positiveInt(100).default(15_000),
  CHAIN_RPC_WEBSOCKET: z.enum(['on', 'off']).default('on'),
  INDEXER_READ_THREADS: positiveInt(1).pipe(z.number().max(16, 'must be at most 16')).optional(),
  LAUNCHPAD_CONTRACT: contractAddress,
  AMM_CONTRACT: contractAddress,
  CW20_CONTRACTS: contractList,
  NATIVE_DENOM: z
    .string()
    .trim()
    .regex(/^([a-zA-Z][a-zA-Z0-9/:._-]{2,127})?$/, { message: 'must be a Cosmos SDK denom (e.g. uatom)' })
    .optional()
    .transform((v) => v || undefined),
  NATIVE_DECIMALS: z
    .string()
    .trim()
    .regex(/^(\d{1,2})?$/, { message: 'must be a number of decimals from 0 to 30' })
    .optional()
    .transform((v) => (v ? Number(v) : undefined))
    .refine((v) => v === undefined || v <= 30, { message: 'must be a number of decimals from 0 to 30' }),
  NATIVE_DISPLAY: optionalString,
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  CHAIN_API_PORT: port.default(1317),
  LAUNCHPAD_API_PORT: port.default(3000),
  RPC_PORT: port.default(26657),
  DEVNET_RPC_PORT: port.default(26667),
  DEVNET_BLOCK_MS: positiveInt(50).default(1000),
  /** Unset: the built-in devnet's own default mnemonic (DEFAULT_DEVNET_MNEMONIC in src/devnet/index.ts). */
  DEVNET_MNEMONIC: z
    .string()
    .trim()
    .refine((v) => [12, 15, 18, 21, 24].includes(v.split(/\s+/).length), {
      message: 'must be a BIP-39 mnemonic of 12 to 24 words',
    })
    .optional(),
  DEVNET_COMET_VERSION: z.enum(['0.34', '0.37', '0.38'], { message: 'must be 0.34, 0.37 or 0.38' }).default('0.38'),
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
  CACHE_MB: integer('must be a whole number of megabytes (0: no answers kept)').default(64),
  SQL_API: z.enum(['on', 'off', 'loopback'], { message: 'must be on, off or loopback' }).default('loopback'),
  SQL_MAX_ROWS: positiveInt(1).pipe(z.number().max(1_000_000, 'must be at most 1000000')).default(10_000),
  SQL_RATE_LIMIT: positiveInt(1).default(60),
  SQL_TIMEOUT_MS: positiveInt(10).default(5_000),
  /** Embedded default: DEFAULT_SQL_MAX_COST; on a server none unless set (statement_timeout bounds a query there). */
  SQL_MAX_COST: positiveInt(1).optional(),
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

/** The answer caches' memory budget in bytes (CACHE_MB). */
export const cacheBytes = (config: Pick<Config, 'CACHE_MB'>) => config.CACHE_MB * 2 ** 20;

/** Variables whose values are secrets: an error about them never shows the value. */
const SECRET = new Set(['CHAIN_RPC_HEADERS']);

/** What a real chain needs that the devnet supplies by itself. */
function realChainProblems(config: Config): string[] {
  if (!config.CHAIN_RPC_URL) return [];
  return (['LAUNCHPAD_CONTRACT', 'AMM_CONTRACT'] as const)
    .filter((name) => !config[name])
    .map(
      (name) =>
        `${name} is required with CHAIN_RPC_URL: the address of the chain's ${name === 'AMM_CONTRACT' ? 'AMM' : 'launchpad'} contract (the built-in devnet's addresses mean nothing on another chain)`,
    );
}

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
        const value = SECRET.has(name) ? '(value hidden)' : JSON.stringify(env[name] ?? '');
        return `${name}=${value}: ${issue.message}`;
      }),
    );
  }
  const problems = realChainProblems(parsed.data);
  if (problems.length > 0) throw new ConfigError(problems);
  return parsed.data;
}
