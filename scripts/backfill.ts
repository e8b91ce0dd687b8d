// `npm run backfill -- --from H --to H`: indexes a range of past heights and exits.
// Without flags it fills all history below the index's first block (or, on an empty
// database, indexes the chain up to its tip without feeding SSE).
import { startCommand } from '../src/cli-args.ts';
import { connectChain, runBackfill, startDatabase } from '../src/service.ts';

const { config, flags, logger, shutdown } = startCommand();
const ctx = { config, logger, shutdown };
try {
  const db = await startDatabase(ctx);
  const { chain, contracts } = await connectChain(ctx, { traffic: false });
  await runBackfill({ db, chain, contracts }, flags, ctx);
  await shutdown.run('backfill done');
} catch (error) {
  logger.error({ err: error }, 'Backfill failed');
  await shutdown.run('backfill failed');
  process.exit(1);
}
