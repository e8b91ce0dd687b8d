// `npm run bench:storage [-- --trades N --tokens N --runs R --txs N --fresh]`
//
// What a trade costs on disk, in the rowstore and once its chunk is in the columnstore
// (sql/0016_trades_columnstore_layout.sql), and what reading cold data costs. Data: N trades
// (default 1M; `--trades 10000000` for the 10M figure) over 90 days for 1,000 tokens and
// 20,000 traders (both Zipf-distributed), each with a random 32-byte tx hash as a chain gives
// it and each token's curve reserve moving with its trades, written through the indexer's
// COPY (src/indexer/trades.ts). Kept in <tmp>/storage-bench-N (with
// DATABASE_URL: database storage_bench_N on that server) and reused; `--fresh` rebuilds.
//
// Each run first takes every chunk back to the rowstore, measures the table with its
// indexes (bytes per trade), times the queries below on a range a month old, then runs the
// compression policy as the service does (runJobs 'retention': the chunks older than a week)
// and measures and times the same again. Targets: <= 60 bytes per trade in compressed chunks,
// indexes included; each query on compressed data <= 2x its time on the rowstore.
//
// Then the chain index (sql/0019_chain_index_columnstore.sql): a devnet (its own process) makes
// `--txs` trades (default 100,000; 0 skips this), 1,000 a block, each one tx, and the service's
// backfill indexes them into a database of their own (<tmp>/storage-bench-txs-N, or
// storage_bench_txs_N on the server). A tx's bytes on disk (txs, tx_hashes, its share of the
// attribute index and of blocks, with indexes and TOAST), every chunk in the rowstore and then
// every chunk in the columnstore, against what the node sends for it: its protobuf bytes, plus
// its events as block_results spells them, DEFLATE-compressed (zlib's default level), read from
// the node for a sample of blocks. Target: <= 1.2x in the columnstore. And the reads of cold
// txs (by hash, a block's, an event search both ways, a wallet's history) through the functions
// the routes call, timed on both (after 10 untimed runs each). Target: each <= 2x its rowstore time.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import zlib from 'node:zlib';
import { toBech32 } from '@cosmjs/encoding';
import { type ChainApiContext, createSlowCache } from '../src/api/chain/context.ts';
import { loadBlock, loadTx } from '../src/api/chain/read-through.ts';
import { createSpanReader, searchTxs } from '../src/api/chain/tx-search.ts';
import { createImmutableCache } from '../src/api/http/http-cache.ts';
import { historyPage } from '../src/api/launchpad/wallet/transactions.ts';
import { prefixesOf } from '../src/chain/bech32-prefixes.ts';
import { type ChainClient, createChainClient } from '../src/chain/client.ts';
import type { WireBlockResults } from '../src/chain/node-events.ts';
import { type Database, openDatabase } from '../src/db/index.ts';
import { runJobs } from '../src/db/jobs.ts';
import { migrate } from '../src/db/migrate.ts';
import { createServerDatabase } from '../src/db/postgres.ts';
import type { Trade } from '../src/domain/events.ts';
import { readCursor } from '../src/indexer/cursor.ts';
import { insertTrades } from '../src/indexer/trades.ts';
import { silentLogger } from '../src/internal/logger.ts';
import { compressChainIndex } from '../test/helpers/database.ts';
import { makeTrade, rng } from '../test/helpers/trades.ts';
import { loadBenchConfig } from './lib/bench-config.ts';
import { backfillDevnet, startDevnetProcess } from './lib/devnet-process.ts';
import { zipf } from './lib/live-writer.ts';
import { fmt, measured, spread } from './lib/report.ts';
import { median } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    trades: { type: 'string', default: '1000000' },
    tokens: { type: 'string', default: '1000' },
    runs: { type: 'string', default: '20' },
    fresh: { type: 'boolean', default: false },
    txs: { type: 'string', default: '100000' },
  },
});
const TRADES = Number(values.trades);
const TOKENS = Number(values.tokens);
const RUNS = Number(values.runs);
const TXS = Number(values.txs);
const TRADERS = 20_000;
const DAY = 86_400_000;

