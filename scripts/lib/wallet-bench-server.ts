// The server side of `npm run bench:wallet`, in its own process as in production: the
// Launchpad API with its wallet routes on a prepared database and a devnet node, twice (as
// configured, and with holdings never cached, for what computing an answer costs), and a
// Polka hello-world route on another port (the baseline, same process shape). Every contract
// query the APIs send goes through a counting wrapper of their chain client. Prints `ready {json}` on
// stdout; reads commands on stdin: `queries` answers `queries <n>` (contract queries so far);
// `vouch <0|1> <token,…>` moves those tokens' creation below (0) or into (1) the heights the
// index holds completely, as a backfill of the history would, and answers `vouched`; `quit`.

import { startLaunchpadApi } from '../../src/api/launchpad/server.ts';
import type { ChainClient } from '../../src/chain/client.ts';
import { childConfig, serveCommands } from './bench-child-bootstrap.ts';
import { launchpadBenchOptions, type NodeServerConfig, openDatabaseAndNode, startHelloWorld } from './bench-servers.ts';

const config = childConfig<NodeServerConfig>();
const { db, chain } = await openDatabaseAndNode(config);
let queries = 0;
const counted: ChainClient = {
  ...chain,
  smartQuery: (contract, query) => {
    queries++;
    return chain.smartQuery(contract, query);
  },
};
const startApi = (holdingsCacheMs?: number) =>
  startLaunchpadApi({
    ...launchpadBenchOptions(db),
    wallet: { chain: counted, accountPrefix: 'native', launchpad: config.launchpad },
    holdingsCacheMs,
  });
const api = await startApi();
const uncached = await startApi(0);
const hello = await startHelloWorld();

serveCommands(
  { api: api.url, uncached: uncached.url, hello: `${hello.origin}/hello` },
  {
    queries: () => `queries ${queries}`,
    vouch: async ([on, list]) => {
      // what the index's writer does when it learns a creation or a lower complete_from
      await db.transaction(async (tx) => {
        await tx.query(`UPDATE cw20_tokens SET created_height = $2 WHERE token = ANY($1::text[])`, [
          list!.split(','),
          on === '1' ? 2 : 0,
        ]);
        await tx.query(`UPDATE cw20_state SET version = version + 1`);
      });
      return 'vouched';
    },
  },
  async () => {
    await api.close();
    await uncached.close();
    hello.close();
    chain.disconnect();
    await db.close();
  },
);
