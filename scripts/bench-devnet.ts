// `npm run bench:devnet` (node --expose-gc: memory is read after a full collection):
// how fast the devnet makes history and serves it, each beside a baseline of the same run.
//  0. Baselines: the memory of the empty devnet, and the read of an empty block.
//  1. Blocks/s and trades/s with the traffic generator at high rates (blocks back to back),
//     in 3 rounds per rate; rates are total trades over total time.
//  2. The time cosmjs takes to read a 1000-trade block: StargateClient.getBlock plus
//     Comet38Client.blockResults, for a recent block (in memory) and an old one (block log),
//     against the same read of the empty block.
//  3. Memory after BENCH_TRADES trades (default 200000), against the empty devnet's.
import { StargateClient } from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { createDevnet, type Devnet } from '../src/devnet/index.ts';
import { loadBenchConfig } from './lib/bench-config.ts';
import { fmt, measured, spread, tally } from './lib/report.ts';
import { median } from './lib/stats.ts';

const gc = globalThis.gc;
if (typeof gc !== 'function') {
  console.error(
    'bench:devnet needs global.gc to read memory after a full collection: run it with node --expose-gc (npm run bench:devnet does)',
  );
  process.exit(2);
}

const totalTrades = loadBenchConfig().trades ?? 200_000;
const mb = (bytes: number) => `${fmt(bytes / 1024 / 1024)} MB`;
const ms = (n: number) => fmt(n, 1);

function memoryAfterGc() {
  gc!();
  gc!(); // a second pass frees what the first one's finalizers released
  return process.memoryUsage();
}

async function sustained(devnet: Devnet, tradesPerBlock: number, trades: number, rounds = 3) {
  const made = tally(`${tradesPerBlock} trades/block`);
  let blocks = 0;
  for (let r = 0; r < rounds; r++) {
    const startHeight = devnet.height();
    const startTrades = devnet.ledger.trades.length;
    const started = performance.now();
    await devnet.pregenerate({ trades: Math.ceil(trades / rounds), tradesPerBlock });
    made.add(devnet.ledger.trades.length - startTrades, (performance.now() - started) / 1000);
    blocks += devnet.height() - startHeight;
  }
  console.log(
    `generator ${String(tradesPerBlock).padStart(5)} trades/block: ${fmt(blocks / made.seconds(), 1).padStart(6)} blocks/s  ${made.describe('trades')}`,
  );
}

async function readBlock(stargate: StargateClient, comet: Comet38Client, height: number) {
  const started = performance.now();
  const [block, results] = await Promise.all([stargate.getBlock(height), comet.blockResults(height)]);
  const elapsed = performance.now() - started;
  if (results.results.length !== block.txs.length) throw new Error('block and results disagree');
  return { ms: elapsed, txs: block.txs.length };
}

async function reads(stargate: StargateClient, comet: Comet38Client, height: number, count = 10) {
  const times: number[] = [];
  let txs = 0;
  for (let i = 0; i < count; i++) {
    const read = await readBlock(stargate, comet, height);
    times.push(read.ms);
    txs = read.txs;
  }
  return { times, txs };
}

const devnet = await createDevnet({ port: 0, blockMs: 0 });
console.log(`devnet ${devnet.rpcUrl}  chain ${devnet.chainId}  node ${process.version}`);
const stargate = await StargateClient.connect(devnet.rpcUrl);
const comet = await Comet38Client.connect(devnet.rpcUrl);

// the baselines, in this run: the empty devnet's memory, and the read of an empty block
const empty = memoryAfterGc();
console.log(
  `baseline: the empty devnet (height ${devnet.height()}): rss ${mb(empty.rss)}, heap ${mb(empty.heapUsed)}, buffers ${mb(empty.arrayBuffers)}`,
);
const emptyHeight = await devnet.produceBlock();
await readBlock(stargate, comet, emptyHeight); // the clients' first request: connection, JIT
const emptyRead = await reads(stargate, comet, emptyHeight);
if (emptyRead.txs !== 0) throw new Error(`block ${emptyHeight} is not empty`);
console.log(`baseline: getBlock + block_results of an empty block, 10 reads: ${spread(emptyRead.times, ms)} ms`);

await sustained(devnet, 100, 10_000);
await sustained(devnet, 1_000, 30_000);
await sustained(devnet, 5_000, 50_000);
measured(
  'blocks made back to back by pregenerate() in this process, 3 rounds per rate; trades/s = total trades / total seconds',
);

// A 1000-trade block read through cosmjs, right after it was made and once it is old.
await devnet.pregenerate({ trades: 1_000, tradesPerBlock: 1_000 });
const measuredHeight = devnet.height();
const recent = await reads(stargate, comet, measuredHeight);
const remaining = Math.max(0, totalTrades - devnet.ledger.trades.length);
if (remaining > 0) await sustained(devnet, 1_000, remaining);
const old = await reads(stargate, comet, measuredHeight);
const emptyMedian = median(emptyRead.times);
console.log(
  `getBlock + block_results of a ${recent.txs}-tx block, 10 reads each: while recent ${spread(recent.times, ms)} ms (${fmt(median(recent.times) / emptyMedian, 1)}x the empty block's median);` +
    ` once old, ${ms(old.times[0]!)} ms from the block log, then cached ${spread(old.times.slice(1), ms)} ms`,
);
measured(
  `cosmjs reads over the devnet's RPC on 127.0.0.1, each timed from request to both answers; the baseline is the same read of an empty block (median ${ms(emptyMedian)} ms)`,
);

const memory = memoryAfterGc();
console.log(
  `after ${fmt(devnet.ledger.trades.length)} trades in ${fmt(devnet.height())} blocks: rss ${mb(memory.rss)}, heap ${mb(memory.heapUsed)}, buffers ${mb(memory.arrayBuffers)};` +
    ` above the empty devnet: rss +${mb(memory.rss - empty.rss)}, heap +${mb(memory.heapUsed - empty.heapUsed)} (${fmt((memory.heapUsed - empty.heapUsed) / devnet.ledger.trades.length)} bytes of heap per trade)`,
);
measured('process.memoryUsage() after two global.gc() calls, the empty devnet measured the same way at start');
stargate.disconnect();
comet.disconnect();
await devnet.close();
