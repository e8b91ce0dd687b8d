// `npm run bench:devnet`: how fast the devnet makes history and serves it.
//  1. Blocks/s and trades/s with the traffic generator at high rates (blocks back to back).
//  2. The time cosmjs takes to read a 1000-trade block: StargateClient.getBlock plus
//     Comet38Client.blockResults, for a recent block (in memory) and an old one (block log).
//  3. Memory after BENCH_TRADES trades (default 200000).
import { StargateClient } from '@cosmjs/stargate';
import { Comet38Client } from '@cosmjs/tendermint-rpc';
import { createDevnet, type Devnet } from '../src/devnet/index.ts';
import { loadBenchConfig } from './lib/bench-config.ts';
import { median } from './lib/stats.ts';

const totalTrades = loadBenchConfig().trades ?? 200_000;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

async function sustained(devnet: Devnet, tradesPerBlock: number, trades: number) {
  const startHeight = devnet.height();
  const startTrades = devnet.ledger.trades.length;
  const started = performance.now();
  await devnet.pregenerate({ trades, tradesPerBlock });
  const seconds = (performance.now() - started) / 1000;
  const blocks = devnet.height() - startHeight;
  const made = devnet.ledger.trades.length - startTrades;
  console.log(
    `generator ${String(tradesPerBlock).padStart(5)} trades/block: ${(blocks / seconds).toFixed(1).padStart(6)} blocks/s  ${Math.round(
      made / seconds,
    )
      .toString()
      .padStart(6)} trades/s  (${made} trades in ${blocks} blocks, ${seconds.toFixed(1)} s)`,
  );
}

async function readBlock(stargate: StargateClient, comet: Comet38Client, height: number) {
  const started = performance.now();
  const [block, results] = await Promise.all([stargate.getBlock(height), comet.blockResults(height)]);
  const ms = performance.now() - started;
  if (results.results.length !== block.txs.length) throw new Error('block and results disagree');
  return { ms, txs: block.txs.length };
}

const devnet = await createDevnet({ port: 0, blockMs: 0 });
console.log(`devnet ${devnet.rpcUrl}  chain ${devnet.chainId}  node ${process.version}`);
await sustained(devnet, 100, 10_000);
await sustained(devnet, 1_000, 30_000);
await sustained(devnet, 5_000, 50_000);

// A 1000-trade block read through cosmjs, right after it was made and once it is old.
await devnet.pregenerate({ trades: 1_000, tradesPerBlock: 1_000 });
const measured = devnet.height();
const stargate = await StargateClient.connect(devnet.rpcUrl);
const comet = await Comet38Client.connect(devnet.rpcUrl);
const recent: number[] = [];
let txs = 0;
for (let i = 0; i < 10; i++) {
  const read = await readBlock(stargate, comet, measured);
  recent.push(read.ms);
  txs = read.txs;
}
const remaining = Math.max(0, totalTrades - devnet.ledger.trades.length);
if (remaining > 0) await sustained(devnet, 1_000, remaining);
const old: number[] = [];
for (let i = 0; i < 10; i++) old.push((await readBlock(stargate, comet, measured)).ms);
console.log(
  `getBlock + block_results of a ${txs}-tx block (median of 10): ${median(recent).toFixed(1)} ms while recent; once old, ${old[0]!.toFixed(1)} ms from the block log then ${median(old.slice(1)).toFixed(1)} ms cached`,
);

global.gc?.();
const memory = process.memoryUsage();
console.log(
  `after ${devnet.ledger.trades.length} trades in ${devnet.height()} blocks: rss ${mb(memory.rss)}, heap ${mb(memory.heapUsed)}, buffers ${mb(memory.arrayBuffers)}`,
);
stargate.disconnect();
comet.disconnect();
await devnet.close();