/** A bech32 address: 32 bytes for a contract (a token), 20 for an account (a trader). */
const address = (n: number, length = 32) => {
  const bytes = new Uint8Array(length);
  new DataView(bytes.buffer).setUint32(length - 4, n);
  bytes.set(randomBytes(8));
  return toBech32('native', bytes);
};

/** The bench's database `key` (storage_bench_<key> on the server, <tmp>/storage-bench-<key> embedded). */
async function open(key: string): Promise<{ db: Database; where: string }> {
  const { databaseUrl } = loadBenchConfig();
  const name = `storage_bench_${key.replaceAll('-', '_')}`;
  if (!databaseUrl) {
    const dataDir = path.join(tmpdir(), `storage-bench-${key}`);
    if (values.fresh) rmSync(dataDir, { recursive: true, force: true });
    return { db: await openDatabase({ dataDir }), where: `the embedded TimescaleDB in ${dataDir}` };
  }
  const admin = createServerDatabase({ url: databaseUrl, max: 1 });
  try {
    if (values.fresh) await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    const [row] = await admin.query('SELECT 1 AS found FROM pg_database WHERE datname = $1', [name]);
    if (!row) await admin.exec(`CREATE DATABASE ${name} TEMPLATE template0`);
  } finally {
    await admin.close();
  }
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return {
    db: await openDatabase({ databaseUrl: url.toString(), dataDir: '' }),
    where: `a TimescaleDB server (database ${name})`,
  };
}

async function prepare(db: Database): Promise<void> {
  await migrate(db);
  const [{ n }] = (await db.query<{ n: number }>('SELECT count(*)::bigint AS n FROM trades')) as [{ n: number }];
  if (Number(n) === TRADES) return console.log(`  reusing ${fmt(TRADES)} trades`);
  if (Number(n) !== 0) throw new Error('the bench database holds other trades: run with --fresh');
  const started = performance.now();
  const r = rng(60);
  const tokens = Array.from({ length: TOKENS }, (_, i) => address(i));
  const traders = Array.from({ length: TRADERS }, (_, i) => address(1_000_000 + i, 20));
  const reserves = tokens.map(() => 5_000_000_000n);
  const [token, trader] = [zipf(TOKENS, r.next), zipf(TRADERS, r.next)];
  const now = Date.now();
  const step = (90 * DAY - 60_000) / TRADES;
  let height = 1;
  for (let done = 0; done < TRADES; ) {
    const rows: Trade[] = [];
    while (rows.length < 100_000 && done < TRADES) {
      const time = new Date(Math.floor(now - 90 * DAY + done * step));
      for (let k = Math.min(r.int(1, 6), TRADES - done); k > 0; k--, done++) {
        const sell = r.next() < 0.45;
        const t = token();
        const trade = makeTrade(
          {
            time,
            blockHeight: height,
            txIndex: k,
            eventIndex: r.int(0, 3),
            tokenAddress: tokens[t]!,
            trader: traders[trader()]!,
            txHash: randomBytes(32).toString('hex').toUpperCase(),
            ...(sell ? { action: 'sell' as const, direction: 'token_to_native' as const } : {}),
          },
          BigInt(r.int(1_000, 5_000_000_000)),
          BigInt(r.int(1_000, 9_000_000_000)),
        );
        // each token's reserve moves with its trades, as a curve's does
        const moved = reserves[t]! + (sell ? -trade.volumeUnative : trade.volumeUnative);
        reserves[t] = moved > 1_000_000_000n ? moved : 1_000_000_000n + trade.volumeUnative;
        rows.push({ ...trade, nativeReserves: reserves[t]! });
      }
      height++;
    }
    await insertTrades(db, rows);
    process.stdout.write(`\r  inserted ${fmt(done)} / ${fmt(TRADES)} trades`);
  }
  process.stdout.write('\n');
  console.log(`  prepared in ${fmt((performance.now() - started) / 1000, 1)} s`);
}

interface Chunk {
  name: string;
  end: Date;
  trades: number;
  /** Table, indexes and TOAST: in the rowstore, or in the columnstore once compressed. */
  bytes: number;
  compressed: boolean;
}

