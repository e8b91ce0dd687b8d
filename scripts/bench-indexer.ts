// `npm run bench:indexer [-- --trades N --rounds R --live-seconds S]`
// (a) Backfill: a devnet (its own process) pregenerates N trades; in R rounds, in
//     alternating order, the backfill indexes them into a new empty database, and the
//     same blocks are read alone (the backfill's own batches, fetched the way it fetches
//     them: fetch, parse, hash, decode, pack; no database), the ceiling the node sets.
//     The ratio is backfill trades/s over reading trades/s, both from totals.
// (b) Write path of the same trades: in a new empty database, batch by batch (the
//     backfill's batches; blocks fetched beforehand, untimed), in rotated order: the
//     project's write path (writeBatch in a transaction, as the backfill calls it: chain
//     index, tokens, trades, cursor; its trades step timed on its own too), a raw
//     db.copyIn of the very same decoded trades into an identical table (the ceiling),
//     and a raw INSERT … SELECT FROM unnest of them into another. The tables are checked
//     to hold the same rows as the backfill stored.
// (c) Live lag: the devnet makes a block a second with traffic; the live indexer follows
//     it; for every block, the time from its block time to its batch's commit, p50 and
//     p99 (targets 1 s and 2 s).
// (d) Protocols: two devnets with the same traffic, one speaking CometBFT 0.38 and one
//     Tendermint 0.34 (base64 attributes, begin/end block events, no msg_index); in R
//     rounds, alternating, the backfill indexes each into an empty database, and the same
//     batches are then read alone. The ratio is 0.34's backfill trades/s over 0.38's
//     (target: within 10%, >= 0.9); the same ratio of reading alone shows how much of the
//     gap is the node's answers themselves.
//
// `--only a,b,c,d` runs some of them (default all); `--protocol-trades N` sizes (d);
// `--read-threads N` reads blocks on N worker threads (INDEXER_READ_THREADS; default the
// cores less one, 1 to 4).
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { type ChainClient, createChainClient } from '../src/chain/client.ts';
import { type Database, openDatabase } from '../src/db/index.ts';
import { migrate } from '../src/db/migrate.ts';
import type { ContractAddresses, Trade } from '../src/domain/events.ts';
import { nodeViewOf } from '../src/indexer/cursor.ts';
import { type FetchedBlock, fetchBlocks } from '../src/indexer/fetch-blocks.ts';
import { READ_AHEAD_BATCHES } from '../src/indexer/index-range.ts';
import { createIndexer } from '../src/indexer/indexer.ts';
import { DEFAULT_READ_THREADS, setReadThreads } from '../src/indexer/read-block.ts';
import { writeBatch } from '../src/indexer/write-batch.ts';
import { silentLogger } from '../src/internal/logger.ts';
import { freshServerDatabase } from '../test/helpers/database.ts';
import { loadBenchConfig } from './lib/bench-config.ts';
import { cpuSince, serverCpuSeconds } from './lib/cpu.ts';
import { backfillDevnet, type DevnetProcess, startDevnetProcess } from './lib/devnet-process.ts';
import { createRawTradesTables, rawWrites, storedFingerprints, tradesFingerprint } from './lib/raw-insert.ts';
import { fmt, measured, ratio, rotation, tally } from './lib/report.ts';
import { percentile } from './lib/stats.ts';

const { values } = parseArgs({
  options: {
    trades: { type: 'string', default: '1000000' },
    'trades-per-block': { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '3' },
    'live-seconds': { type: 'string', default: '60' },
    'live-rate': { type: 'string', default: '50' },
    'protocol-trades': { type: 'string', default: '100000' },
    'read-threads': { type: 'string' },
    only: { type: 'string', default: 'a,b,c,d' },
  },
});
const sections = new Set((values.only ?? '').split(','));
const tradeCount = Number(values.trades);
const rounds = Number(values.rounds);
const { databaseUrl } = loadBenchConfig();
const where = databaseUrl ? 'a TimescaleDB server' : 'the embedded TimescaleDB (on disk)';

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

