// The benchmarks' configuration: the service's own validated variables (DATABASE_URL
// picks a TimescaleDB server instead of the embedded database, CACHE_MB the API's answer
// caches) plus BENCH_TRADES, read
// once; a bad value stops the benchmark naming the variable.
import { z } from 'zod';
import { ConfigError, cacheBytes, loadConfig } from '../../src/config.ts';

const benchSchema = z.object({
  BENCH_TRADES: z
    .string()
    .trim()
    .regex(/^[1-9]\d*$/, 'must be a whole number of at least 1')
    .transform(Number)
    .optional(),
});

export function loadBenchConfig(env: NodeJS.ProcessEnv = process.env) {
  try {
    const config = loadConfig(env);
    const bench = benchSchema.safeParse({ BENCH_TRADES: env.BENCH_TRADES });
    if (!bench.success)
      throw new ConfigError(
        bench.error.issues.map((i) => `BENCH_TRADES=${JSON.stringify(env.BENCH_TRADES)}: ${i.message}`),
      );
    return { databaseUrl: config.DATABASE_URL, trades: bench.data.BENCH_TRADES, cacheBytes: cacheBytes(config) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(error.message);
    process.exit(2);
  }
}
