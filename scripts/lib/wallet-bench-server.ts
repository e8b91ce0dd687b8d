// The server side of `npm run bench:wallet`, in its own process as in production: the
// Launchpad API with its wallet routes on a prepared database and a devnet node, twice (as
// configured, and with holdings never cached, for what computing an answer costs), and a
// Polka hello-world route on another port (the baseline, same process shape). Every contract
// query the APIs send goes through a counting wrapper of their chain client. Prints `ready {json}` on
// stdout; reads commands on stdin: `queries` answers `queries <n>` (contract queries so far);
// `vouch <0|1> <token,…>` moves those tokens' creation below (0) or into (1) the heights the
// index holds completely, as a backfill of the history would, and answers `vouched`;
// `live-start <blockMs> <heldEvery> <wallet>` starts blocks written through the indexer's write
// path, each with 10 CW20 transfers between other holders and 2 trades of tokens the wallet
// does not hold, except that every `heldEvery`-th block trades one it holds (`live-started`);
// `live-stop` answers `live-stopped {stats}`; `quit`.

import { startLaunchpadApi } from '../../src/api/launchpad/server.ts';
import type { ChainClient } from '../../src/chain/client.ts';
import type { Cw20Movement } from '../../src/indexer/decode-cw20.ts';
import { rng } from '../../test/helpers/trades.ts';
import { childConfig, serveCommands } from './bench-child-bootstrap.ts';
import { launchpadBenchOptions, type NodeServerConfig, openDatabaseAndNode, startHelloWorld } from './bench-servers.ts';
import { createLiveWriter } from './live-writer.ts';

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
let writer: ReturnType<typeof createLiveWriter> | undefined;

/** The live writer of `live-start`: blocks about other holders and tokens, every `heldEvery`-th trading a held one. */
async function liveWriter(blockMs: number, heldEvery: number, wallet: string) {
  const held = (
    await db.query<{ token: string }>(`SELECT token FROM cw20_balances WHERE holder = $1 AND balance <> 0`, [wallet])
  ).map((r) => r.token);
  const others = (
    await db.query<{ address: string }>(
      `SELECT address FROM tokens WHERE address NOT IN (SELECT token FROM cw20_balances WHERE holder = $1)`,
      [wallet],
    )
  ).map((r) => r.address);
  const rows = await db.query<{ holder: string; token: string }>(
    `SELECT holder, token FROM cw20_balances WHERE holder <> $1 AND balance > 1000 ORDER BY holder, token LIMIT 20000`,
    [wallet],
  );
  const r = rng(77);
  return createLiveWriter(db, {
    tradesPerBlock: 2,
    blockMs,
    tokenFor: (height, k) => (k === 0 && height % heldEvery === 0 ? r.pick(held) : r.pick(others)),
    // one unit of a token from one holder to another, ten times
    movementsFor: () =>
      Array.from({ length: 10 }, (): Cw20Movement[] => {
        const from = r.pick(rows);
        const to = r.pick(rows).holder;
        return [
          { token: from.token, holder: from.holder, amount: -1n },
          { token: from.token, holder: to, amount: 1n },
        ];
      }).flat(),
  });
}

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
    'live-start': async ([blockMs, heldEvery, wallet]) => {
      writer = await liveWriter(Number(blockMs), Number(heldEvery), wallet!);
      await writer.start();
      return 'live-started';
    },
    'live-stop': async () => {
      const stats = await writer!.stop();
      writer = undefined;
      return `live-stopped ${JSON.stringify({ blocks: stats.blocks, trades: stats.trades, late: stats.late })}`;
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