async function chunks(db: Database): Promise<Chunk[]> {
  const rows = await db.query<{ name: string; end: Date; bytes: string; compressed: boolean; after: string | null }>(
    `SELECT c.chunk_name AS name, c.range_end AS end, d.total_bytes::text AS bytes, c.is_compressed AS compressed,
            s.after_compression_total_bytes::text AS after
     FROM timescaledb_information.chunks c
     JOIN chunks_detailed_size('trades') d ON d.chunk_name = c.chunk_name
     LEFT JOIN chunk_compression_stats('trades') s ON s.chunk_name = c.chunk_name
     WHERE c.hypertable_name = 'trades' ORDER BY c.range_end`,
  );
  const counts = await db.query<{ day: Date; n: number }>(
    `SELECT time_bucket(INTERVAL '1 day', time) AS day, count(*)::int AS n FROM trades GROUP BY 1`,
  );
  const byEnd = new Map(counts.map((c) => [c.day.getTime() + DAY, Number(c.n)]));
  return rows.map((c) => ({
    name: c.name,
    end: c.end,
    trades: byEnd.get(c.end.getTime()) ?? 0,
    bytes: Number(c.compressed && c.after !== null ? c.after : c.bytes),
    compressed: c.compressed,
  }));
}

const perTrade = (cs: readonly Chunk[]) => {
  const trades = cs.reduce((n, c) => n + c.trades, 0);
  const bytes = cs.reduce((n, c) => n + c.bytes, 0);
  return { trades, bytes, per: bytes / Math.max(1, trades) };
};

interface Query {
  name: string;
  sql: string;
  params: unknown[];
}

