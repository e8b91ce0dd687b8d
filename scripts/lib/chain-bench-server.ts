// The server side of `npm run bench:chain`, in its own process as in production: the
// Chain API on the prepared index (its node: the bench's devnet, for read-through only;
// every request of the bench is answered from the index), and a Polka hello-world route
// on another port (the baseline, same process shape), beside `/bytes/{n}`: a fixed body
// of n bytes made beforehand (the cost of sending an answer that large, and nothing else).
// Prints `ready {json}` on stdout; `quit` on stdin closes both and exits.
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fromBech32 } from '@cosmjs/encoding';
import polka from 'polka';
import { startChainApi } from '../../src/api/chain/server.ts';
import { createChainClient } from '../../src/chain/client.ts';
import { openDatabase } from '../../src/db/index.ts';
import { silentLogger } from '../../src/internal/logger.ts';

const { databaseUrl, dataDir, rpcUrl, launchpad } = JSON.parse(process.argv[2]!) as {
  databaseUrl?: string;
  dataDir: string;
  rpcUrl: string;
  launchpad: string;
};
const db = await openDatabase({ databaseUrl, dataDir });
const chain = createChainClient(rpcUrl);
const api = await startChainApi({
  db,
  chain,
  logger: silentLogger,
  accountPrefix: fromBech32(launchpad, 1023).prefix,
  host: '127.0.0.1',
  port: 0,
  rateLimit: { reads: 1_000_000_000, broadcasts: 1_000_000_000, windowSeconds: 60, trustedHops: 0 },
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
const hello = polka()
  .get('/hello', (_req, res) => {
    const body = JSON.stringify({ hello: 'world' });
    res.writeHead(200, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body);
  })
  // the same with a body of n bytes, made beforehand: what answering that many bytes costs alone
  .get('/bytes/:n', (req, res) => {
    const body = fixedBody(Math.min(Number(req.params.n) || 0, 64 * 2 ** 20));
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  });
hello.listen(0, '127.0.0.1');
await new Promise((resolve) => hello.server.once('listening', resolve));

createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line !== 'quit') return;
  await api.close();
  hello.server.close();
  chain.disconnect();
  await db.close();
  process.exit(0);
});

process.stdout.write(
  `ready ${JSON.stringify({ api: api.url, hello: `http://127.0.0.1:${(hello.server.address() as AddressInfo).port}` })}\n`,
);
