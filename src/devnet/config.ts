// The configuration of `npm run devnet` (main.ts): read once from the environment and
// validated with zod, so a bad value stops start-up with a message naming the variable. The
// names, defaults and messages are the service's for the same variables (README.md
// "Configuration"); the devnet reads only these.
import { z } from 'zod';
import { DEFAULT_DEVNET_MNEMONIC } from './constants.ts';
import { DevnetError } from './errors.ts';

const integer = (message: string) => z.string().trim().regex(/^\d+$/, { message }).transform(Number);
/** A TCP port; 0 asks the system for any free one (the printed addresses say which). */
const PORT_MESSAGE = 'must be a port number from 0 (any free port) to 65535';
const port = integer(PORT_MESSAGE).pipe(z.number().min(0, PORT_MESSAGE).max(65535, PORT_MESSAGE));
const positiveInt = (min = 1) => integer('must be a whole number').pipe(z.number().min(min, `must be at least ${min}`));

const devnetConfigSchema = z.object({
  HOST: z.string().trim().min(1).default('127.0.0.1'),
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
  /** Unset: a data directory goes on in the version it was made with, a new chain is 0.38. */
  DEVNET_COMET_VERSION: z.enum(['0.34', '0.37', '0.38'], { message: 'must be 0.34, 0.37 or 0.38' }).optional(),
  /** The chain is kept in DATA_DIR/devnet; `memory://` keeps nothing. */
  DATA_DIR: z.string().trim().min(1).default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['pretty', 'json', 'auto']).default('auto'),
});

export type DevnetConfig = z.infer<typeof devnetConfigSchema>;

export class DevnetConfigError extends DevnetError {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'DevnetConfigError';
  }
}

/** Parses the environment; throws DevnetConfigError listing every bad variable. */
export function loadDevnetConfig(env: NodeJS.ProcessEnv = process.env): DevnetConfig {
  const known = Object.keys(devnetConfigSchema.shape);
  const input = Object.fromEntries(known.map((k) => [k, env[k]]).filter(([, v]) => v !== undefined));
  const parsed = devnetConfigSchema.safeParse(input);
  if (!parsed.success) {
    throw new DevnetConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? '(environment)');
        return `${name}=${JSON.stringify(env[name] ?? '')}: ${issue.message}`;
      }),
    );
  }
  return parsed.data;
}
