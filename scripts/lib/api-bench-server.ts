// The server side of `npm run bench:api`, in its own process as in production: the
// Launchpad API on a prepared database, and a Polka hello-world route on another port
// (the baseline, same process shape). Prints `ready {json}` on stdout; reads commands on
// stdin: `emit` commits one feed event with its NOTIFY and answers `emitted <id> <epoch ms>`;
// `write-start <trades per block> <block ms>` starts live writes through the indexer's write
// path in this process (as the embedded database requires: one process owns it), answering
// `write-started`; `write-stop` answers `write-stopped {json}` with what was written.

import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import polka from 'polka';
import { startLaunchpadApi } from '../../src/api/launchpad/server.ts';
import { openDatabase } from '../../src/db/index.ts';
import { encodeNotice, FEED_CHANNEL } from '../../src/feed/notice.ts';
import { indexSource } from '../../src/indexer/indexer.ts';
import { silentLogger } from '../../src/internal/logger.ts';
import { createLiveWriter } from './live-writer.ts';

const { databaseUrl, dataDir, tokens } = JSON.parse(process.argv[2]!) as {
  databaseUrl?: string;
  dataDir: string;
  tokens: number;
};
const db = await openDatabase({ databaseUrl, dataDir });
const api = await startLaunchpadApi({
  db,
  logger: silentLogger,
  host: '127.0.0.1',
  port: 0,
  index: indexSource(db),
  rateLimit: { points: 1_000_000_000, windowSeconds: 60, trustedHops: 0 },
});

const hello = polka().get('/hello', (_req, res) => {
  const body = JSON.stringify({ hello: 'world' });
  res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
hello.listen(0, '127.0.0.1');
await new Promise((resolve) => hello.server.once('listening', resolve));

const now = () => performance.timeOrigin + performance.now();
let seq = 0;
let writer: ReturnType<typeof createLiveWriter> | undefined;
createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line === 'emit') {
    // what the indexer does: the outbox row and one NOTIFY in the same transaction
    seq++;
    const data = JSON.stringify({
      token_address: 'native1bench',
      action: 'buy',
      direction: 'native_to_token',
      input_amount: String(seq),
      output_amount: '1',
      price_unative: '1',
      trader: 'native1bench',
      tx_hash: `BENCH${seq}`,
      time: new Date().toISOString(),
      native_reserves: '1',
    });
    const sentAt = now();
    const id = await db.transaction(async (tx) => {
      const [row] = await tx.query<{ id: number }>(
        `INSERT INTO feed_events (event, token_address, data, event_key, block_height) VALUES ('trade', 'native1bench', $1::json, $2, 0) RETURNING id`,
        [data, `bench:${process.pid}:${Date.now()}:${seq}`],
      );
      await tx.query(`SELECT pg_notify($1, $2)`, [
        FEED_CHANNEL,
        encodeNotice({ kind: 'events', highId: Number(row!.id) }),
      ]);
      return Number(row!.id);
    });
    process.stdout.write(`emitted ${id} ${sentAt}\n`);
  } else if (line.startsWith('write-start ')) {
    const [tradesPerBlock, blockMs] = line.split(' ').slice(1).map(Number) as [number, number];
    writer = createLiveWriter(db, tokens, { tradesPerBlock, blockMs });
    await writer.start();
    process.stdout.write('write-started\n');
  } else if (line === 'write-stop') {
    const stats = await writer!.stop();
    writer = undefined;
    process.stdout.write(`write-stopped ${JSON.stringify(stats)}\n`);
  } else if (line === 'stats') {
    const m = process.memoryUsage();
    process.stdout.write(
      `stats ${JSON.stringify({ ...api.stats(), rss: m.rss, heapUsed: m.heapUsed, external: m.external })}\n`,
    );
  } else if (line === 'gc') {
    globalThis.gc?.();
    process.stdout.write('gc done\n');
  } else if (line === 'quit') {
    await api.close();
    hello.server.close();
    await db.close();
    process.exit(0);
  }
});

process.stdout.write(
  `ready ${JSON.stringify({ api: api.url, hello: `http://127.0.0.1:${(hello.server.address() as AddressInfo).port}/hello` })}\n`,
);