/** The reads of cold data the API makes, over one day a month old. */
async function coldQueries(db: Database): Promise<Query[]> {
  const from = new Date(Date.now() - 31 * DAY);
  const to = new Date(from.getTime() + DAY);
  const [busy] = await db.query<{ token: string }>(
    `SELECT token_address AS token FROM trades WHERE time >= $1 AND time < $2 GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
    [from, to],
  );
  const tokens = await db.query<{ token: string }>(
    `SELECT token_address AS token FROM trades WHERE time >= $1 AND time < $2 GROUP BY 1 ORDER BY count(*) DESC`,
    [from, to],
  );
  const quiet = tokens[Math.floor(tokens.length / 2)]!.token;
  const [trader] = await db.query<{ trader: string }>(
    `SELECT trader FROM trades WHERE time >= $1 AND time < $2 GROUP BY 1 ORDER BY count(*) DESC LIMIT 1`,
    [from, to],
  );
  const [tx] = await db.query<{ tx_hash: string; time: Date }>(
    `SELECT tx_hash, time FROM trades WHERE time >= $1 AND time < $2 ORDER BY seq LIMIT 1 OFFSET 1000`,
    [from, to],
  );
  const page = (where: string) =>
    `SELECT time, block_height, tx_hash, direction, price_unative::text, volume_unative::text, trader FROM trades
     WHERE ${where} AND time >= $2 AND time < $3 ORDER BY time DESC, seq DESC LIMIT 50`;
  return [
    {
      name: "the busiest token's newest 50 trades of the day",
      sql: page('token_address = $1'),
      params: [busy!.token, from, to],
    },
    {
      name: "a median token's newest 50 trades of the day",
      sql: page('token_address = $1'),
      params: [quiet, from, to],
    },
    {
      name: "the busiest trader's newest 50 trades of the day",
      sql: page('trader = $1'),
      params: [trader!.trader, from, to],
    },
    {
      name: 'a trade by its tx hash and block time',
      sql: `SELECT * FROM trades WHERE tx_hash = $1 AND time = $2`,
      params: [tx!.tx_hash, tx!.time],
    },
    {
      name: "the busiest token's volume and trades of the week",
      sql: `SELECT sum(volume_unative)::text, count(*) FROM trades WHERE token_address = $1 AND time >= $2 AND time < $3`,
      params: [busy!.token, new Date(from.getTime() - 6 * DAY), to],
    },
  ];
}

/** Median milliseconds of RUNS runs of each query (after 2 untimed). */
async function timeQueries(db: Database, queries: readonly Query[]): Promise<number[][]> {
  const out: number[][] = [];
  for (const q of queries) {
    for (let i = 0; i < 2; i++) await db.query(q.sql, q.params);
    const runs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      await db.query(q.sql, q.params);
      runs.push(performance.now() - started);
    }
    out.push(runs);
  }
  return out;
}

async function benchTrades(): Promise<void> {
  const { db, where } = await open(`${TRADES}`);
  console.log(
    `bench:storage on ${where}: ${fmt(TRADES)} trades over 90 days, ${fmt(TOKENS)} tokens, ${fmt(TRADERS)} traders`,
  );
  try {
    await prepare(db);
    // the rowstore first: every chunk taken back out of the columnstore
    const back = await db.query<{ n: number }>(
      `SELECT count(decompress_chunk(c, true))::int AS n FROM show_chunks('trades') c`,
    );
    if (Number(back[0]?.n) > 0) console.log(`  ${fmt(Number(back[0]!.n))} chunks taken back to the rowstore`);
    await db.exec('VACUUM ANALYZE trades');
    const rowstore = await chunks(db);
    const hot = perTrade(rowstore);
    const queries = await coldQueries(db);
    const hotTimes = await timeQueries(db, queries);

    const started = performance.now();
    await runJobs(db, 'retention');
    const seconds = (performance.now() - started) / 1000;
    await db.exec('VACUUM ANALYZE trades');
    const after = await chunks(db);
    const compressed = perTrade(after.filter((c) => c.compressed));
    const stillHot = perTrade(after.filter((c) => !c.compressed));
    const coldTimes = await timeQueries(db, queries);

    console.log(`\nbytes on disk (table, indexes and TOAST of the trades hypertable's chunks)`);
    console.log(
      `  rowstore, every chunk:          ${fmt(hot.per, 1).padStart(7)} bytes/trade (${fmt(hot.bytes / 2 ** 20, 1)} MiB for ${fmt(hot.trades)} trades)`,
    );
    console.log(
      `  columnstore, chunks a week old: ${fmt(compressed.per, 1).padStart(7)} bytes/trade (${fmt(compressed.bytes / 2 ** 20, 1)} MiB for ${fmt(compressed.trades)} trades in ${after.filter((c) => c.compressed).length} chunks; compressed in ${fmt(seconds, 1)} s)   target <= 60: ${compressed.per <= 60 ? 'met' : 'MISSED'}`,
    );
    console.log(
      `  rowstore, the last week:        ${fmt(stillHot.per, 1).padStart(7)} bytes/trade (${fmt(stillHot.trades)} trades)`,
    );
    console.log(`  ratio rowstore / columnstore:   ${fmt(hot.per / compressed.per, 1)}x`);

    console.log(`\nqueries over a day a month old, ${RUNS} runs each after 2 untimed (ms: min / median / max)`);
    for (const [i, q] of queries.entries()) {
      const ratio = median(coldTimes[i]!) / median(hotTimes[i]!);
      console.log(`  ${q.name}`);
      console.log(
        `    rowstore ${spread(hotTimes[i]!, (n) => fmt(n, 2))}; columnstore ${spread(coldTimes[i]!, (n) => fmt(n, 2))}: ${fmt(ratio, 2)}x   target <= 2: ${ratio <= 2 ? 'met' : 'MISSED'}`,
      );
    }
    measured(
      `one run on ${where}: sizes from chunks_detailed_size (rowstore) and chunk_compression_stats (columnstore), trades per chunk counted; query times are round trips through the service's database seam, the same statements on the same day before and after its chunk was compressed`,
    );
  } finally {
    await db.close();
  }
}

/** What the node sends for the txs of a sample of blocks: protobuf bytes, and events deflated. */
async function nodeForm(chain: ChainClient, heights: readonly number[]) {
  let txs = 0;
  let proto = 0;
  let events = 0;
  for (const height of heights) {
    const [block, results] = await Promise.all([
      chain.comet.block(height),
      chain.rawCall<WireBlockResults>('block_results', { height: String(height) }),
    ]);
    for (const [i, bytes] of block.block.txs.entries()) {
      txs++;
      proto += bytes.length;
      events += zlib.deflateRawSync(JSON.stringify(results.txs_results?.[i]?.events ?? [])).length;
    }
  }
  return { txs, proto: proto / txs, events: events / txs };
}

/** Bytes per tx of the chain index, by relation (tables, indexes and TOAST; chunks and their compressed parts for the hypertables). */
async function chainIndexBytes(db: Database) {
  const [row] = await db.query<Record<'n' | 'txs' | 'hashes' | 'attributes' | 'blocks' | 'proto' | 'events', string>>(
    `SELECT count(*)::text AS n, hypertable_size('txs')::text AS txs, pg_total_relation_size('tx_hashes')::text AS hashes,
            (hypertable_size('tx_attribute_refs') + pg_total_relation_size('attribute_values'))::text AS attributes,
            pg_total_relation_size('blocks')::text AS blocks,
            sum(octet_length(tx_bytes))::text AS proto, sum(octet_length(events))::text AS events
     FROM txs`,
  );
  const n = Number(row!.n);
  const per = (v: string) => Number(v) / n;
  const bytes = {
    txs: per(row!.txs),
    hashes: per(row!.hashes),
    attributes: per(row!.attributes),
    blocks: per(row!.blocks),
    proto: per(row!.proto),
    events: per(row!.events),
  };
  return { n, ...bytes, all: bytes.txs + bytes.hashes + bytes.attributes + bytes.blocks };
}

interface ChainRead {
  name: string;
  read: () => Promise<unknown>;
}

/** The cold reads of the chain index, through the functions the routes call. */
async function chainReads(db: Database, chain: ChainClient): Promise<ChainRead[]> {
  const ctx: ChainApiContext = {
    db,
    chain,
    logger: silentLogger,
    prefixes: prefixesOf('native'),
    prefixesRead: () => true,
    slow: createSlowCache(),
    answers: createImmutableCache(0),
    txPages: createImmutableCache(0),
    indexedSpan: createSpanReader(db),
  };
  const hashes = await db.query<{ hash: string }>(
    `SELECT upper(encode(hash, 'hex')) AS hash FROM tx_hashes ORDER BY md5(hash::text) LIMIT 20`,
  );
  const [busy] = await db.query<{ key: string; value: string }>(
    `SELECT v.key, v.value FROM tx_attribute_refs r JOIN attribute_values v ON v.id = r.attribute
     WHERE v.key = 'message.sender' GROUP BY 1, 2 ORDER BY count(*) DESC LIMIT 1`,
  );
  const [{ height } = { height: 1 }] = await db.query<{ height: number }>(
    `SELECT height FROM blocks ORDER BY height LIMIT 1 OFFSET (SELECT count(*) / 2 FROM blocks)`,
  );
  let next = 0;
  const search = (descending: boolean) =>
    searchTxs(db, {
      conditions: [{ key: busy!.key, value: busy!.value }],
      descending,
      offset: 0,
      limit: 100,
      countTotal: false,
    });
  return [
    {
      name: 'a tx by hash (GET …/txs/{hash}: 20 hashes at random, in turn)',
      read: () => loadTx(ctx, hashes[next++ % hashes.length]!.hash),
    },
    { name: "a block's 1,000 txs (GET …/blocks/{height})", read: () => loadBlock(ctx, BigInt(height)) },
    { name: "the busiest sender's oldest 100 txs (GET …/txs?events=message.sender=…)", read: () => search(false) },
    { name: 'the same, newest first (order_by=ORDER_BY_DESC)', read: () => search(true) },
    {
      name: "the busiest sender's wallet history, newest 20 (GET /api/wallet/transactions)",
      read: () => historyPage(db, busy!.value, 0, 20),
    },
  ];
}

/**
 * Milliseconds of RUNS runs of each read, after 10 untimed: past PostgreSQL's first five
 * executions of a prepared statement, which it plans anew each time, so that both stores are
 * timed on the plan they keep.
 */
async function timeReads(reads: readonly ChainRead[]): Promise<number[][]> {
  const out: number[][] = [];
  for (const r of reads) {
    for (let i = 0; i < 10; i++) await r.read();
    const runs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const started = performance.now();
      await r.read();
      runs.push(performance.now() - started);
    }
    out.push(runs);
  }
  return out;
}

