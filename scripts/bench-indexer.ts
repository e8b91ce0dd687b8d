// `npm run bench:indexer [-- --trades N --live-seconds S]`
// (a) Backfill throughput: a devnet (its own process) pregenerates N trades; the backfill
//     path indexes them; trades/s is compared with bench:ingest's raw unnest insert of
//     trades into an identical table, measured in the same run on the same database
//     (target >= 0.5), and the CPU each trade costs the indexer and the node is printed.
// (b) Live lag: the devnet makes a block a second with traffic; the live indexer follows
//     it; the time from a block's commit on the devnet to its trades being committed in
//     the database, p50 and p99 (targets 1 s and 2 s).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createChainClient } from '../src/chain/client.ts';
import { type Database, openDatabase } from '../src/db/index.ts';
import { migrate } from '../src/db/migrate.ts';
import type { Trade } from '../src/domain/events.ts';
import { backfill } from '../src/indexer/backfill.ts';
import { fetchBlocks } from '../src/indexer/fetch-blocks.ts';
import { createIndexer } from '../src/indexer/indexer.ts';
import { writeBatch } from '../src/indexer/write-batch.ts';
import { silentLogger } from '../src/internal/logger.ts';
import { freshServerDatabase } from '../test/helpers/database.ts';
import { randomTrades } from '../test/helpers/trades.ts';
import { loadBenchConfig } from './lib/bench-config.ts';
import { startDevnetProcess } from './lib/devnet-process.ts';
import { createRawTradesTable, ingestRounds, rawInsertTrades } from './lib/raw-insert.ts';
import { percentile } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    trades: { type: 'string', default: '1000000' },
    'trades-per-block': { type: 'string', default: '1000' },
    'live-seconds': { type: 'string', default: '60' },
    'live-rate': { type: 'string', default: '50' },
  },
});
const tradeCount = Number(values.trades);
const { databaseUrl } = loadBenchConfig();