const tradesOf = (blocks: readonly FetchedBlock[]): Trade[] =>
  blocks.flatMap((b) => b.decoded.events.flatMap((e) => (e.kind === 'trade' ? [e.trade] : [])));

type Range = { from: number; to: number };

/**
 * Records how late a 5 ms timer fires on this thread, in ns, until the returned function is
 * called (Node's own monitor cannot be paused between rounds without counting the pause).
 */
function sampleLoopDelay(into: RecordableHistogram): () => void {
  const every = 5;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    into.record(Math.max(1, Math.round((now - last - every) * 1e6)));
    last = now;
  }, every);
  return () => clearInterval(timer);
}

/**
 * A connection the node closed while the client meant to reuse it (keep-alive: under CPU
 * contention a 2 MB block_results answer can be read after the server's idle timeout began).
 */
const closedConnection = (error: unknown): boolean => {
  for (let e = error as { message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    if (/fetch failed|other side closed|ECONNRESET|socket hang up/i.test(e.message ?? '')) return true;
  return false;
};
let retriedReads = 0;
const retriedNote = () =>
  retriedReads > 0 ? ` (${retriedReads} reads retried after the node closed the connection)` : '';

/** The bench's own reads (not the backfill's): fetchBlocks, once more if the node closed the connection. */
async function readBlocks(chain: ChainClient, from: number, to: number, contracts: ContractAddresses) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fetchBlocks(chain, from, to, contracts);
    } catch (error) {
      if (attempt >= 3 || !closedConnection(error)) throw error;
      retriedReads++;
    }
  }
}

/** The service's backfill of the devnet's chain into `db`: the trades it stored, and its batches' heights. */
async function backfillCounted(devnet: DevnetProcess, db: Database, chain: ChainClient) {
  let trades = 0;
  const batches: Range[] = [];
  await backfillDevnet(devnet, {
    db,
    chain,
    from: 1,
    onBatch: (b) => {
      trades += b.trades;
      batches.push({ from: b.fromHeight, to: b.toHeight });
    },
  });
  return { trades, batches };
}

/**
 * Reads the ranges as indexRange does without writing: each range's blocks fetched
 * (8 heights in flight), the next READ_AHEAD_BATCHES ranges requested while one is taken apart.
 */
async function readAlone(chain: ChainClient, contracts: ContractAddresses, ranges: readonly Range[]) {
  let trades = 0;
  const ahead: Promise<FetchedBlock[]>[] = [];
  let next = 0;
  const readAhead = () => {
    while (ahead.length < READ_AHEAD_BATCHES && next < ranges.length) {
      const r = ranges[next++]!;
      const blocks = readBlocks(chain, r.from, r.to, contracts);
      blocks.catch(() => {}); // surfaced when awaited
      ahead.push(blocks);
    }
  };
  readAhead();
  while (ahead.length > 0) {
    const blocks = await ahead.shift()!;
    readAhead();
    trades += tradesOf(blocks).length;
  }
  return trades;
}

