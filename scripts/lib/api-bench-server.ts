// The server side of `npm run bench:api`, in its own process as in production: the
// Launchpad API on a prepared database, and a Polka hello-world route on another port
// (the baseline, same process shape). Prints `ready {json}` on stdout; reads commands on
// stdin: `emit` commits one feed event with its NOTIFY and answers `emitted <id> <epoch ms>`;
// `write-start <trades per block> <block ms>` starts live writes through the indexer's write
// path in this process (as the embedded database requires: one process owns it), answering
// `write-started`; `write-stop` answers `write-stopped {json}` with what was written;
// `stats` answers `stats {json}` (the API's counters and this process's memory); `gc`
// collects garbage and answers `gc done`; `quit`.

import { startLaunchpadApi } from '../../src/api/launchpad/server.ts';
import { openDatabase } from '../../src/db/index.ts';
import { encodeNotice, FEED_CHANNEL } from '../../src/feed/notice.ts';
import { childConfig, serveCommands } from './bench-child-bootstrap.ts';
import { launchpadBenchOptions, startHelloWorld } from './bench-servers.ts';
import { createLiveWriter, popularTokens } from './live-writer.ts';

const { databaseUrl, dataDir, tokens } = childConfig<{ databaseUrl?: string; dataDir: string; tokens: number }>();
const db = await openDatabase({ databaseUrl, dataDir });
const api = await startLaunchpadApi(launchpadBenchOptions(db));
const hello = await startHelloWorld({ fixedBodies: true });

const now = () => performance.timeOrigin + performance.now();
let seq = 0;
let writer: ReturnType<typeof createLiveWriter> | undefined;
serveCommands(
  { api: api.url, hello: `${hello.origin}/hello` },
  {
    emit: async () => {
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
      return `emitted ${id} ${sentAt}`;
    },
    'write-start': async (args) => {
      const [tradesPerBlock, blockMs] = args.map(Number) as [number, number];
      writer = createLiveWriter(db, { tradesPerBlock, blockMs, tokenFor: popularTokens(tokens) });
      await writer.start();
      return 'write-started';
    },
    'write-stop': async () => {
      const stats = await writer!.stop();
      writer = undefined;
      return `write-stopped ${JSON.stringify(stats)}`;
    },
    stats: () => {
      const m = process.memoryUsage();
      return `stats ${JSON.stringify({ ...api.stats(), rss: m.rss, heapUsed: m.heapUsed, external: m.external })}`;
    },
    gc: () => {
      globalThis.gc?.();
      return 'gc done';
    },
  },
  async () => {
    await api.close();
    hello.close();
    await db.close();
  },
);