async function benchTxs(): Promise<void> {
  const { db, where } = await open(`txs-${TXS}`);
  console.log(`\nthe chain index on ${where}: ${fmt(TXS)} trades on a devnet, 1,000 a block, each one tx`);
  const devnet = await startDevnetProcess({
    dataDir: path.join(tmpdir(), `storage-bench-txs-${TXS}-devnet`),
    pregenerate: TXS,
    tradesPerBlock: 1000,
  });
  const chain = createChainClient(devnet.rpcUrl, { timeoutMs: 120_000 });
  try {
    await migrate(db);
    const cursor = await readCursor(db);
    if (!cursor || cursor.lastHeight < devnet.height) {
      const started = performance.now();
      await backfillDevnet(devnet, { db, chain, from: cursor ? cursor.lastHeight + 1 : 1, onBatch: () => {} });
      console.log(`  backfilled ${fmt(devnet.height)} blocks in ${fmt((performance.now() - started) / 1000, 1)} s`);
    } else console.log(`  reusing the index of ${fmt(cursor.lastHeight)} blocks`);
    // the rowstore first: every chunk taken back out of the columnstore
    for (const table of ['txs', 'tx_attribute_refs'])
      await db.query(`SELECT count(decompress_chunk(c, true)) FROM show_chunks($1::regclass) c`, [table]);
    const vacuum = async () => {
      for (const table of ['blocks', 'txs', 'tx_hashes', 'tx_attribute_refs', 'attribute_values'])
        await db.exec(`VACUUM ANALYZE ${table}`);
    };
    await vacuum();
    const hot = await chainIndexBytes(db);
    const reads = await chainReads(db, chain);
    const hotTimes = await timeReads(reads);
    // then every chunk in the columnstore, as the policy leaves those 100,000 heights behind the tip
    const started = performance.now();
    await compressChainIndex(db);
    const seconds = (performance.now() - started) / 1000;
    await vacuum();
    const cold = await chainIndexBytes(db);
    const coldTimes = await timeReads(reads);

    const step = Math.max(1, Math.floor(devnet.height / 20));
    const sample = Array.from({ length: Math.min(20, devnet.height) }, (_, i) => 1 + i * step);
    const node = await nodeForm(chain, sample);
    const budget = node.proto + node.events;
    console.log(
      `  what the node sends for one (${fmt(node.txs)} txs of ${sample.length} blocks): protobuf ${fmt(node.proto, 0)} + events as block_results spells them, deflated, ${fmt(node.events, 0)} = ${fmt(budget, 0)}`,
    );
    console.log(
      `  bytes on disk per tx (tables, indexes and TOAST; ${fmt(hot.n)} txs; its protobuf ${fmt(hot.proto, 0)}, its events packed ${fmt(hot.events, 0)})`,
    );
    for (const [label, b, target] of [
      ['rowstore   ', hot, false],
      [`columnstore`, cold, true],
    ] as const)
      console.log(
        `    ${label}: txs ${fmt(b.txs, 0)}, tx_hashes ${fmt(b.hashes, 0)}, attribute index ${fmt(b.attributes, 0)}, blocks ${fmt(b.blocks, 0)}: ${fmt(b.all, 0)} in all, ${fmt(b.all / budget, 2)}x the node's${target ? `   target <= 1.2: ${b.all / budget <= 1.2 ? 'met' : 'MISSED'}` : ''}`,
      );
    console.log(`    (every chunk compressed in ${fmt(seconds, 1)} s)`);
    console.log(
      `\n  reads through the Chain API's and the wallet's own functions, ${RUNS} runs each after 10 untimed (ms: min / median / max)`,
    );
    for (const [i, r] of reads.entries()) {
      const ratio = median(coldTimes[i]!) / median(hotTimes[i]!);
      console.log(`  ${r.name}`);
      console.log(
        `    rowstore ${spread(hotTimes[i]!, (v) => fmt(v, 2))}; columnstore ${spread(coldTimes[i]!, (v) => fmt(v, 2))}: ${fmt(ratio, 2)}x   target <= 2: ${ratio <= 2 ? 'met' : 'MISSED'}`,
      );
    }
    measured(
      `one run on ${where}: sizes from hypertable_size and pg_total_relation_size after VACUUM ANALYZE, every chunk in the rowstore, then every chunk in the columnstore; reads are round trips through the service's database seam, the same calls before and after`,
    );
  } finally {
    await db.close();
    await devnet.stop();
  }
}

if (TRADES > 0) await benchTrades();
if (TXS > 0) await benchTxs();