async function benchBackfill() {
  console.log(
    `(a) backfill: pregenerating ${fmt(tradeCount)} trades on the devnet (${values['trades-per-block']} per block)…`,
  );
  const genStarted = performance.now();
  const devnet = await startDevnetProcess({
    pregenerate: tradeCount,
    tradesPerBlock: Number(values['trades-per-block']),
  });
  console.log(
    `    devnet ready: ${fmt(devnet.trades)} trades in ${fmt(devnet.height)} blocks (${fmt((performance.now() - genStarted) / 1000)} s)`,
  );
  const chain = createChainClient(devnet.rpcUrl, { timeoutMs: 120_000 });
  try {
    // the node's caches warm for every round alike: one untimed read of every block first
    for (let h = 1; h <= devnet.height; h += 8)
      await readBlocks(chain, h, Math.min(devnet.height, h + 7), devnet.contracts);

    const backfilled = tally('backfill');
    const read = tally('read');
    let ranges: Range[] = [];
    let stored = '';
    let indexerCpu = 0;
    const indexerCpuPerRound: number[] = []; // µs a trade of each round
    let devnetCpu = 0;
    let readingCpu = 0; // the bench's process while it reads alone
    let readingDevnetCpu = 0;
    let serverCpu = 0; // the local server's processes (NaN when they cannot be seen; 0 embedded)
    let machineCpu = 0; // every process of the machine, the kernel's own work included
    let readingMachineCpu = 0;
    // how long the indexer's thread (which in the service also answers the APIs) was kept from its event loop
    const loopDelay = createHistogram();
    for (let r = 0; r < rounds; r++) {
      // round 1 backfills first (its batches are the ranges the reads use), then alternately
      for (const which of r % 2 === 0 ? (['backfill', 'read'] as const) : (['read', 'backfill'] as const)) {
        if (which === 'read') {
          const used = cpuSince(devnet.child.pid);
          const started = performance.now();
          const trades = await readAlone(chain, devnet.contracts, ranges);
          const rate = read.add(trades, (performance.now() - started) / 1000);
          const { own, other, machine } = used();
          readingCpu += own;
          readingDevnetCpu += other;
          readingMachineCpu += machine;
          console.log(`    round ${r + 1}  reading the blocks alone  ${fmt(trades)} trades  ${fmt(rate)} trades/s`);
          continue;
        }
        const round = () =>
          withDatabase(async (db) => {
            const [backend] = databaseUrl ? await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid') : [];
            const serverBefore = backend ? serverCpuSeconds(backend.pid) : Number.NaN;
            const used = cpuSince(devnet.child.pid);
            const stopSampling = sampleLoopDelay(loopDelay);
            const started = performance.now();
            const { trades, batches } = await backfillCounted(devnet, db, chain);
            const seconds = (performance.now() - started) / 1000;
            stopSampling();
            const { own, other, machine } = used();
            machineCpu += machine;
            indexerCpu += own;
            indexerCpuPerRound.push((own * 1e6) / trades);
            devnetCpu += other;
            serverCpu += backend ? serverCpuSeconds(backend.pid) - serverBefore : Number.NaN;
            const rate = backfilled.add(trades, seconds);
            console.log(
              `    round ${r + 1}  backfill                  ${fmt(trades)} trades  ${fmt(rate)} trades/s  (${fmt(devnet.height / seconds, 1)} blocks/s, ${batches.length} batches)`,
            );
            const print = await tradesFingerprint(db, 'trades');
            if (stored && print !== stored)
              throw new Error(`round ${r + 1} stored other trades: ${print} vs ${stored}`);
            stored = print;
            if (ranges.length === 0) ranges = batches;
          });
        for (let attempt = 1; ; attempt++) {
          try {
            await round();
            break;
          } catch (error) {
            if (attempt >= 3 || !closedConnection(error)) throw error;
            // not counted: the round runs again from an empty database, and the output says so
            console.log(`    round ${r + 1}  backfill failed (${(error as Error).message}); running it again`);
          }
        }
      }
    }
    console.log(`    backfill into an empty database: ${backfilled.describe('trades')}`);
    console.log(
      `    reading the blocks alone (the backfill's batches, no database): ${read.describe('trades')}${retriedNote()}`,
    );
    /** The CPU seconds of those processes that could be read. */
    const seen = (...cpuSeconds: number[]) => cpuSeconds.filter((s) => !Number.isNaN(s)).reduce((a, b) => a + b, 0);
    const perTrade = (cpuSeconds: number) => fmt((cpuSeconds / backfilled.units()) * 1e6);
    const cores = availableParallelism();
    console.log(
      `    CPU per trade during the backfills: indexer process ${perTrade(indexerCpu)} µs (per round: ${indexerCpuPerRound.map((us) => fmt(us)).join(' / ')}; reading, decoding, writing${databaseUrl ? '' : ', the embedded database'} and garbage collection${databaseUrl ? "; the server's own processes not counted" : ''}), devnet process ${Number.isNaN(devnetCpu) ? '?' : perTrade(devnetCpu)} µs${databaseUrl ? `, the server's processes ${Number.isNaN(serverCpu) ? '? (not on this machine)' : `${perTrade(serverCpu)} µs`}` : ''};` +
        ` ${fmt(seen(indexerCpu, devnetCpu, serverCpu) / backfilled.seconds(), 2)} of ${cores} cores busy (the machine: ${fmt(machineCpu / backfilled.seconds(), 2)})`,
    );
    const perRead = (cpuSeconds: number) => (Number.isNaN(cpuSeconds) ? '?' : fmt((cpuSeconds / read.units()) * 1e6));
    console.log(
      `    CPU per trade while reading alone: this process ${perRead(readingCpu)} µs, devnet process ${perRead(readingDevnetCpu)} µs; ${fmt(seen(readingCpu, readingDevnetCpu) / read.seconds(), 2)} of ${cores} cores busy (the machine: ${fmt(readingMachineCpu / read.seconds(), 2)})`,
    );
    const ms = (ns: number) => fmt(ns / 1e6, 1);
    console.log(
      `    the indexer thread's event-loop delay during the backfills (what an API request waits on top of its own time): p50 ${ms(loopDelay.percentile(50))} ms, p99 ${ms(loopDelay.percentile(99))} ms, max ${ms(loopDelay.max)} ms`,
    );
    console.log(
      `    ratio backfill/reading alone: ${ratio(backfilled, read)} (target >= 0.9; reading alone is the ceiling, and the backfill shares the cores with the devnet and the server: the CPU lines above)`,
    );
    measured(
      `${rounds} backfills of the same ${fmt(backfilled.units() / rounds)} trades (${fmt(devnet.height)} blocks) into empty databases on ${where}, alternating with reads of the same batches; rates = total trades / total seconds`,
    );

    console.log(
      `(b) the write path of the same trades: ${ranges.length} batches of the backfill, blocks fetched beforehand`,
    );
    await withDatabase(async (db) => {
      await createRawTradesTables(db);
      const raw = rawWrites(db);
      const project = tally('writeBatch');
      const projectTrades = tally('writeBatch trades step');
      const copy = tally('copy');
      const unnest = tally('unnest');
      for (const [i, range] of ranges.entries()) {
        const blocks = await readBlocks(chain, range.from, range.to, devnet.contracts);
        const events = blocks.flatMap((b) => b.decoded.events);
        const trades = tradesOf(blocks);
        for (const which of rotation(['project', 'copy', 'unnest'] as const, i)) {
          const started = performance.now();
          if (which === 'project') {
            let tradesStep = 0;
            let stepStarted = 0;
            const result = await db.transaction((tx) =>
              writeBatch(
                tx,
                { blocks, events },
                {
                  moveCursor: true,
                  emitFeed: false,
                  bulk: true, // as indexRange writes at the head of the index
                  faultPoint: (step) => {
                    if (step === 'tokens') stepStarted = performance.now();
                    if (step === 'trades') tradesStep = (performance.now() - stepStarted) / 1000;
                  },
                },
              ),
            );
            if (result.trades !== trades.length)
              throw new Error(`writeBatch stored ${result.trades} of ${trades.length}`);
            project.add(trades.length, (performance.now() - started) / 1000);
            projectTrades.add(trades.length, tradesStep);
          } else {
            const n = await raw[which](trades);
            if (n !== trades.length) throw new Error(`${which} stored ${n} of ${trades.length}`);
            (which === 'copy' ? copy : unnest).add(trades.length, (performance.now() - started) / 1000);
          }
        }
      }
      const prints = await storedFingerprints(db);
      if (prints.some((p) => p !== stored))
        throw new Error(`the paths stored other trades than the backfill: ${prints.join(' | ')} vs ${stored}`);
      console.log(`    all three tables hold the trades the backfill stored: ${stored}${retriedNote()}`);
      const copyLabel = 'raw binary COPY of the same trades (db.copyIn, no ON CONFLICT)';
      console.log(
        `    project write path (writeBatch: chain index, tokens, trades, cursor): ${project.describe('trades', 'batch', 'batches')}`,
      );
      console.log(
        `      of which its trades step (db.copyIn into trades, which has 4 continuous aggregates): ${projectTrades.describe('trades', 'batch', 'batches')}`,
      );
      console.log(`    ${copyLabel}: ${copy.describe('trades', 'batch', 'batches')}`);
      console.log(
        `    raw INSERT … SELECT FROM unnest of the same trades: ${unnest.describe('trades', 'batch', 'batches')}`,
      );
      console.log(
        `    ratio writeBatch/COPY ceiling ${ratio(project, copy)}, writeBatch/unnest ${ratio(project, unnest)}; its trades step/COPY ${ratio(projectTrades, copy)}, /unnest ${ratio(projectTrades, unnest)} (target >= 0.5)`,
      );
      measured(
        `the ${fmt(copy.units())} trades the backfill stored, written batch by batch (${ranges.length} batches, order rotated per batch) by each path into one empty database on ${where}; rates = total trades / total seconds`,
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
  console.log(`(c) live lag: 1 block/s with ${rate} trades per block for ${seconds} s`);
  const devnet = await startDevnetProcess({ blockMs: 1000, liveRate: rate });
  const chain = createChainClient(devnet.rpcUrl);
  try {
    await withDatabase(async (db) => {
      const lags: number[] = [];
      let trades = 0;
      let batches = 0;
      const indexer = createIndexer({
        db,
        chain,
        contracts: devnet.contracts,
        logger: silentLogger,
        pollIntervalMs: 5000,
        // from the next block on: none made while the database was being prepared
        startHeight: (await nodeViewOf(chain)).tipHeight + 1,
        onBatch: (batch) => {
          const committedAt = Date.now();
          for (const block of batch.blockTimes) lags.push(committedAt - block.time.getTime());
          trades += batch.trades;
          batches++;
        },
      });
      indexer.start();
      await new Promise((r) => setTimeout(r, seconds * 1000));
      await indexer.stop();
      console.log(
        `    ${lags.length} blocks in ${batches} batches, ${fmt(trades)} trades (${fmt(trades / seconds, 1)} trades/s); per block, its block time → its batch committed in the database:`,
      );
      console.log(
        `    p50 ${fmt(percentile(lags, 50))} ms, p99 ${fmt(percentile(lags, 99))} ms, min ${fmt(Math.min(...lags))} ms, max ${fmt(Math.max(...lags))} ms (targets p50 <= 1000 ms, p99 <= 2000 ms)`,
      );
      measured(
        `the lag of every one of ${lags.length} blocks the live indexer wrote in ${seconds} s on ${where} (block time from the devnet's header, commit time when the batch's transaction resolved)`,
      );
    });
  } finally {
    chain.disconnect();
    await devnet.stop();
  }
}

async function benchProtocols() {
  const trades = Number(values['protocol-trades']);
  const perBlock = Number(values['trades-per-block']);
  console.log(`(d) protocols: the same ${fmt(trades)} trades on a devnet speaking 0.38 and one speaking 0.34`);
  const nodes = await Promise.all(
    (['0.38', '0.34'] as const).map(async (cometVersion) => {
      const devnet = await startDevnetProcess({ pregenerate: trades, tradesPerBlock: perBlock, cometVersion });
      return {
        cometVersion,
        devnet,
        chain: createChainClient(devnet.rpcUrl, { timeoutMs: 120_000 }),
        backfilled: tally(`backfill ${cometVersion}`),
        read: tally(`read ${cometVersion}`),
        /** The backfill's batches, read alone after each backfill. */
        ranges: [] as Range[],
        /** CPU seconds during the backfills and during the reads alone: this process, the devnet's. */
        cpu: { backfill: 0, backfillDevnet: 0, read: 0, readDevnet: 0 },
      };
    }),
  );
  try {
    const prints = new Map<string, string>();
    for (let r = 0; r < rounds; r++) {
      for (const node of r % 2 === 0 ? nodes : [...nodes].reverse()) {
        const { devnet, chain, cpu } = node;
        await withDatabase(async (db) => {
          const used = cpuSince(devnet.child.pid);
          const started = performance.now();
          const { trades: stored, batches } = await backfillCounted(devnet, db, chain);
          const rate = node.backfilled.add(stored, (performance.now() - started) / 1000);
          const { own, other } = used();
          cpu.backfill += own;
          cpu.backfillDevnet += other;
          console.log(
            `    round ${r + 1}  ${node.cometVersion}  backfill  ${fmt(stored)} trades  ${fmt(rate)} trades/s  (${chain.protocol} read from the node)`,
          );
          prints.set(node.cometVersion, String(stored));
          if (node.ranges.length === 0) node.ranges = batches;
        });
        // the same batches read alone: what the node's answers cost to read, without the database
        const used = cpuSince(devnet.child.pid);
        const started = performance.now();
        const read = await readAlone(chain, devnet.contracts, node.ranges);
        const rate = node.read.add(read, (performance.now() - started) / 1000);
        const { own, other } = used();
        cpu.read += own;
        cpu.readDevnet += other;
        console.log(`    round ${r + 1}  ${node.cometVersion}  read alone  ${fmt(read)} trades  ${fmt(rate)} trades/s`);
      }
    }
    if (prints.get('0.34') !== prints.get('0.38'))
      throw new Error(`the two devnets' backfills stored different trade counts: ${[...prints.values()].join(' vs ')}`);
    const [modern, old] = nodes;
    const perTrade = (seconds: number, t: ReturnType<typeof tally>) =>
      Number.isNaN(seconds) ? '?' : fmt((seconds / t.units()) * 1e6);
    for (const n of nodes) {
      const name = n.cometVersion === '0.34' ? 'Tendermint 0.34' : 'CometBFT 0.38';
      console.log(`    ${name}: backfill ${n.backfilled.describe('trades')}`);
      console.log(`    ${name}: reading alone ${n.read.describe('trades')}`);
      console.log(
        `    ${name}: CPU per trade, this process / the devnet's: backfill ${perTrade(n.cpu.backfill, n.backfilled)} / ${perTrade(n.cpu.backfillDevnet, n.backfilled)} µs, reading alone ${perTrade(n.cpu.read, n.read)} / ${perTrade(n.cpu.readDevnet, n.read)} µs`,
      );
    }
    console.log(`    ratio 0.34/0.38 of the backfills: ${ratio(old!.backfilled, modern!.backfilled)} (target >= 0.9)`);
    console.log(
      `    ratio 0.34/0.38 of reading alone: ${ratio(old!.read, modern!.read)} (the share of the gap that is the node's answers, before any database)`,
    );
    measured(
      `${rounds} backfills of each devnet's ${fmt(trades)} trades (${fmt(nodes[0]!.devnet.height)} blocks each) into empty databases on ${where}, alternating, each followed by a read of its batches alone; rates = total trades / total seconds`,
    );
  } finally {
    for (const n of nodes) {
      n.chain.disconnect();
      await n.devnet.stop();
    }
  }
}

const readThreads = values['read-threads'] ? Number(values['read-threads']) : DEFAULT_READ_THREADS;
setReadThreads(readThreads);
console.log(
  `bench:indexer on ${where}, blocks read on up to ${readThreads} worker thread${readThreads === 1 ? '' : 's'}`,
);
if (sections.has('a') || sections.has('b')) await benchBackfill();
if (sections.has('c')) await benchLiveLag();
if (sections.has('d')) await benchProtocols();
