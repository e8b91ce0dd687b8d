// What the benches' server children share: the prepared database and the devnet node
// their configuration names, the Launchpad API's options in a bench, and the baseline
// every HTTP bench measures against: a Polka hello-world route in the same process.
import type { ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import polka from 'polka';
import { createChainClient } from '../../src/chain/client.ts';
import { openDatabase } from '../../src/db/index.ts';
import type { Database } from '../../src/db/types.ts';
import { indexSource } from '../../src/indexer/indexer.ts';
import { silentLogger } from '../../src/internal/logger.ts';

/** A server child's configuration: the prepared database, and the devnet node it reads through. */
export interface NodeServerConfig {
  databaseUrl?: string;
  dataDir: string;
  rpcUrl: string;
  launchpad: string;
}

/** Opens the configured database, then a client of the node. */
export async function openDatabaseAndNode({ databaseUrl, dataDir, rpcUrl }: NodeServerConfig) {
  const db = await openDatabase({ databaseUrl, dataDir });
  return { db, chain: createChainClient(rpcUrl) };
}

/** The Launchpad API's options on `db` in a bench: silent, on an ephemeral port, never rate-limited. */
export const launchpadBenchOptions = (db: Database) => ({
  db,
  logger: silentLogger,
  host: '127.0.0.1',
  port: 0,
  index: indexSource(db),
  rateLimit: { points: 1_000_000_000, windowSeconds: 60, trustedHops: 0 },
  // the benchmarks index the built-in devnet, whose native coin this is
  native: { denom: 'unative', display: 'NATIVE', decimals: 6 },
});

/** Fixed JSON bodies of a given size, made once each. */
const fixed = new Map<number, Buffer>();
const fixedBody = (size: number) => {
  let body = fixed.get(size);
  if (!body) {
    body = Buffer.from(JSON.stringify({ pad: 'x'.repeat(Math.max(0, size - 10)) }));
    fixed.set(size, body);
  }
  return body;
};

/**
 * Polka answering `GET /hello` with `{"hello":"world"}` on 127.0.0.1 (an ephemeral port); with
 * `fixedBodies`, also `GET /bytes/{n}`: a JSON body of n bytes made beforehand (what answering
 * that many bytes costs alone); with `db`, also `GET /one-query`: the same answer after one
 * `SELECT 1` on it (what asking the database once costs alone). Resolves once it listens, to
 * its origin.
 */
export async function startHelloWorld(options: { fixedBodies?: boolean; db?: Database } = {}) {
  const hello = (res: ServerResponse) => {
    const body = JSON.stringify({ hello: 'world' });
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
  };
  const app = polka().get('/hello', (_req, res) => hello(res));
  const { db } = options;
  if (db)
    app.get('/one-query', async (_req, res) => {
      await db.query('SELECT 1');
      hello(res);
    });
  if (options.fixedBodies)
    app.get('/bytes/:n', (req, res) => {
      const body = fixedBody(Math.min(Number(req.params.n) || 0, 64 * 2 ** 20));
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
      res.end(body);
    });
  app.listen(0, '127.0.0.1');
  await new Promise((resolve) => app.server.once('listening', resolve));
  return {
    origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`,
    close: () => void app.server.close(),
  };
}