async function withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  // every measurement starts on an empty database: a temporary embedded one, or a new
  // database on the DATABASE_URL server, dropped afterwards
  const server = databaseUrl ? await freshServerDatabase(databaseUrl) : undefined;
  const dataDir = server ? '' : mkdtempSync(path.join(tmpdir(), 'bench-indexer-'));
  const db = await openDatabase({ databaseUrl: server?.url, dataDir });
  try {
    await migrate(db);
    return await fn(db);
  } finally {
    await db.close();
    await server?.dispose();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

const average = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function timedRawInserts(db: Database, slices: Trade[][]): Promise<number> {
  const rates: number[] = [];
  for (const rows of slices) {
    const started = performance.now();
    await rawInsertTrades(db, rows);
    rates.push(rows.length / ((performance.now() - started) / 1000));
  }
  return average(rates);
}

/**
 * The raw insert rate, two ways, in this database: bench:ingest's own procedure (200k
 * trades over 90 days, the baseline), and the same insert into a single day's
 * chunk (the backfilled trades span minutes, so they land in one chunk too).
 */
async function rawInsertRates(db: Database): Promise<{ ingest: number; oneChunk: number }> {
  await createRawTradesTable(db);
  const ingest = await timedRawInserts(db, ingestRounds(200_000, 3));
  const tokens = Array.from({ length: 1000 }, (_, i) => `native1benchtoken${i}`);
  const oneChunk = await timedRawInserts(
    db,
    [0, 1, 2].map((round) => {
      const from = new Date(Date.now() - 100 * 86_400_000 - (3 - round) * 86_400_000);
      const rows = randomTrades({
        seed: 900 + round,
        from,
        to: new Date(from.getTime() + 86_400_000),
        tokens,
        blocks: 19_000,
        startHeight: 10_000_000 + round * 1_000_000,
      });
      return rows.sort((a, b) => a.time.getTime() - b.time.getTime());
    }),
  );
  return { ingest, oneChunk };
}

/** CPU seconds (user + system) a process has used, from /proc (Linux). */
function processCpuSeconds(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

async function benchBackfill() {
  console.log(
    `(a) backfill: pregenerating ${tradeCount} trades on the devnet (${values['trades-per-block']} per block)…`,
  );
  const genStarted = performance.now();
  const devnet = await startDevnetProcess({
    pregenerate: tradeCount,
    tradesPerBlock: Number(values['trades-per-block']),
  });
  console.log(
    `    devnet ready: ${devnet.trades} trades in ${devnet.height} blocks (${((performance.now() - genStarted) / 1000).toFixed(0)} s)`,
  );
  const chain = createChainClient(devnet.rpcUrl, { timeoutMs: 120_000 });
  try {
    // the ceiling the node sets: reading every block and its results, indexing nothing
    const readStarted = performance.now();
    for (let h = 1; h <= devnet.height; h += 8)
      await fetchBlocks(chain, h, Math.min(devnet.height, h + 7), devnet.contracts);
    const readSeconds = (performance.now() - readStarted) / 1000;
    console.log(
      `    reading the blocks alone (fetch, parse, hash, decode, pack; no database): ${Math.round(devnet.trades / readSeconds)} trades/s`,
    );
    await withDatabase(async (db) => {
      let trades = 0;
      const devnetCpu = processCpuSeconds(devnet.child.pid!);
      const ownCpu = process.cpuUsage();
      const started = performance.now();
      await backfill({
        db,
        chain,
        contracts: devnet.contracts,
        logger: silentLogger,
        from: 1,
        to: devnet.height,
        onBatch: (b) => (trades += b.trades),
      });
      const seconds = (performance.now() - started) / 1000;
      const ownUsed = process.cpuUsage(ownCpu);
      const devnetUsed = (processCpuSeconds(devnet.child.pid!) ?? NaN) - (devnetCpu ?? NaN);
      const backfillRate = trades / seconds;
      console.log(
        `    backfill: ${trades} trades, ${devnet.height} blocks in ${seconds.toFixed(1)} s = ${Math.round(backfillRate)} trades/s, ${(devnet.height / seconds).toFixed(1)} blocks/s`,
      );
      const perTrade = (cpuSeconds: number) => Math.round((cpuSeconds / trades) * 1e6);
      const indexerCpu = (ownUsed.user + ownUsed.system) / 1e6;
      const cores = availableParallelism();
      console.log(
        `    CPU per trade: indexer process ${perTrade(indexerCpu)} µs (reading, decoding, writing, the embedded database and garbage collection), devnet process ${Number.isNaN(devnetUsed) ? '?' : perTrade(devnetUsed)} µs;` +
          ` ${((indexerCpu + (Number.isNaN(devnetUsed) ? 0 : devnetUsed)) / seconds).toFixed(2)} of ${cores} cores busy`,
      );
      const raw = await rawInsertRates(db);
      console.log(
        `    raw INSERT … SELECT FROM unnest (same database, same run), bench:ingest's procedure: ${Math.round(raw.ingest)} rows/s; into one day's chunk: ${Math.round(raw.oneChunk)} rows/s`,
      );
      console.log(
        `    ratio backfill/raw: ${(backfillRate / raw.ingest).toFixed(2)} against bench:ingest's procedure, ${(backfillRate / raw.oneChunk).toFixed(2)} against one chunk (target >= 0.5)`,
      );
    });
    // the write path on its own: blocks fetched beforehand, then decoded and written
    const sample = await fetchBlocks(chain, 1, Math.min(devnet.height, 30), devnet.contracts);
    await withDatabase(async (db) => {
      const started = performance.now();
      let trades = 0;
      for (let i = 0; i < sample.length; i += 5) {
        const blocks = sample.slice(i, i + 5);
        const events = blocks.flatMap((b) => b.decoded.events);
        const result = await db.transaction((tx) =>
          writeBatch(tx, { blocks, events }, { moveCursor: true, emitFeed: false, bulk: true }),
        );
        trades += result.trades;
      }
      const rate = trades / ((performance.now() - started) / 1000);
      const raw = await rawInsertRates(db);
      console.log(
        `    write path alone (${trades} trades from prefetched blocks: chain index, trades, tokens): ${Math.round(rate)} trades/s, ratio to raw ${(rate / raw.ingest).toFixed(2)} (bench:ingest's procedure), ${(rate / raw.oneChunk).toFixed(2)} (one chunk)`,
      );
    });
  } finally {
    chain.disconnect();
    await devnet.stop();
  }
}

async function benchLiveLag() {
  const seconds = Number(values['live-seconds']);
  const rate = Number(values['live-rate']);
  console.log(`(b) live lag: 1 block/s with ${rate} trades per block for ${seconds} s`);
  const devnet = await startDevnetProcess({ blockMs: 1000, liveRate: rate });
  const chain = createChainClient(devnet.rpcUrl);
  try {
    await withDatabase(async (db) => {
      const lags: number[] = [];
      let trades = 0;
      const indexer = createIndexer({
        db,
        chain,
        contracts: devnet.contracts,
        logger: silentLogger,
        pollIntervalMs: 5000,
        startHeight: devnet.height + 1,
        onBatch: (batch) => {
          const committedAt = Date.now();
          lags.push(committedAt - batch.lastBlock.time.getTime());
          trades += batch.trades;
        },
      });
      indexer.start();
      await new Promise((r) => setTimeout(r, seconds * 1000));
      await indexer.stop();
      const sorted = [...lags].sort((a, b) => a - b);
      console.log(`    ${lags.length} batches, ${trades} trades; block commit → trades committed in the database:`);
      console.log(
        `    p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted.at(-1)} ms (targets p50 <= 1000 ms, p99 <= 2000 ms)`,
      );
    });
  } finally {
    chain.disconnect();
    await devnet.stop();
  }
}

console.log(`bench:indexer on ${databaseUrl ? 'a TimescaleDB server' : 'the embedded TimescaleDB (on disk)'}`);
await benchBackfill();
await benchLiveLag();
