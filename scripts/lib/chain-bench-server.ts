// The server side of `npm run bench:chain`, in its own process as in production: the
// Chain API on the prepared index (its node: the bench's devnet, for read-through only;
// every request of the bench is answered from the index), and a Polka hello-world route
// on another port (the baseline, same process shape), beside `/bytes/{n}`: a fixed body
// of n bytes made beforehand (the cost of sending an answer that large, and nothing else),
// and `/one-query`: hello-world after one `SELECT 1` on the index's database (the cost of
// asking the database once, and nothing else).
// Prints `ready {json}` on stdout; `quit` on stdin closes both and exits.
import { fromBech32 } from '@cosmjs/encoding';
import { startChainApi } from '../../src/api/chain/server.ts';
import { silentLogger } from '../../src/internal/logger.ts';
import { childConfig, serveCommands } from './bench-child-bootstrap.ts';
import { loadBenchConfig } from './bench-config.ts';
import { type NodeServerConfig, openDatabaseAndNode, startHelloWorld } from './bench-servers.ts';

const config = childConfig<NodeServerConfig>();
const { db, chain } = await openDatabaseAndNode(config);
const api = await startChainApi({
  db,
  chain,
  logger: silentLogger,
  accountPrefix: fromBech32(config.launchpad, 1023).prefix,
  host: '127.0.0.1',
  port: 0,
  rateLimit: { reads: 1_000_000_000, broadcasts: 1_000_000_000, windowSeconds: 60, trustedHops: 0 },
  // CACHE_MB as the service reads it (the bench's environment reaches this process)
  cacheBytes: loadBenchConfig().cacheBytes,
});
const hello = await startHelloWorld({ fixedBodies: true, db });

serveCommands({ api: api.url, hello: hello.origin }, {}, async () => {
  await api.close();
  hello.close();
  chain.disconnect();
  await db.close();
});
