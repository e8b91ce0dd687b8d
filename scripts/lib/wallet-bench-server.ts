// The server side of `npm run bench:wallet`, in its own process as in production: the
// Launchpad API with its wallet routes on a prepared database and a devnet node, twice (as
// configured, and with holdings never cached, for what computing an answer costs), and a
// Polka hello-world route on another port (the baseline, same process shape). Every contract
// query the APIs send goes through a counting wrapper of their chain client. Prints `ready {json}` on
// stdout; reads commands on stdin: `queries` answers `queries <n>` (contract queries so far);
// `vouch <0|1> <token,…>` moves those tokens' creation below (0) or into (1) the heights the
// index holds completely, as a backfill of the history would, and answers `vouched`; `quit`.

import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import polka from 'polka';
import { startLaunchpadApi } from '../../src/api/launchpad/server.ts';
import { type ChainClient, createChainClient } from '../../src/chain/client.ts';
import { openDatabase } from '../../src/db/index.ts';
import { indexSource } from '../../src/indexer/indexer.ts';
import { silentLogger } from '../../src/internal/logger.ts';

const { databaseUrl, dataDir, rpcUrl, launchpad } = JSON.parse(process.argv[2]!) as {
  databaseUrl?: string;
  dataDir: string;
  rpcUrl: string;
  launchpad: string;
};
const db = await openDatabase({ databaseUrl, dataDir });
const chain = createChainClient(rpcUrl);
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
    db,
    logger: silentLogger,
    host: '127.0.0.1',
    port: 0,
    index: indexSource(db),
    rateLimit: { points: 1_000_000_000, windowSeconds: 60, trustedHops: 0 },
    wallet: { chain: counted, accountPrefix: 'native', launchpad },
    holdingsCacheMs,
  });
const api = await startApi();
const uncached = await startApi(0);

const hello = polka().get('/hello', (_req, res) => {
  const body = JSON.stringify({ hello: 'world' });
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
hello.listen(0, '127.0.0.1');
await new Promise((resolve) => hello.server.once('listening', resolve));

createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line === 'queries') {
    process.stdout.write(`queries ${queries}\n`);
  } else if (line.startsWith('vouch ')) {
    const [, on, list] = line.split(' ') as [string, string, string];
    // what the index's writer does when it learns a creation or a lower complete_from
    await db.transaction(async (tx) => {
      await tx.query(`UPDATE cw20_tokens SET created_height = $2 WHERE token = ANY($1::text[])`, [
        list.split(','),
        on === '1' ? 2 : 0,
      ]);
      await tx.query(`UPDATE cw20_state SET version = version + 1`);
    });
    process.stdout.write('vouched\n');
  } else if (line === 'quit') {
    await api.close();
    await uncached.close();
    hello.server.close();
    chain.disconnect();
    await db.close();
    process.exit(0);
  }
});

process.stdout.write(
  `ready ${JSON.stringify({ api: api.url, uncached: uncached.url, hello: `http://127.0.0.1:${(hello.server.address() as AddressInfo).port}/hello` })}\n`,
);
