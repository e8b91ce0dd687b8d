// The devnet child of startChainBenchDevnet(): a devnet kept in a data directory (its block
// log is read back on start, so a prepared chain is reused), extended until it holds the
// trades asked for, then serving its RPC (no automatic blocks) until SIGTERM.
// Prints `progress {json}` while it pregenerates and `ready {json}` when it serves.
import { createDevnet } from '../../src/devnet/index.ts';

const { dataDir, trades, tradesPerBlock } = JSON.parse(process.argv[2]!) as {
  dataDir: string;
  trades: number;
  tradesPerBlock: number;
};
const restoreStarted = performance.now();
const devnet = await createDevnet({ port: 0, blockMs: 0, tradesPerBlock: 0, dataDir });
const restored = { height: devnet.height(), trades: devnet.ledger.trades.length };
const restoreSeconds = (performance.now() - restoreStarted) / 1000;
const generateStarted = performance.now();
const CHUNK = 50_000;
while (devnet.ledger.trades.length < trades) {
  await devnet.pregenerate({ trades: Math.min(CHUNK, trades - devnet.ledger.trades.length), tradesPerBlock });
  process.stdout.write(
    `progress ${JSON.stringify({ trades: devnet.ledger.trades.length, height: devnet.height(), seconds: (performance.now() - generateStarted) / 1000 })}\n`,
  );
}
process.stdout.write(
  `ready ${JSON.stringify({
    rpcUrl: devnet.rpcUrl,
    contracts: devnet.contracts,
    height: devnet.height(),
    trades: devnet.ledger.trades.length,
    restored,
    restoreSeconds,
    generateSeconds: restored.trades >= trades ? 0 : (performance.now() - generateStarted) / 1000,
  })}\n`,
);
process.on('SIGTERM', async () => {
  await devnet.close();
  process.exit(0);
});
