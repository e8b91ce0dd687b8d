// `npm run bench:indexer [-- --trades N --live-seconds S]`
// (a) Backfill throughput: a devnet (its own process) pregenerates N trades; the backfill
//     path indexes them; trades/s is compared with a raw unnest insert of trades into an
//     identical table, measured in the same run on the same database (target >= 0.5).
// (b) Live lag: the devnet makes a block a second with traffic; the live indexer follows
//     it; the time from a block's commit on the devnet to its trades being committed in
//     the database, p50 and p99 (targets 1 s and 2 s).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createChainClient } from '../src/chain/client.ts';
import { openDatabase, type Database } from '../src/db/index.ts';
import { migrate } from '../src/db/migrate.ts';
import { backfill } from '../src/indexer/backfill.ts';
import { fetchBlocks } from '../src/indexer/fetch-blocks.ts';
import { writeBatch } from '../src/indexer/write-batch.ts';
import { createIndexer } from '../src/indexer/indexer.ts';
import { silentLogger } from '../src/internal/logger.ts';
import { randomTrades } from '../test/helpers/trades.ts';
import { startDevnetProcess } from './lib/devnet-process.ts';
import { createRawTradesTable, rawInsertTrades } from './lib/raw-insert.ts';
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

async function withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
  const dataDir = process.env.DATABASE_URL ? '' : mkdtempSync(path.join(tmpdir(), 'bench-indexer-'));
  const db = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir });
  try {
    await migrate(db);
    return await fn(db);
  } finally {
    await db.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
}

async function rawInsertRate(db: Database): Promise<number> {
  await createRawTradesTable(db);
  const tokens = Array.from({ length: 1000 }, (_, i) => `native1benchtoken${i}`);
  const rates: number[] = [];
  for (let round = 0; round < 3; round++) {
    const from = new Date(Date.now() - (3 - round) * 86_400_000);
    const rows = randomTrades({ seed: 900 + round, from, to: new Date(from.getTime() + 86_400_000), tokens, blocks: 19_000, startHeight: 1 + round * 1_000_000 });
    rows.sort((a, b) => a.time.getTime() - b.time.getTime());
    const started = performance.now();
    await rawInsertTrades(db, rows);
    rates.push(rows.length / ((performance.now() - started) / 1000));
  }
  return rates.reduce((a, b) => a + b, 0) / rates.length;
}

async function benchBackfill() {
  console.log(`(a) backfill: pregenerating ${tradeCount} trades on the devnet (${values['trades-per-block']} per block)…`);
  const genStarted = performance.now();
  const devnet = await startDevnetProcess({ pregenerate: tradeCount, tradesPerBlock: Number(values['trades-per-block']) });
  console.log(`    devnet ready: ${devnet.trades} trades in ${devnet.height} blocks (${((performance.now() - genStarted) / 1000).toFixed(0)} s)`);
  const chain = createChainClient(devnet.rpcUrl, { timeoutMs: 120_000 });
  try {
    // the ceiling the node sets: reading every block and its results, indexing nothing
    const readStarted = performance.now();
    for (let h = 1; h <= devnet.height; h += 8) await fetchBlocks(chain, h, Math.min(devnet.height, h + 7), devnet.contracts);
    const readSeconds = (performance.now() - readStarted) / 1000;
    console.log(`    reading the blocks alone (fetch, parse, hash, decode, pack; no database): ${Math.round(devnet.trades / readSeconds)} trades/s`);
    await withDatabase(async (db) => {
      let trades = 0;
      const started = performance.now();
      await backfill({ db, chain, contracts: devnet.contracts, logger: silentLogger, from: 1, to: devnet.height, onBatch: (b) => (trades += b.trades) });
      const seconds = (performance.now() - started) / 1000;
      const backfillRate = trades / seconds;
      console.log(`    backfill: ${trades} trades, ${devnet.height} blocks in ${seconds.toFixed(1)} s = ${Math.round(backfillRate)} trades/s, ${(devnet.height / seconds).toFixed(1)} blocks/s`);
      const rawRate = await rawInsertRate(db);
      console.log(`    raw INSERT … SELECT FROM unnest of trades (same database, same run): ${Math.round(rawRate)} rows/s`);
      console.log(`    ratio backfill/raw: ${(backfillRate / rawRate).toFixed(2)} (target >= 0.5)`);
    });
    // the write path on its own: blocks fetched beforehand, then decoded and written
    const sample = await fetchBlocks(chain, 1, Math.min(devnet.height, 30), devnet.contracts);
    await withDatabase(async (db) => {
      const started = performance.now();
      let trades = 0;
      for (let i = 0; i < sample.length; i += 5) {
        const blocks = sample.slice(i, i + 5);
        const events = blocks.flatMap((b) => b.decoded.events);
        const result = await db.transaction((tx) => writeBatch(tx, { blocks, events }, { moveCursor: true, emitFeed: false, bulk: true }));
        trades += result.trades;
      }
      const rate = trades / ((performance.now() - started) / 1000);
      const rawRate = await rawInsertRate(db);
      console.log(`    write path alone (${trades} trades from prefetched blocks: chain index, trades, tokens): ${Math.round(rate)} trades/s, ratio to raw ${(rate / rawRate).toFixed(2)}`);
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
      console.log(`    p50 ${percentile(sorted, 50)} ms, p99 ${percentile(sorted, 99)} ms, max ${sorted.at(-1)} ms (targets p50 <= 1000 ms, p99 <= 2000 ms)`);
    });
  } finally {
    chain.disconnect();
    await devnet.stop();
  }
}

console.log(`bench:indexer on ${process.env.DATABASE_URL ? 'a TimescaleDB server' : 'the embedded TimescaleDB (on disk)'}`);
await benchBackfill();
await benchLiveLag();
